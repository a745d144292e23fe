"""Global settings shown in the sidebar on every page: backend, presentation mode, export format."""

from __future__ import annotations

import streamlit as st

import posenc_core as pc
from page_kit.controls import url_values as _url
from page_kit.figures.theme import FIGURE_ROOM_VH, MIN_TEXT_PX, PHONE_DOCK_VH
from page_kit.i18n import N_, Language, _, choice, pgettext

BACKEND_LABELS = {"numpy": "numpy", "torch": "torch (CPU)", "torch-cuda": "torch (CUDA)"}
# why a backend is unavailable, from the code pc.available_backends() gives
UNAVAILABLE_BECAUSE: dict[str, str] = {"no_torch": N_("torch is not installed"),
                                       "no_cuda": N_("no CUDA device found")}

PRESENTATION_CSS = """
<style>
html { font-size: 21px; }
header[data-testid="stHeader"], [data-testid="stToolbar"], footer { display: none !important; }
.block-container { max-width: 96% !important; }
[data-testid="stCaptionContainer"] { font-size: 0.95rem; }
/* a lesson's tabs wrap onto a second row instead of scrolling out of sight at projector sizes */
[data-testid="stMain"] [role="tablist"] { flex-wrap: wrap; row-gap: 0.1rem; }
[data-testid="stMain"] [data-testid="stTab"] p { font-size: 0.8rem; }
[data-testid="stMain"] [role="tablist"] ~ button, [data-testid="stMain"] [data-testid^="stTabsScroll"] {
  display: none; }
/* Streamlit wraps the bar in a layout box of its own height, where "sticky" has no room to stick: pin that box,
   whose parent is the whole page, so the bar stays in view however far the lesson scrolls */
[data-testid="stLayoutWrapper"]:has(> .st-key-present_bar) {
  position: sticky; top: 0; z-index: 99; background: var(--page-bg); }
.st-key-present_bar { flex-wrap: nowrap; }
.st-key-present_bar p { white-space: nowrap; }
/* picture first: a compact title, so the figure starts in the top 40% of a 720 px projector screen */
.block-container { padding-top: 0.4rem !important; }
[data-testid="stMain"] h1 { font-size: 1.6rem; padding: 0.2rem 0 0.1rem; }
[data-testid="stMain"] [data-testid="stTab"] { height: 1.55rem; white-space: nowrap; }
.st-key-present_bar button { min-height: 1.9rem; padding-top: 0.1rem; padding-bottom: 0.1rem; }
.st-key-present_bar button p, .st-key-present_bar [data-testid="stCaptionContainer"] {
  font-size: var(--min-text); }
.st-key-present_bar kbd { display: none; }  /* the keys are listed once, in the bar's caption */
</style>
"""

