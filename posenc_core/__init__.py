"""posenc_core: the numeric core of PosEnc Explorer.

Pure functions, numpy by default, torch on request (``backend="torch"``, ``device="cuda"``).
It knows nothing of Streamlit or plotly. One package per lesson section (``why_position``, ``absolute``,
``rope``, ``attention_bias``, ``long_context``, ``todays_models``, ``encoders``, ``images``, ``multimodal``,
``diffusion``, ``lab``, ``real_models``) plus ``configs`` and ``measures``, shared by several; each module lists its
public names in ``__all__`` and is re-exported here, so ``import posenc_core as pc`` reaches everything.

``pc.__all__`` lists every name that imports with numpy alone. The diffusion section's names
(``pc.diffusion.__all__``) compute in torch as diffusers does: they load on first use, ``dir(pc)`` lists them,
and without torch they raise ``MissingExtraError`` naming the ``torch`` extra.
"""

import ast
import functools
import importlib
import os

__version__ = "0.1.0"

from . import real_models  # noqa: F401  (Inside real models: imports torch/transformers only when measuring)
from ._backend import (
    MissingExtraError,
    available_backends,
    cuda_available,
    default_device,
    to_numpy,
    torch_installed,
)
from ._checks import MAX_DIM, MAX_ELEMENTS, MAX_HEADS, MAX_POSITIONS
from .absolute import *  # noqa: F403
from .absolute import __all__ as _absolute_all
from .attention_bias import *  # noqa: F403
from .attention_bias import __all__ as _attention_bias_all
from .configs import *  # noqa: F403
from .configs import __all__ as _configs_all
from .encoders import *  # noqa: F403
from .encoders import __all__ as _encoders_all
from .images import *  # noqa: F403
from .images import __all__ as _images_all
from .inference import *  # noqa: F403
from .inference import __all__ as _inference_all
from .lab import *  # noqa: F403
from .lab import __all__ as _lab_all
from .long_context import *  # noqa: F403
from .long_context import __all__ as _long_context_all
from .measures import *  # noqa: F403
from .measures import __all__ as _measures_all
from .multimodal import *  # noqa: F403
from .multimodal import __all__ as _multimodal_all
from .rope import *  # noqa: F403
from .rope import __all__ as _rope_all
from .todays_models import *  # noqa: F403
from .todays_models import __all__ as _todays_models_all
from .why_position import *  # noqa: F403
from .why_position import __all__ as _why_position_all

real = real_models  # pc.real, its name before it matched the section's folder, keeps working


__all__ = [
    "MAX_DIM", "MAX_ELEMENTS", "MAX_HEADS", "MAX_POSITIONS", "MissingExtraError", "__version__", "available_backends",
    "cuda_available", "default_device", "real_models", "to_numpy", "torch_installed",
    *_absolute_all, *_attention_bias_all, *_configs_all, *_encoders_all, *_images_all, *_inference_all, *_lab_all,
    *_long_context_all, *_measures_all, *_multimodal_all, *_rope_all, *_todays_models_all, *_why_position_all,
]

# The diffusion section's public names, read from its modules' source so that listing them (dir, tab completion,
# the API reference) imports no torch.
_LAZY_MODULE = "diffusion"


def _diffusion():
    if not torch_installed():
        raise MissingExtraError('The diffusion section computes in torch as diffusers does; install it with '
                                '`pip install "posenc-core[torch]"` (or `pip install torch`).', name="torch")
    return importlib.import_module(".diffusion", __name__)  # not "from . import": that asks this hook again


@functools.cache
def _lazy_names() -> tuple[str, ...]:
    folder = os.path.join(os.path.dirname(__file__), _LAZY_MODULE)
    names: list[str] = []
    for file in sorted(os.listdir(folder)):
        if file.endswith(".py") and not file.startswith("_"):
            with open(os.path.join(folder, file), encoding="utf-8") as handle:
                tree = ast.parse(handle.read())
            names += [n for node in tree.body if isinstance(node, ast.Assign)
                      and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
                      for n in ast.literal_eval(node.value)]
    return tuple(names)


def __getattr__(name: str) -> object:
    """The diffusion section's names, loaded on first use: it computes in torch as diffusers does, and the
    rest of the core imports without torch (an app process starts seconds sooner)."""
    if name.startswith("__"):
        raise AttributeError(name)
    if name == _LAZY_MODULE:
        return _diffusion()
    if name in _lazy_names():
        return getattr(_diffusion(), name)
    raise AttributeError(f"module 'posenc_core' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), _LAZY_MODULE, *_lazy_names()})


# The multimodal presets join the one preset registry, so the config pages and the layer strip list them too.
add_presets(MULTIMODAL_PRESETS)  # noqa: F405
add_presets(MODERNBERT_PRESETS)  # noqa: F405
