"""Positions at inference: what the cache holds, context shift, streaming with sinks, what the engine reads
(lessons/inference)."""

from .cache_bytes import *  # noqa: F403
from .cache_bytes import __all__ as _cache_bytes_all
from .cache_table import *  # noqa: F403
from .cache_table import __all__ as _cache_table_all
from .command_lines import *  # noqa: F403
from .command_lines import __all__ as _command_lines_all
from .context_shift import *  # noqa: F403
from .context_shift import __all__ as _context_shift_all
from .engine_metadata import *  # noqa: F403
from .engine_metadata import __all__ as _engine_metadata_all
from .ggml_rope import *  # noqa: F403
from .ggml_rope import __all__ as _ggml_rope_all
from .gguf_header import *  # noqa: F403
from .gguf_header import __all__ as _gguf_header_all
from .kv_cache import *  # noqa: F403
from .kv_cache import __all__ as _kv_cache_all
from .streaming import *  # noqa: F403
from .streaming import __all__ as _streaming_all
from .streaming_shares import *  # noqa: F403
from .streaming_shares import __all__ as _streaming_shares_all
from .vllm_context import *  # noqa: F403
from .vllm_context import __all__ as _vllm_context_all

__all__ = [*_kv_cache_all, *_cache_bytes_all, *_cache_table_all, *_context_shift_all, *_streaming_all,
           *_streaming_shares_all, *_engine_metadata_all, *_ggml_rope_all, *_gguf_header_all, *_vllm_context_all,
           *_command_lines_all]