# On every page. Touch screens have no hover, so Plotly's toolbar would sit on the chart title for good:
# hide it there (every figure has its downloads under it). Narrow screens get smaller chart titles, which
# Plotly cannot wrap, so that they are not cut off at the right edge.
GLOBAL_CSS = """
<style>
/* lesson.header: a guided lesson's title and its Guide me share one line; the title wraps, the button keeps its
   width */
.st-key-lesson_title { flex-wrap: nowrap !important; margin-top: -13px; margin-bottom: -3px; }
.st-key-lesson_title > :first-child { flex: 1 1 0 !important; min-width: 0; }
.st-key-lesson_title > :last-child { flex: none !important; }
/* lesson.header: a phone shows Guide me beside the title as its icon alone; its name stays for screen readers */
@media (max-width: 640px) { .st-key-guide_start button [data-testid="stMarkdownContainer"] { position: absolute;
  width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  .st-key-guide_start button * { text-overflow: clip !important; } }
/* lesson.course: the element whose script writes the learner's progress to the browser takes no room */
[class*="st-key-course_store_"] { display: none; }
/* lesson.stage: a "More settings" fold with nothing in it (a tab whose controls all sit beside its figure) */
.st-key-stage_more:not(:has([data-testid="stElementContainer"])) { display: none; }
/* lesson.guide: the step's panel stays short above the figure (heading at text size, small buttons), and the
   Guide me button takes no more than its line */
.st-key-guide_panel { padding: 0.45rem 0.8rem 0.55rem; gap: 0.3rem; }
.st-key-guide_panel h2 { font-size: 1rem; font-weight: 600; padding: 0 0 0.45rem; line-height: 1.4; }
.st-key-guide_panel button { min-height: 2rem; padding: 0.1rem 0.65rem; }
.st-key-guide_start button { min-height: 1.6rem; padding: 0; }
/* lesson.stage: a kit helper's row of controls (st.columns) in the narrow side column goes one under another */
.st-key-stage_side [data-testid="stHorizontalBlock"] { flex-direction: column; gap: 0; }
.st-key-stage_side [data-testid="stHorizontalBlock"] > [data-testid="stColumn"] { width: 100% !important;
  flex: 1 1 auto !important; min-width: 0; }
/* ... and a segmented control's options wrap there instead of running past the column's edge */
.st-key-stage_side [data-testid="stButtonGroup"] div:has(> button) { flex-wrap: wrap; row-gap: 0.3rem; }
/* a chosen option of a multiselect shows its whole label, on two lines where the column is narrow (the lab's
   methods beside its figure), instead of Streamlit's cut "sinusoid…" */
[data-testid="stMultiSelect"] [data-tag] { height: auto; white-space: normal; }
[data-testid="stMultiSelect"] [data-tag] > span[title] { white-space: normal; overflow-wrap: anywhere;
  text-overflow: clip; line-height: 1.25; padding: 0.15em 0; }
/* ... and so do a segmented control's options and a metric's label: wrapped where the column is narrow, with
   the button growing to hold them, never cut short */
[data-testid="stMain"] [data-testid="stButtonGroup"] button p, [data-testid="stMain"] [data-testid="stMetricLabel"] p {
  white-space: normal; text-overflow: clip; overflow-wrap: anywhere; line-height: 1.3; }
[data-testid="stMain"] [data-testid="stButtonGroup"] button { height: auto; padding-top: 0.3em;
  padding-bottom: 0.3em; }
/* a page link (the home page's lesson cards, the sidebar's lessons) wraps its title instead of cutting it */
[data-testid="stMain"] [data-testid="stPageLink-NavLink"] span { white-space: normal; text-overflow: clip;
  line-height: 1.4; overflow: visible; }
[data-testid="stSidebar"] [data-testid="stPageLink-NavLink"] span { white-space: normal; text-overflow: clip;
  overflow: visible; }
/* render.show: under a figure, its caption takes the row and the download buttons sit at its right end; they
   wrap under it only where the row is too narrow for both */
[class*="st-key-under_chart_"] > [data-testid="stElementContainer"]:first-child { flex: 1 1 0 !important;
  min-width: min(16rem, 60%); }
/* ... and on a phone the caption keeps the whole width, the buttons under it */
@media (max-width: 640px) {
  [class*="st-key-under_chart_"] > [data-testid="stElementContainer"]:first-child { min-width: 100%; } }
/* classroom.predict: the part that answers a question stays hidden until the question is answered */
[class*="st-key-answer_hidden_"] { display: none !important; }
/* A display formula wider than its box scrolls sideways, and says so: a shadow on the side where more of it
   hides (the cover gradients scroll with the formula, the shadows stay with the box, so a shadow shows only
   while something is hidden on its side). KaTeX cannot break a display formula into lines. */
[data-testid="stMain"] .katex-display {
  overflow-x: auto; overflow-y: hidden; padding: 0.2rem 0 0.35rem;
  background:
    linear-gradient(to right, var(--page-bg) 40%, transparent) left / 2.2rem 100% no-repeat local,
    linear-gradient(to left, var(--page-bg) 40%, transparent) right / 2.2rem 100% no-repeat local,
    radial-gradient(farthest-side at 0 50%, rgba(127, 127, 127, 0.55), transparent) left / 1rem 100% no-repeat scroll,
    radial-gradient(farthest-side at 100% 50%, rgba(127, 127, 127, 0.55), transparent) right / 1rem 100% no-repeat
      scroll; }
@media (hover: none) { .js-plotly-plot .modebar-container { display: none !important; } }
@media (max-width: 640px) {
  /* picture first on a phone: a title that fits one or two short lines, so the figure starts in the top 40% */
  [data-testid="stMain"] h1 { font-size: 1.6rem; padding-top: 0.25rem; }
  .block-container { padding-top: 3.5rem !important; }
  /* lesson.stage's controls follow the figure column on a phone; while that column is in view they dock at the
     bottom of the screen, a compact band that scrolls, under a figure sized to end above it (--figure-room), so
     the hand reaches them with the whole figure in sight */
  [data-testid="stColumn"]:has(> div > .st-key-stage_side), [data-testid="stColumn"]:has(.st-key-stage_side) {
    position: sticky; bottom: 0; z-index: 5; max-height: var(--dock-height); overflow-y: auto;
    background: var(--page-bg); border-top: 1px solid rgba(127, 127, 127, 0.35);
    box-shadow: 0 -0.4rem 0.8rem rgba(0, 0, 0, 0.08); padding: 0.3rem 0.2rem 0; }
  /* compact there: a slider's end labels repeat what its value says */
  .st-key-stage_side [data-testid="stSliderTickBar"], .st-key-stage_side .ls-ends { display: none; }
  .js-plotly-plot .gtitle { font-size: 12px !important; }
  .js-plotly-plot .legendtext { font-size: 11px !important; }
  .js-plotly-plot .annotation-text { font-size: 10px !important; }
}
</style>
"""

