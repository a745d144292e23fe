"""Multimodal positions: 3D (time, height, width) position ids of mixed text / image / video / audio
sequences, how each vision-language family splits the rotary pairs between those axes, the
scores that follow, the families' config.json fields and presets, and their vision towers' 2D RoPE.
"""

from .config import *  # noqa: F403
from .config import __all__ as _config_all
from .families import *  # noqa: F403
from .families import __all__ as _families_all
from .presets import *  # noqa: F403
from .presets import __all__ as _presets_all
from .probes import *  # noqa: F403
from .probes import __all__ as _probes_all
from .readouts import *  # noqa: F403
from .readouts import __all__ as _readouts_all
from .rotary import *  # noqa: F403
from .rotary import __all__ as _rotary_all
from .sequence import *  # noqa: F403
from .sequence import __all__ as _sequence_all
from .vision_towers import *  # noqa: F403
from .vision_towers import __all__ as _vision_towers_all

__all__ = [*_config_all, *_families_all, *_presets_all, *_probes_all, *_readouts_all, *_rotary_all, *_sequence_all,
           *_vision_towers_all]
