"""posenc_core: the numeric core of PosEnc Explorer.

Pure functions, numpy by default, torch on request (``backend="torch"``, ``device="cuda"``).
It knows nothing of Streamlit or plotly. One package per lesson section (``why_position``, ``absolute``,
``rope``, ``attention_bias``, ``long_context``, ``todays_models``, ``encoders``, ``images``, ``multimodal``,
``diffusion``, ``lab``, ``real_models``) plus ``configs`` and ``measures``, shared by several; each module lists its
public names in ``__all__`` and is re-exported here, so ``import posenc_core as pc`` reaches everything.
"""

import importlib

__version__ = "0.1.0"

from . import real_models  # noqa: F401  (Inside real models: imports torch/transformers only when measuring)
from ._backend import available_backends, cuda_available, default_device, to_numpy, torch_installed  # noqa: F401
from ._checks import MAX_DIM, MAX_ELEMENTS, MAX_HEADS, MAX_POSITIONS  # noqa: F401
from .absolute import *  # noqa: F403
from .attention_bias import *  # noqa: F403
from .configs import *  # noqa: F403
from .encoders import *  # noqa: F403
from .images import *  # noqa: F403
from .lab import *  # noqa: F403
from .long_context import *  # noqa: F403
from .measures import *  # noqa: F403
from .multimodal import *  # noqa: F403
from .rope import *  # noqa: F403
from .todays_models import *  # noqa: F403
from .why_position import *  # noqa: F403

real = real_models  # pc.real, its name before it matched the section's folder, keeps working


def __getattr__(name: str):
    """The diffusion section's names, loaded on first use: it computes in torch as diffusers does, and the
    rest of the core imports without torch (an app process starts seconds sooner)."""
    if name.startswith("__"):
        raise AttributeError(name)
    diffusion = importlib.import_module(".diffusion", __name__)  # not "from . import": that asks this hook again
    if name == "diffusion":
        return diffusion
    if not name.startswith("_") and hasattr(diffusion, name):
        return getattr(diffusion, name)
    raise AttributeError(f"module 'posenc_core' has no attribute {name!r}")


# The multimodal presets join the one preset registry, so the config pages and the layer strip list them too.
add_presets(MULTIMODAL_PRESETS)  # noqa: F405
add_presets(MODERNBERT_PRESETS)  # noqa: F405