# The screen's type scale and the height a figure may take (theme.MIN_TEXT_PX, theme.FIGURE_ROOM_VH), as CSS
# variables: page_kit/chart/figure_fit.js fits every figure to them and the browser tests read the same values.
# A chart's box is capped at the room, and the chart element draws the figure to the box it gets.
SCREEN_CSS = f"""
<style>
[class*="st-key-chart_"] [data-testid="stBidiComponentRegular"] {{ max-height: var(--figure-room, none); }}
@media (max-width: 640px) {{ :root {{ --min-text: {MIN_TEXT_PX["phone"]}px; --figure-room: {FIGURE_ROOM_VH["phone"]}vh;
  --dock-height: {PHONE_DOCK_VH}vh; }} }}
</style>
"""
PRESENT_SCREEN_CSS = (f"<style>:root {{ --min-text: {MIN_TEXT_PX['present']}px; "
                      f"--figure-room: {FIGURE_ROOM_VH['present']}vh; }}</style>")

PAGE_BACKGROUND = {False: "#ffffff", True: "#171614"}  # Streamlit 1.67's light and dark page (theme.py's paper)

# Keys a presenter's clicker sends (PageUp / PageDown), with Shift for whole sections; Escape leaves.
PRESENT_KEYS = {"previous": "pageup", "next": "pagedown", "previous section": "shift+pageup",
                "next section": "shift+pagedown", "exit": "escape"}


