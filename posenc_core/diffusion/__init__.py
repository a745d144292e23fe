"""Diffusion transformers (image and video generators): where each patch is, as diffusers computes it.

One module per family: FLUX.1 / FLUX.2 rotary ids (``flux``), SD3's cropped 2D sin-cos table (``sd3``),
the 3D rotary of Wan, HunyuanVideo and CogVideoX (``video``), Qwen-Image's centred ids (``qwen``), the
one-axis rotary table they share with its resolution knobs (``rotary``), and released checkpoints
(``presets``).
"""

from .flux import *  # noqa: F403
from .presets import *  # noqa: F403
from .qwen import *  # noqa: F403
from .rotary import *  # noqa: F403
from .sd3 import *  # noqa: F403
from .video import *  # noqa: F403
from .views import *  # noqa: F403
