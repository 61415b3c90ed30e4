"""What the model sees and what it answers: the paper's prompts, the baseline profile and its
hot lines, SEARCH/REPLACE edits, reply -> program, token counts."""

from supercoder.prompting.answers import resolve_answer

__all__ = ["resolve_answer"]
