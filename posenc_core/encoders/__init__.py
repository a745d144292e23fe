"""Encoders: DeBERTa's disentangled attention, ModernBERT's local and global rotary layers, and Transformer-XL /
XLNet's relative attention, each as the code the models run computes it."""

from .deberta import *  # noqa: F403
from .modernbert import *  # noqa: F403
from .xl import *  # noqa: F403
