"""Multimodal positions: 3D (time, height, width) position ids of mixed text / image / video / audio
sequences, how each vision-language family splits the rotary pairs between those axes, the
scores that follow, the families' config.json fields and presets, and their vision towers' 2D RoPE.
"""

from .config import *  # noqa: F403
from .families import *  # noqa: F403
from .presets import *  # noqa: F403
from .probes import *  # noqa: F403
from .readouts import *  # noqa: F403
from .rotary import *  # noqa: F403
from .sequence import *  # noqa: F403
from .vision_towers import *  # noqa: F403