def sidebar(language: Language) -> None:
    """Draw the global controls; app.py calls this once per run, before the page."""
    with st.sidebar:
        st.markdown("**" + _("Settings") + "**")
        choice.switch(language)
        availability = pc.available_backends()
        usable = [b for b, status in availability.items() if status == "usable"]
        st.radio(_("Compute backend"), usable, key="backend", format_func=BACKEND_LABELS.get,
                 help=_("Where the core computes. torch runs on the GPU when one is present."))
        for name, status in availability.items():
            if status != "usable":
                st.caption(":gray[" + _("{backend}: unavailable ({reason})").format(
                    backend=BACKEND_LABELS[name], reason=_(UNAVAILABLE_BECAUSE[status])) + "]")
        backend, device = current_backend()
        st.caption(_("Computing with **{backend}** on **{device}**.").format(backend=backend, device=device))
        _url.fix("present", _url.boolean)  # checked before Streamlit reads the link, as every bound control
        st.toggle(_("Presentation mode"), key="present", bind="query-params",
                  help=_("Larger fonts and less chrome, for a projector."))
        st.segmented_control(_("Figure export format"), ["png", "svg"], key="export", default="png",
                             help=_("Format of the camera button in each figure's toolbar."))
        theme_switch()
    # Streamlit sets no page-level CSS variable for its background: the pinned bar, the docked controls and the
    # formula scroll cue need it to cover what scrolls under them, in the theme being shown
    st.html(f"<style>:root {{ --page-bg: {PAGE_BACKGROUND[dark()]}; }}</style>" + GLOBAL_CSS + SCREEN_CSS)
    if presentation():
        st.html(PRESENTATION_CSS + PRESENT_SCREEN_CSS)


# Streamlit's frontend keeps the reader's theme choice in localStorage under a key made of the page path
# (stActiveTheme-<path>-v2, value "Light" / "Dark" / "System"); its own settings menu writes the same key.
# The switch writes it for every page of the app, so the choice holds wherever the reader reloads, and
# reloads once to apply it.
_THEME_SCRIPT = """
<script>
(() => {
  const parts = window.location.pathname.split("/"); parts.pop();
  const base = parts.join("/");
  for (const path of %(paths)s) {
    window.localStorage.setItem(`stActiveTheme-${base}/${path}-v2`, JSON.stringify(%(choice)s));
  }
  window.location.reload();
})();
</script>
"""
THEMES = {"Light": ":material/light_mode:", "Dark": ":material/dark_mode:"}
THEME_NAMES = {"Light": N_("Light"), "Dark": N_("Dark")}


def _theme_changed() -> None:
    st.session_state["theme_apply"] = st.session_state.get("theme_choice")


def theme_switch() -> None:
    """Light / dark switch in the sidebar (Streamlit's settings menu is hidden in the minimal toolbar)."""
    import json

    from page_kit.navigation.registry import routed_pages

    current = "Dark" if dark() else "Light"
    st.segmented_control(_("Theme"), list(THEMES), key="theme_choice", default=current, on_change=_theme_changed,
                         format_func=lambda name: f"{THEMES[name]} {_(THEME_NAMES[name])}",
                         help=_("Colours of the whole app and its figures; kept in this browser."))
    choice = st.session_state.pop("theme_apply", None)
    if choice in THEMES and choice != current:
        paths = [""] + [page.url_path for page in routed_pages()]
        st.html(_THEME_SCRIPT % {"paths": json.dumps(paths), "choice": json.dumps(choice)},
                unsafe_allow_javascript=True)


def neighbours(groups, current_url: str) -> dict:
    """Where the presenter can go from the current page.

    ``groups`` is the navigation in order, [(section title, [page, ...]), ...], pages having ``url_path``.
    Returns (section title, page) or None for "previous", "next", "previous section" (the start of this
    section, or of the one before when already at its start) and "next section"; "here" and "position"
    (1-based index, count).
    """
    flat = [(title, page) for title, pages in groups for page in pages]
    index = next((i for i, (_, page) in enumerate(flat) if page.url_path == current_url), 0)
    starts = [i for i in range(len(flat)) if i == 0 or flat[i - 1][0] != flat[i][0]]  # first page of each section
    earlier, later = [i for i in starts if i < index], [i for i in starts if i > index]
    return {"previous": flat[index - 1] if index > 0 else None,
            "next": flat[index + 1] if index + 1 < len(flat) else None,
            "previous section": flat[earlier[-1]] if earlier else None,
            "next section": flat[later[0]] if later else None,
            "here": flat[index], "position": (index + 1, len(flat))}


