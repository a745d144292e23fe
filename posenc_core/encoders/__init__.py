"""Encoders: DeBERTa's disentangled attention, ModernBERT's local and global rotary layers, and Transformer-XL /
XLNet's relative attention, each as the code the models run computes it."""

from .deberta import *  # noqa: F403
from .deberta import __all__ as _deberta_all
from .modernbert import *  # noqa: F403
from .modernbert import __all__ as _modernbert_all
from .xl import *  # noqa: F403
from .xl import __all__ as _xl_all

__all__ = [*_deberta_all, *_modernbert_all, *_xl_all]
