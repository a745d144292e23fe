"""The page kit: figure builders, lesson helpers, URL-bound controls and global settings.

Pages import from here; nothing here does the math (that is posenc_core's job).
"""

from . import cached_signatures, controls, figures
from .figures import Chart
from .hero_frames import hero
from .lesson import Stage, fmt, formula, guard, header, literal, notice, sections, see_also, source, stage, why
from .render import show
from .settings import current_backend, presentation

cached_signatures.install()  # every st.cache_data call of the app goes through it

__all__ = ["Chart", "Stage", "controls", "current_backend", "figures", "fmt", "formula", "guard", "header", "hero",
           "literal", "notice", "presentation", "sections", "see_also", "show", "source", "stage", "why"]