def _leave_presentation() -> None:
    st.session_state["present"] = False


# role -> icon, and whether the icon goes after the label
_PRESENT_BUTTONS = {"previous section": (":material/keyboard_double_arrow_left:", False),
                    "previous": (":material/chevron_left:", False),
                    "next": (":material/chevron_right:", True),
                    "next section": (":material/keyboard_double_arrow_right:", True)}
_PRESENT_ROLES = {"previous section": N_("Previous section"), "previous": N_("Previous"), "next": N_("Next"),
                  "next section": N_("Next section")}


def presentation_bar(groups, current) -> None:
    """In presentation mode the header (and its sidebar button) is hidden, so the page offers its own way
    around: previous / next lesson and section, also from the keyboard or a clicker, and a visible exit."""
    if not presentation():
        return
    links = neighbours(groups, current.url_path)
    number, total = links["position"]
    bar = st.container(horizontal=True, vertical_alignment="center", key="present_bar", gap="small")
    chosen = None
    for role, (icon, after) in _PRESENT_BUTTONS.items():
        if role == "next":
            bar.caption(f"{number} / {total}",
                        help=_("Section: {section}. Keys (or a presenter's clicker): PageDown / PageUp for the next "
                               "/ previous lesson, with Shift for sections; Escape leaves presentation mode.").format(
                            section=_(links["here"][0])))
        target = links[role]
        # One row at 1,280 px whatever the titles (the longest is 48 characters): only the next lesson is named
        # on its button; the double arrows say which way a section lies, and every tooltip names its target.
        label = _(target[1].title) if role == "next" and target else _("Section") if role.endswith("section") else \
            _(_PRESENT_ROLES[role])
        name = (_(target[0] if role.endswith("section") else target[1].title) if target else
                pgettext("presentation bar, no lesson there", "none"))
        if bar.button(label, key=f"present_{role.replace(' ', '_')}", icon=icon,
                      icon_position="right" if after else "left", type="tertiary", disabled=target is None,
                      shortcut=PRESENT_KEYS[role],
                      help=_("{role}: {name} (key: {key})").format(role=_(_PRESENT_ROLES[role]), name=name,
                                                                    key=PRESENT_KEYS[role])):
            chosen = target
    if bar.button(_("Class"), key="present_class", icon=":material/groups:", type="tertiary",
                  help=_("A live class: start a room (or show its join code) for the students to answer together.")):
        from page_kit.live import panel as live_panel  # the class panel imports the store; only a click here needs it

        live_panel.open_from_bar(current.url_path)
    bar.button(_("Exit (Esc)"), key="present_exit", icon=":material/close_fullscreen:", type="secondary",
               on_click=_leave_presentation, shortcut=PRESENT_KEYS["exit"],
               help=_("Back to the normal layout with the navigation sidebar (key: escape)."))
    if chosen is not None:
        st.switch_page(chosen[1], query_params={})  # the default clears the URL, which bound widgets forbid


def current_backend() -> tuple[str, str]:
    choice = st.session_state.get("backend") or "numpy"
    if choice == "torch-cuda":
        return "torch", "cuda"
    if choice == "torch":
        return "torch", "cpu"
    return "numpy", "cpu"


def presentation() -> bool:
    return bool(st.session_state.get("present", False))


def dark() -> bool:
    """Whether the page is dark. Before the browser has reported its theme (a first run), the server's
    configured base theme decides, so a dark deployment never draws its first figures as white boxes."""
    theme = getattr(st.context, "theme", None)
    kind = getattr(theme, "type", None)
    if kind is None:
        return st.get_option("theme.base") == "dark"
    return kind == "dark"


def export_format() -> str:
    return st.session_state.get("export") or "png"
