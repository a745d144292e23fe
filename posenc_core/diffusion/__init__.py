"""Diffusion transformers (image and video generators): where each patch is, as diffusers computes it.

One module per family: FLUX.1 / FLUX.2 rotary ids (``flux``), SD3's cropped 2D sin-cos table (``sd3``),
the 3D rotary of Wan, HunyuanVideo and CogVideoX (``video``), Qwen-Image's centred ids (``qwen``), the
one-axis rotary table they share with its resolution knobs (``rotary``), and released checkpoints
(``presets``).
"""

from .flux import *  # noqa: F403
from .flux import __all__ as _flux_all
from .presets import *  # noqa: F403
from .presets import __all__ as _presets_all
from .qwen import *  # noqa: F403
from .qwen import __all__ as _qwen_all
from .rotary import *  # noqa: F403
from .rotary import __all__ as _rotary_all
from .sd3 import *  # noqa: F403
from .sd3 import __all__ as _sd3_all
from .video import *  # noqa: F403
from .video import __all__ as _video_all
from .views import *  # noqa: F403
from .views import __all__ as _views_all

__all__ = [*_flux_all, *_presets_all, *_qwen_all, *_rotary_all, *_sd3_all, *_video_all, *_views_all]
