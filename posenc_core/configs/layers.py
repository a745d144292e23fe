"""The per-layer reading under its first module path: ``from posenc_core.configs.layers import read_layers`` keeps
working. The code lives in modules named for what they hold: ``layer_row`` (the row and the mixer kinds),
``layer_reading`` (config to rows), ``layer_rope`` (a row's frequencies), ``query_scale`` (position-dependent
query scales).
"""

from .layer_reading import *  # noqa: F403
from .layer_reading import __all__ as _reading_all
from .layer_rope import *  # noqa: F403
from .layer_rope import __all__ as _rope_all
from .layer_row import *  # noqa: F403
from .layer_row import __all__ as _row_all
from .query_scale import *  # noqa: F403
from .query_scale import __all__ as _query_scale_all

__all__ = [*_row_all, *_reading_all, *_rope_all, *_query_scale_all]
