"""posenc_core: the numeric core of PosEnc Explorer.

Pure functions, numpy by default, torch on request (``backend="torch"``, ``device="cuda"``).
It knows nothing of Streamlit or plotly. One module per family; each lists its public names in
``__all__`` and is re-exported here, so ``import posenc_core as pc`` reaches everything.
"""

from . import real  # noqa: F401  (Inside real models: imports torch/transformers only when measuring)
from ._backend import available_backends, cuda_available, default_device, to_numpy, torch_installed  # noqa: F401
from ._checks import MAX_DIM, MAX_ELEMENTS, MAX_HEADS, MAX_POSITIONS  # noqa: F401
from .absolute import *  # noqa: F403
from .analysis import *  # noqa: F403
from .attention import *  # noqa: F403
from .biases import *  # noqa: F403
from .comparison import *  # noqa: F403
from .configs import *  # noqa: F403
from .cope import *  # noqa: F403
from .drope import *  # noqa: F403
from .encoders import *  # noqa: F403
from .extension import *  # noqa: F403
from .fourier import *  # noqa: F403
from .frequencies import *  # noqa: F403
from .lab import *  # noqa: F403
from .latent import *  # noqa: F403
from .layer_rules import *  # noqa: F403
from .learned import *  # noqa: F403
from .mixers import *  # noqa: F403
from .multimodal import *  # noqa: F403
from .presets import *  # noqa: F403
from .relative import *  # noqa: F403
from .rope import *  # noqa: F403
from .scaling import *  # noqa: F403
from .sinks import *  # noqa: F403
from .vision import *  # noqa: F403

# The multimodal presets join the one preset registry, so the config pages and the layer strip list them too.
add_presets(MULTIMODAL_PRESETS)  # noqa: F405
add_presets(MODERNBERT_PRESETS)  # noqa: F405
