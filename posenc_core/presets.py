"""Kept for existing imports: the presets and config reading live in ``posenc_core.configs``."""

from .configs.presets import *  # noqa: F403
from .configs.presets import __all__  # noqa: F401
