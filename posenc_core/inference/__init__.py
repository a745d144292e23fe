"""Positions at inference: what the cache holds, context shift, streaming with sinks, what the engine reads
(lessons/inference)."""

from .context_shift import *  # noqa: F403
from .context_shift import __all__ as _context_shift_all
from .engine_metadata import *  # noqa: F403
from .engine_metadata import __all__ as _engine_metadata_all
from .kv_cache import *  # noqa: F403
from .kv_cache import __all__ as _kv_cache_all
from .streaming import *  # noqa: F403
from .streaming import __all__ as _streaming_all
from .streaming_shares import *  # noqa: F403
from .streaming_shares import __all__ as _streaming_shares_all

__all__ = [*_kv_cache_all, *_context_shift_all, *_streaming_all, *_streaming_shares_all, *_engine_metadata_all]
