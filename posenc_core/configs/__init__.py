"""Reading model configs: through transformers' config classes, layer by layer, and the model presets."""

from .labels import *  # noqa: F403
from .labels import __all__ as _labels_all
from .layers import *  # noqa: F403
from .layers import __all__ as _layers_all
from .presets import *  # noqa: F403
from .presets import __all__ as _presets_all
from .reader import *  # noqa: F403
from .reader import __all__ as _reader_all
from .rope_config import *  # noqa: F403
from .rope_config import __all__ as _rope_config_all
from .summaries import *  # noqa: F403
from .summaries import __all__ as _summaries_all

__all__ = [*_labels_all, *_layers_all, *_presets_all, *_reader_all, *_rope_config_all, *_summaries_all]
