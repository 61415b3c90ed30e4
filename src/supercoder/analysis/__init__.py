"""Why is it faster? Assembly structure (functions, blocks, loops) and the paper's nine
transformation kinds, found by comparing a baseline and a candidate program."""

from supercoder.analysis.core import Analysis, Label, MixDelta, analyze
from supercoder.analysis.kinds import KINDS

__all__ = ["KINDS", "Analysis", "Label", "MixDelta", "analyze"]
