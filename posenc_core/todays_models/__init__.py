"""Position in today's models: per-layer rules, sinks, hybrids, latent attention, fewer frequencies, DroPE and CoPE
(lessons/todays_models)."""

from .cope import *  # noqa: F403
from .cope import __all__ as _cope_all
from .drope import *  # noqa: F403
from .drope import __all__ as _drope_all
from .fewer_frequencies import *  # noqa: F403
from .fewer_frequencies import __all__ as _fewer_frequencies_all
from .latent import *  # noqa: F403
from .latent import __all__ as _latent_all
from .layer_rules import *  # noqa: F403
from .layer_rules import __all__ as _layer_rules_all
from .mixers import *  # noqa: F403
from .mixers import __all__ as _mixers_all
from .sinks import *  # noqa: F403
from .sinks import __all__ as _sinks_all

__all__ = [*_layer_rules_all, *_sinks_all, *_mixers_all, *_latent_all, *_fewer_frequencies_all, *_drope_all, *_cope_all]
