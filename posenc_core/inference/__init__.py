"""Positions at inference: what the cache holds, context shift, streaming with sinks, what the engine reads."""

from .engine_metadata import *  # noqa: F403
from .engine_metadata import __all__ as _engine_metadata_all

__all__ = [*_engine_metadata_all]
