"""Rotary position embedding (RoPE): its frequencies, and one module per lesson of the RoPE section.

``rotation`` (apply_rope, one pair, the angle table), ``relative`` (score grids, decay), ``layouts`` (half
against interleaved pairs, checkpoint conversion, partial rotary), ``precision`` (angles in low-precision
dtypes), ``model_costs`` (what RoPE costs in a model), and ``frequencies``: theta_i = base^(-2i/d) once
(``base_inv_freq``) and every scaling type transformers has (``rope_inv_freq``, the ``ROPE_SCALING`` registry);
``dynamic_calls``: what a dynamic-NTK module uses call after call (its cached state).
"""

from .dynamic_calls import *  # noqa: F403
from .dynamic_calls import __all__ as _dynamic_calls_all
from .frequencies import *  # noqa: F403
from .frequencies import __all__ as _frequencies_all
from .layouts import *  # noqa: F403
from .layouts import __all__ as _layouts_all
from .model_costs import *  # noqa: F403
from .model_costs import __all__ as _model_costs_all
from .precision import *  # noqa: F403
from .precision import __all__ as _precision_all
from .relative import *  # noqa: F403
from .relative import __all__ as _relative_all
from .rotation import *  # noqa: F403
from .rotation import __all__ as _rotation_all

__all__ = [*_frequencies_all, *_dynamic_calls_all, *_rotation_all,
           *_relative_all, *_layouts_all, *_precision_all, *_model_costs_all]
