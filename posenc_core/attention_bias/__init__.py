"""Position as a bias on attention scores (ALiBi, T5), Shaw's relative vectors and NoPE, and every encoding side by side
(lessons/attention_bias)."""

from .biases import *  # noqa: F403
from .biases import __all__ as _biases_all
from .comparison import *  # noqa: F403
from .comparison import __all__ as _comparison_all
from .relative import *  # noqa: F403
from .relative import __all__ as _relative_all

__all__ = [*_biases_all, *_relative_all, *_comparison_all]
