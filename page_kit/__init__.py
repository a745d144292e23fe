"""The page kit, in rooms: what a lesson page is made of, and nothing of the math (that is posenc_core's job).

- ``figures``: the figure builders (every figure in the app), their theme, label layout and animation frames.
- ``chart``: the chart element and its transport: putting a figure on the page (``render.show``), the shared
  figure cache, the element in the browser (``plotly_element``), its data payload, the hero figure's frames and
  the figure as a control.
- ``controls``: widgets whose values live in the URL, the checks on a link's raw values (``url_values``), the drag
  slider, the config picker and the sidebar's global settings.
- ``lesson``: the parts of a lesson page (notice, formula, source, guard), its questions and code (``classroom``),
  code and formula line breaking, model runs in a worker, accessibility rules.
- ``live``: the live class on a page (room, outbox, poll, panel, teacher).
- ``navigation``: every page in teaching order (``registry``) and the sidebar's list.
- ``runtime``: patches to Streamlit's per-run costs (cached signatures, the frozen import heap).

Pages import the lesson's parts from here.
"""

from page_kit import controls, figures, live
from page_kit.chart.hero_frames import hero
from page_kit.chart.render import show
from page_kit.controls.settings import current_backend, presentation
from page_kit.figures import Chart
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
from page_kit.navigation import registry
from page_kit.runtime import cached_signatures

cached_signatures.install()  # every st.cache_data call of the app goes through it

__all__ = ["Chart", "Stage", "classroom", "controls", "current_backend", "figures", "fmt", "formula", "guard", "header",
           "hero", "literal", "live", "notice", "presentation", "registry", "sections", "see_also", "show", "source",
           "stage", "why"]
