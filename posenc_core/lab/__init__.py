"""The extrapolation lab: tiny transformers, one per positional method, trained at length T and
evaluated at T, 2T, 4T and 8T on a task where only position can help.

Importing this package needs no torch (``posenc_core`` must import without it); the training
functions import torch when called. Run it headless with ``python -m posenc_core.lab --json PATH``.
"""

from .findings import (
    LONGEST_CANDIDATES,
    lab_by_method,
    lab_interpolation_question,
    lab_longest_question,
    lab_schedule,
    lab_scores_at,
)
from .methods import LAB_METHODS, TRAINED_METHODS, LabMethod
from .results import (
    best_method,
    lab_attention_panels,
    lab_live_series,
    lab_series,
    lab_train_curves,
    load_lab_results,
    save_lab_results,
    select_methods,
    shipped_lab_results,
    uniform_guess_loss,
)
from .task import IGNORE, TASK_DESCRIPTION, TASK_NAME, retrieval_batch
from .train import (
    EVAL_FACTORS,
    FULL,
    QUICK,
    LabSettings,
    attention_maps,
    build_model,
    check_methods,
    evaluate,
    lab_settings,
    offset_mass,
    run_lab,
    train_model,
    warmup_steps,
)

__all__ = [
    "EVAL_FACTORS",
    "FULL",
    "IGNORE",
    "LAB_METHODS",
    "QUICK",
    "TASK_DESCRIPTION",
    "TASK_NAME",
    "TRAINED_METHODS",
    "LabMethod",
    "LONGEST_CANDIDATES",
    "LabSettings",
    "attention_maps",
    "best_method",
    "build_model",
    "check_methods",
    "evaluate",
    "lab_attention_panels",
    "lab_by_method",
    "lab_interpolation_question",
    "lab_live_series",
    "lab_longest_question",
    "lab_schedule",
    "lab_scores_at",
    "lab_series",
    "lab_settings",
    "lab_train_curves",
    "load_lab_results",
    "offset_mass",
    "retrieval_batch",
    "run_lab",
    "save_lab_results",
    "select_methods",
    "shipped_lab_results",
    "train_model",
    "uniform_guess_loss",
    "warmup_steps",
]
