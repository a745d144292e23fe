"""Why position matters: attention without positions, and the first naive fixes (lessons/why_position)."""

from .binary import *  # noqa: F403
from .binary import __all__ as _binary_all
from .naive import *  # noqa: F403
from .naive import __all__ as _naive_all
from .order import *  # noqa: F403
from .order import __all__ as _order_all

__all__ = [*_order_all, *_naive_all, *_binary_all]
