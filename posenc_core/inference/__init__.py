"""Positions at inference: what a served model's cache holds and how engines move it (lessons/inference)."""

from .context_shift import *  # noqa: F403

__all__ = [
    "KSHIFT_ANGLES", "KSHIFT_DTYPES", "KSHIFT_HEADS", "KShiftHead", "context_shift_plan", "kshift", "kshift_angles",
    "kshift_error_curve", "kshift_scores",
]
