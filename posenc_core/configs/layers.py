"""The per-layer reading under its first module path: ``from posenc_core.configs.layers import read_layers`` keeps
working. The code lives in modules named for what they hold: ``layer_row`` (the row and the mixer kinds),
``layer_reading`` (config to rows), ``layer_rope`` (a row's frequencies), ``query_scale`` (position-dependent
query scales).
"""

from .layer_reading import *  # noqa: F403
from .layer_rope import *  # noqa: F403
from .layer_row import *  # noqa: F403
from .query_scale import *  # noqa: F403

__all__ = [
    "LayerRow", "MIXER_KINDS", "layer_scheme", "read_layers", "layer_inv_freq", "query_scale", "query_scale_start",
]
