"""The page kit, in rooms: what a lesson page is made of, and nothing of the math (that is posenc_core's job).

The rooms are layers; a room imports only rooms below it (``tests/test_layers.py``, ``ROOMS``), top to bottom:
the pages -> this package -> lesson -> chart -> controls -> runtime, navigation, live, figures.

- ``runtime``: patches to Streamlit's per-run costs (cached signatures, the frozen import heap) and the kit
  elements' bytes payload (``element_data``).
- ``navigation``: every page in teaching order (``registry``) and the sidebar's list.
- ``live``: the live class on a page (room, outbox, poll, panel, teacher).
- ``figures``: the figure builders (every figure in the app), their theme, label layout, the shared figure
  cache (``cache``) and animation frames (``animation``).
- ``controls``: widgets whose values live in the URL, the checks on a link's raw values (``url_values``), the drag
  slider, the slider specs a figure's event is snapped to (``slider_specs``), folded sections (``folds``) and the
  sidebar's global settings.
- ``chart``: putting a figure on the page (``render.show``), the element in the browser (``plotly_element``),
  the hero figure's frames and the figure as a control (``figure_control``).
- ``lesson``: the parts of a lesson page (notice, formula, source, guard), its questions and code (``classroom``),
  the config picker, code and formula line breaking, model runs in a worker, accessibility rules.

Pages import the lesson's parts from here.
"""

from page_kit import controls, figures, live
from page_kit.chart.hero_frames import hero
from page_kit.chart.render import show
from page_kit.controls.settings import current_backend, presentation
from page_kit.figures import Chart
from page_kit.i18n import N_, _, ngettext
from page_kit.lesson import (
    Stage,
    classroom,
    fmt,
    formula,
    guard,
    header,
    literal,
    notice,
    sections,
    see_also,
    source,
    stage,
    why,
)
from page_kit.lesson import course_panel as course
from page_kit.navigation import registry
from page_kit.runtime import cached_signatures

cached_signatures.install()  # every st.cache_data call of the app goes through it

__all__ = ["N_", "_", "Chart", "Stage", "ngettext", "classroom", "controls", "course", "current_backend", "figures",
           "fmt", "formula", "guard", "header", "hero", "literal", "live", "notice", "presentation", "registry",
           "sections", "see_also", "show", "source", "stage", "why"]
