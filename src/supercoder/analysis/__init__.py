"""Why is it faster? Assembly structure (functions, blocks, loops) and the paper's nine
transformation kinds, found by comparing a baseline and a candidate program."""

from supercoder.analysis.core import Analysis, Label, MixDelta, analyze
from supercoder.analysis.kinds import TRANSFORMATION_KINDS

__all__ = ["TRANSFORMATION_KINDS", "Analysis", "Label", "MixDelta", "analyze"]
