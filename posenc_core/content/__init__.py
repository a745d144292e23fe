"""Positions read from content: FoX, stick-breaking and PaTH attention, one module each.

Their released kernels run on GPUs only; these are the papers' equations in numpy, small enough for a slide.
"""

from .fox import *  # noqa: F403
from .fox import __all__ as _fox
from .path import *  # noqa: F403
from .path import __all__ as _path
from .stick_breaking import *  # noqa: F403
from .stick_breaking import __all__ as _stick

__all__ = [*_fox, *_path, *_stick]
