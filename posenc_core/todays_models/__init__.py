"""Position in today's models: per-layer rules, sinks, hybrids, latent attention, fewer frequencies, DroPE, CoPE,
and positions read from content: FoX, stick-breaking and PaTH attention (lessons/todays_models). The last three
have GPU-only released kernels; these are the papers' equations in numpy, small enough for a slide."""

from .attention_entropy import *  # noqa: F403
from .attention_entropy import __all__ as _entropy_all
from .cope import *  # noqa: F403
from .cope import __all__ as _cope_all
from .drope import *  # noqa: F403
from .drope import __all__ as _drope_all
from .fewer_frequencies import *  # noqa: F403
from .fewer_frequencies import __all__ as _fewer_frequencies_all
from .fox import *  # noqa: F403
from .fox import __all__ as _fox_all
from .latent import *  # noqa: F403
from .latent import __all__ as _latent_all
from .layer_rules import *  # noqa: F403
from .layer_rules import __all__ as _layer_rules_all
from .mixers import *  # noqa: F403
from .mixers import __all__ as _mixers_all
from .path_attention import *  # noqa: F403
from .path_attention import __all__ as _path_all
from .sinks import *  # noqa: F403
from .sinks import __all__ as _sinks_all
from .stick_breaking import *  # noqa: F403
from .stick_breaking import __all__ as _stick_all

__all__ = [*_layer_rules_all, *_entropy_all, *_sinks_all, *_mixers_all, *_latent_all, *_fewer_frequencies_all,
           *_drope_all, *_cope_all, *_fox_all, *_stick_all, *_path_all]
