"""Absolute encodings added to token embeddings: the sinusoidal table, learned tables read from files,
and token + position (lessons/absolute)."""

from .learned import *  # noqa: F403
from .learned import __all__ as _learned_all
from .sinusoidal import *  # noqa: F403
from .sinusoidal import __all__ as _sinusoidal_all
from .token_position import *  # noqa: F403
from .token_position import __all__ as _token_position_all

__all__ = [*_sinusoidal_all, *_token_position_all, *_learned_all]
