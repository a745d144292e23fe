"""Images and coordinates: 2D positions on a patch grid, resizing it, Fourier features and NeRF (lessons/images)."""

from .fourier import *  # noqa: F403
from .fourier import __all__ as _fourier_all
from .vision import *  # noqa: F403
from .vision import __all__ as _vision_all

__all__ = [*_vision_all, *_fourier_all]
