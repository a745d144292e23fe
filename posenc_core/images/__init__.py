"""Images and coordinates: 2D positions on a patch grid, resizing it, Fourier features and NeRF (lessons/images)."""

from .axial_rope import *  # noqa: F403
from .axial_rope import __all__ as _axial_all
from .fourier import *  # noqa: F403
from .fourier import __all__ as _fourier_all
from .grid_resize import *  # noqa: F403
from .grid_resize import __all__ as _resize_all
from .patch_grid import *  # noqa: F403
from .patch_grid import __all__ as _grid_all
from .sincos_grid import *  # noqa: F403
from .sincos_grid import __all__ as _sincos_all

__all__ = [*_grid_all, *_sincos_all, *_resize_all, *_axial_all, *_fourier_all]
