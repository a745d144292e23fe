"""Long context: what a context-extension method does to each rotary pair, against L and L' (lessons/long_context).
The scaling types themselves are RoPE frequencies (``rope.frequencies``); config.json reading is ``configs``."""

from .extension import *  # noqa: F403
from .extension import __all__ as _extension_all

__all__ = [*_extension_all]
