"""One visit per page and view, every browser check of that view on the one load.

A view is one way a student sees the app (tests/a11y_audit.VIEWS): light and dark at 1,400 x 900, a 1,280 x 720
projector in presentation mode, a 390 x 844 touch phone. Opening a page and each of its tabs is most of the cost
of a browser check, so each view of each page is opened once and every check that applies runs on it; a view
goes from page to page by the sidebar's links (the projector by Next), as a reader does:

- every view, every tab: no exception box, error box, page error or request to another host; figures whose text
  resolves, whose titles, legends and labels stay apart and inside, and whose named series keep their colour;
  no mention of notes the reader cannot see; axe-core's WCAG 2.2 A/AA audit (light on every tab, the whole page on
  the first and the lesson's column on the others, which is all a tab changes; dark with the rules a colour scheme
  can change; the projector and the phone on the first, as a student meets them). Dark opens each page's first
  tab only: it changes colours only, and every tab's dark figures are built, with plotly's checks, by
  tests/test_figures_unchecked.py;
- light: app.py's sidebar is there, every chart is a figure named by its alt text with a "Show the numbers"
  table (and, with POSENC_SCREENSHOTS=1, a whole-page screenshot of every tab in tests/artifacts/screenshots/);
- projector and phone (lessons): the first figure starts in the top 40% of the first screen with at most four
  controls above it; on every tab every chart fits between the presentation bar (or the phone's header) and the
  phone's docked controls, one that starts in the top 40% ends above them on the first screen, and no figure
  text is under the screen's minimum (page_kit/theme.MIN_TEXT_PX); on the projector display formulas fit their
  column, labels read whole, every predict-then-reveal question hides its answer until answered, and Next stays
  in view and leads on with the sidebar folded; on the phone formulas fit or say they scroll, nothing covers the
  title, no Plotly toolbar, titles inside the screen, and the page never scrolls sideways.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

from devtools.streamlit_server import settle_after, wait_until_idle
from page_kit import registry
from page_kit.figures.theme import series_style
from tests import a11y_audit

HERE = Path(__file__).resolve().parent
SHOTS = HERE / "artifacts" / "screenshots"
# a whole-page screenshot of every tab, to look at (POSENC_SCREENSHOTS=1): an artifact, not a check, and each one
# resizes the page twice (tests/screens.py takes them on demand)
SCREENSHOTS = os.environ.get("POSENC_SCREENSHOTS", "0").lower() in ("1", "on", "true", "yes")
TIMES = os.environ.get("POSENC_VIEW_TIMES")
FIGURE_CHECK_JS = (HERE / "figure_check.js").read_text()
LAYOUT_CHECK_JS = (HERE / "layout_check.js").read_text()
LESSONS = [p for p in registry.all_pages() if p is not registry.HOME]
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
NOTES = re.compile(r"\b(source|course|our|lecture|private) notes?\b|\bone of the notes\b|\bthe seed notes?\b", re.I)
FIRST_SCREEN_SHARE = 0.4  # the first figure's top lies within the top 40% of the first screen
MOST_CONTROLS_ABOVE = 4
# axe rules judged on where things are in one frame: a frame caught while a page that Next has just opened still
# moves (a chart fitting its width, the old page's elements leaving) is read again once the layout has settled
LAYOUT_RULES = {"target-size"}


def watch(page) -> list[str]:
    """A list that collects the page's uncaught errors and every request to another host, for as long as it lives.
    Nothing leaves the machine: a classroom may be offline, and a reader's visit is nobody else's business."""
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda request: urlparse(request.url).hostname not in LOCAL_HOSTS
            and urlparse(request.url).scheme in ("http", "https", "ws", "wss")
            and errors.append(f"request to another host: {request.url}"))
    return errors


# --- checks of the page as it is now -----------------------------------------------------------------------------

def check_clean(page, errors: list[str], where: str) -> None:
    exceptions = page.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, f"{where}: {exceptions.first.inner_text()}"
    error_boxes = page.locator('[data-testid="stAlertContentError"]')
    assert error_boxes.count() == 0, f"{where}: {error_boxes.first.inner_text()}"
    assert not errors, f"{where}: {errors}"


def check_text(page, where: str) -> None:
    """Readers have never seen any notes behind the lessons: corrections are phrased as misconceptions."""
    found = NOTES.search(page.locator('[data-testid="stMain"]').inner_text())
    assert found is None, f"{where}: the page mentions notes the reader cannot see: {found.group(0)!r}"


def check_figures(page, where: str) -> None:
    report = page.evaluate(FIGURE_CHECK_JS)
    assert not report["fonts"], f"{where}: figure text fell back to another font: {report['fonts']}"
    assert not report["overlaps"], f"{where}: {report['overlaps']}"
    assert not report["clipped"], f"{where}: {report['clipped']}"
    assert not report["small"], f"{where}: figure text under the screen's minimum size: {report['small'][:6]}"
    for name, colour, dash in report["series"]:
        style = series_style(name)
        if style is not None:  # a named encoding / method / reference curve looks the same in every figure
            assert (colour.lower(), dash) == (style.colour.lower(), style.dash), f"{where}: series {name!r}"


def check_formulas(report: dict, view: a11y_audit.View, where: str) -> None:
    """A projector's formula fits its column (broken at a relation sign, lesson.formula); on a phone a formula
    may scroll sideways as a last resort, saying so."""
    for formula in report["formulas"]:
        assert not formula["wide"] or (formula["cue"] and not view.present), (
            f"{where}: the formula {formula['text']!r} is {formula['scrollWidth']} px wide in a "
            f"{formula['width']} px box" + ("" if view.present else " with no scroll cue"))


def check_elided(report: dict, where: str) -> None:
    """No text cut short with an ellipsis: a chosen option, a select's value, a page link's title reads whole."""
    assert not report["elided"], f"{where}: text cut with an ellipsis: {report['elided']}"


def check_room(report: dict, where: str) -> None:
    """Every chart fits between the screen's chrome (the presentation bar, a phone's header and docked controls),
    so it can be seen whole with its controls; one that starts in the top 40% (a tab's hero) ends above the dock
    or the screen's bottom as it is, on the first screen. The text of the presentation bar is read from the
    back of the room."""
    room = report["room"]
    for chart in report["charts"]:
        assert chart["height"] <= room["bottom"] - room["top"] + 1, (
            f"{where}: the figure {chart['name']!r} is {chart['height']} px tall, with {room['bottom'] - room['top']}"
            f" px between the screen's bar and {'the docked controls' if room['docked'] else 'its bottom'}")
        if 0 <= chart["top"] <= FIRST_SCREEN_SHARE * report["height"]:
            assert chart["bottom"] <= room["bottom"] + 1, (
                f"{where}: the figure {chart['name']!r} ends at {chart['bottom']} px, under "
                f"{'the docked controls at' if room['docked'] else 'the first screen of'} {room['bottom']} px")
    assert not report["small"], f"{where}: presentation-bar text under the screen's minimum: {report['small']}"


def check_axe(page, view: a11y_audit.View, where: str, first_tab: bool) -> None:
    """axe on the whole page on a page's first tab, on the lesson's column on the others (a tab changes nothing
    else); in the dark scheme the rules a colour scheme can change (a11y_audit.COLOUR_RULES)."""
    rules = a11y_audit.COLOUR_RULES if view.scheme == "dark" else None
    bad = a11y_audit.blocking(a11y_audit.audit(page, rules=rules, main_only=not first_tab))
    if any(v["id"] in LAYOUT_RULES for v in bad):  # judged on one frame: what stays once the layout has settled
        settled_layout(page)
        bad = a11y_audit.blocking(a11y_audit.audit(page, rules=rules, main_only=not first_tab))
    assert not bad, ("axe-core (WCAG 2.2 A/AA) finds critical or serious problems:\n"
                     + a11y_audit.describe(where, bad))


_FIGURES = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')].map((plot) => {
  const named = plot.closest('[role="figure"], [role="img"], figure');
  return {name: named ? (named.getAttribute('aria-label') || '').trim() : '',
          role: named ? (named.getAttribute('role') || named.tagName.toLowerCase()) : null};
})"""


def check_text_alternatives(page, where: str) -> None:
    """Every chart is a figure whose accessible name is the kit's alt text (what it shows, with the current
    numbers), and offers its numbers as a folded table."""
    figures = page.evaluate(_FIGURES)
    for figure in figures:
        assert figure["role"] in ("figure", "img"), f"{where}: a chart is not exposed as a figure: {figure}"
        assert len(figure["name"]) >= 15, f"{where}: a chart has no text alternative: {json.dumps(figure)}"
    folds = page.locator('[data-testid="stMain"] [data-testid="stExpander"] summary', has_text="Show the numbers")
    assert folds.count() >= min(1, len(figures)), f"{where}: no 'Show the numbers' table"


def screenshot(page, name: str, width: int, height: int) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    # Streamlit scrolls inside its own container, so grow the viewport to the content for a whole-page shot.
    full = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": width, "height": min(max(height, full + 40), 12000)})
    wait_until_idle(page)
    page.screenshot(path=str(SHOTS / f"{name}.png"))
    page.set_viewport_size({"width": width, "height": height})


# --- the first screen -------------------------------------------------------------------------------------------

def settled_layout(page) -> dict:
    """LAYOUT_CHECK_JS once two readings a frame apart agree on where the figure starts (a layout can still move
    without a change to the document: a font or an image arriving)."""
    report = page.evaluate(LAYOUT_CHECK_JS)
    for _ in range(20):
        wait_until_idle(page)
        again = page.evaluate(LAYOUT_CHECK_JS)
        if again["figureTop"] == report["figureTop"]:
            return again
        report = again
    return report


_SCROLLED = "() => document.querySelector('[data-testid=\"stMain\"]').scrollTop"


def check_first_screen(page, view: a11y_audit.View, where: str) -> None:
    assert page.evaluate(_SCROLLED) == 0, f"{where}: the lesson opens scrolled down, not at its top"
    report = settled_layout(page)
    assert report["figureTop"] is not None, f"{where}: no figure on the first tab"
    assert report["figureTop"] <= FIRST_SCREEN_SHARE * report["height"], (
        f"{where}: the first figure starts at {report['figureTop']:.0f} px, below the top "
        f"{FIRST_SCREEN_SHARE:.0%} of a {report['height']} px screen")
    assert len(report["controls"]) <= MOST_CONTROLS_ABOVE, f"{where}: controls above the figure: {report['controls']}"
    check_formulas(report, view, where)
    check_room(report, where)
    check_elided(report, where)
    if view.present:  # projector fonts: every label reads whole, on one line
        assert not report["cut"], f"{where}: labels wrapped or cut off: {report['cut']}"


_SIDEWAYS = """() => { const main = document.querySelector('[data-testid="stMain"]');
  const widths = {document: document.documentElement.scrollWidth, main: main.scrollWidth};
  return Object.values(widths).some((w) => w > window.innerWidth + 1) ? widths : null; }"""
_TITLE_COVERED = """() => { const h = document.querySelector('h1').getBoundingClientRect();
  const top = document.elementFromPoint(h.left + 20, h.top + h.height / 2);
  return top && top.closest('h1') ? null : (top ? top.outerHTML.slice(0, 160) : 'nothing'); }"""


def check_phone(page, where: str) -> None:
    """390 px: no navigation drawer over the lesson, no Plotly toolbar over the chart titles, titles inside the
    screen, and no sideways scroll (390 px is also a 1,280 px screen at 330 % zoom: the page reflows)."""
    cover = page.evaluate(_TITLE_COVERED)
    assert not cover, f"{where}: something (the navigation drawer?) covers the title: {cover}"
    toolbars = page.locator(".js-plotly-plot .modebar-container")
    assert not toolbars.count() or toolbars.first.is_hidden(), f"{where}: a Plotly toolbar is shown"
    for title in page.locator(".js-plotly-plot .gtitle").all():
        box = title.bounding_box()
        assert box is None or box["x"] + box["width"] <= 390, f"{where}: a figure title runs off the screen"
    wide = page.evaluate(_SIDEWAYS)
    assert not wide, f"{where}: the page scrolls sideways on a phone: {wide}"


# --- questions and presentation ---------------------------------------------------------------------------------

def _question_keys(page) -> list[str]:
    """The keys of the predict-then-reveal questions on screen (classroom.predict keys its radio predict_<key>)."""
    return page.evaluate("""() => [...document.querySelectorAll('[data-testid="stMain"] [class*="st-key-predict_"]')]
        .filter((el) => el.querySelector('[role="radiogroup"]'))
        .map((el) => [...el.classList].find((c) => c.startsWith('st-key-predict_')).slice('st-key-predict_'.length))""")


def check_questions(page, where: str) -> int:
    """Every question hides its answering block until answered; answering shows it and a computed number."""
    keys = _question_keys(page)
    for key in keys:
        hidden, shown = page.locator(f".st-key-answer_hidden_{key}"), page.locator(f".st-key-answer_open_{key}")
        # an answer that is only a chart sends nothing before it is answered (lesson.unseen), and the browser
        # draws no empty box: whether the question gates something shows once it is answered (below)
        assert hidden.count() <= 1 and shown.count() == 0, f"{where}: the answer to {key!r} is open unanswered"
        assert not hidden.count() or not hidden.is_visible(), f"{where}: the answer to {key!r} is on screen unanswered"
        box = page.locator(f".st-key-predict_{key}")
        assert box.locator('[data-testid="stAlert"]').count() == 0, f"{where}: {key!r} reveals before an answer"
        assert settle_after(page, box.locator('[role="radiogroup"] label').first.click), (
            f"{where}: answering {key!r} started no run")
        assert page.locator(f".st-key-answer_open_{key}").is_visible(), (
            f"{where}: the question {key!r} gates nothing (use `with classroom.predict(...):` around its answer)")
        reveal = page.locator('[data-testid="stMain"] [data-testid="stAlert"]').filter(
            has=page.locator("text=/Right\\.|Not quite/"))
        assert reveal.count() >= 1, f"{where}: answering {key!r} reveals nothing"
        assert re.search(r"\d", reveal.first.inner_text()), f"{where}: the reveal of {key!r} names no number"
    return len(keys)


_BAR = """() => { const bar = document.querySelector('.st-key-present_bar');
    const tops = [...bar.querySelectorAll('[data-testid="stElementContainer"]')]
        .map((el) => Math.round(el.getBoundingClientRect().top));
    return {rows: new Set(tops).size, right: bar.getBoundingClientRect().right, overflow: bar.scrollWidth -
            bar.clientWidth, cut: [...bar.querySelectorAll('p')].some((p) => p.scrollWidth > p.clientWidth + 1)};
    }"""
_SIDEBAR_FOLDED = """() => { const bar = document.querySelector('[data-testid="stSidebar"]');
    return !bar || bar.getAttribute('aria-expanded') === 'false' || bar.getBoundingClientRect().right <= 1; }"""


def check_next(page, info, where: str) -> None:
    """Scrolled to the end, Next is in view on one unbroken bar; it opens the next lesson with the sidebar folded."""
    page.evaluate("() => { const main = document.querySelector('[data-testid=\"stMain\"]'); "
                  "main.scrollTop = main.scrollHeight; }")
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    button = page.locator(".st-key-present_next button").first
    box = button.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 720, (
        f"{where}: after scrolling to the end the Next control is out of view ({box})")
    bar = page.evaluate(_BAR)
    assert bar["rows"] == 1 and bar["overflow"] <= 1 and not bar["cut"] and bar["right"] <= 1280, (
        f"{where}: the presentation bar wraps, overflows or cuts a label: {bar}")
    following = LESSONS[LESSONS.index(info) + 1]
    button.click()
    page.wait_for_url(f"**/{following.url_path}**", timeout=30000)
    wait_until_idle(page)
    # the browser tab names the lesson by its registry title (a lesson's own h1 may say more: "ALiBi: ...")
    page.wait_for_function("t => document.title.startsWith(t)", arg=following.title, timeout=30000)
    assert page.locator("h1").first.inner_text().strip()
    assert page.evaluate(_SIDEBAR_FOLDED), f"{where}: Next opened the sidebar on {following.url_path}"


# --- the visit --------------------------------------------------------------------------------------------------

# A page whose last visit ended with every check passed goes on to the next page by the sidebar's link, as a reader
# does, in the same session: a new document per page (page.goto) boots Streamlit again, twice the time of the
# visit's first run. After a failure, or on a page the sidebar does not list, the next visit loads the page afresh.
# (A first visit by a link is tests/test_browser.py's.)
_ENDED_CLEAN: set[int] = set()
_AT_PATH = ("(path) => location.pathname.replace(/\\/+$/, '').endsWith('/' + path) "
            "|| (!path && location.pathname === '/')")


def _go_in_app(page, url: str, path: str) -> bool:
    """Open ``path`` from the page that is open, by its sidebar link (or stay, if Next has just opened it)."""
    if id(page) not in _ENDED_CLEAN or not page.url.startswith(url):
        return False
    if not page.evaluate(_AT_PATH, path):
        link = page.locator(f'[data-testid="stSidebarContent"] .st-key-lesson_nav a[href="{path}"]')
        if link.count() != 1:
            return False
        settle_after(page, lambda: link.dispatch_event("click"))  # ends on a settled page
        page.wait_for_function(_AT_PATH, arg=path, timeout=30000)
    else:  # Next has opened it (check_next waits for it to settle)
        wait_until_idle(page)
    page.wait_for_selector("h1", timeout=30000)
    return True


def open_view(page, url: str, info, view: a11y_audit.View) -> None:
    # Home is the app's root ("/"): its url_path names it in the navigation, and /home is "Page not found"
    path = "" if info is registry.HOME else info.url_path
    if not _go_in_app(page, url, path):
        a11y_audit.open_page(page, url, path, view)
    _ENDED_CLEAN.discard(id(page))
    assert page.get_by_text("Page not found").count() == 0, f"{info.url_path}: Streamlit says Page not found"


def tabs(page):
    return page.locator('[data-testid="stMain"] [role="tab"]')


@contextlib.contextmanager
def _timed(view: a11y_audit.View, info, step: str):
    """With POSENC_VIEW_TIMES=<file>, each step of a visit appends "view, page, step, seconds" to the file
    (where a view's time goes: opening, tabs, axe, the checks)."""
    start = time.perf_counter()
    yield
    if TIMES:
        with open(TIMES, "a") as out:
            out.write(f"{view.name}\t{info.url_path}\t{step}\t{time.perf_counter() - start:.3f}\n")


def visit(page, errors: list[str], url: str, info, view: a11y_audit.View) -> None:
    """Open ``info`` in ``view`` once and run every check of that view on the page and each of its tabs."""
    errors.clear()
    with _timed(view, info, "open"):
        open_view(page, url, info, view)
    lesson = info in LESSONS  # not the home page, not the checkpoint page
    first = f"{info.url_path} [{view.name}]"
    if view.name == "light":
        backend = page.get_by_text("Compute backend")
        backend.first.wait_for(state="attached", timeout=10000)  # the sidebar's settings follow the lesson's links
        assert backend.count() == 1, "app.py's sidebar is missing (legacy pages mode?)"
    if lesson and (view.present or view.phone):
        with _timed(view, info, "first_screen"):
            check_first_screen(page, view, first)
    if view.phone:
        with _timed(view, info, "phone"):
            check_phone(page, first)
    labels = [tabs(page).nth(i).inner_text().strip() for i in range(tabs(page).count())] or [""]
    labels = labels if view.later_tabs else labels[:1]
    asked = 0
    for index, label in enumerate(labels):
        if index:  # a lesson's tabs are lazy sections: opening one is a run
            with _timed(view, info, "tab"):
                assert settle_after(page, tabs(page).nth(index).click), \
                    f"{info.url_path}: tab {label!r} started no run"
        where = f"{info.url_path} / {label or 'page'} [{view.name}]"
        check_clean(page, errors, where)
        with _timed(view, info, "figures_text"):
            check_figures(page, where)
            check_text(page, where)
        if (view.present or view.phone) and (index or not lesson):  # a lesson's first tab: check_first_screen
            with _timed(view, info, "layout"):
                report = page.evaluate(LAYOUT_CHECK_JS)
            check_formulas(report, view, where)
            check_room(report, where)
            check_elided(report, where)
        if index == 0 or view.every_tab:
            with _timed(view, info, "axe"):
                check_axe(page, view, where, first_tab=index == 0)
        if view.name == "light":
            with _timed(view, info, "alt"):
                check_text_alternatives(page, where)
        if view.name == "light" and SCREENSHOTS:
            screenshot(page, info.url_path + (f"--{index}" if index else ""), view.width, view.height)
        if view.present and lesson:
            with _timed(view, info, "questions"):
                asked += check_questions(page, where)
            check_clean(page, errors, f"{where}, questions answered")
    if view.present and lesson:
        assert asked, f"{info.url_path}: no predict-then-reveal question found"
        if info is not LESSONS[-1]:  # the last lesson has no Next
            with _timed(view, info, "next"):
                check_next(page, info, first)
    _ENDED_CLEAN.add(id(page))


def view_test(name: str):
    """The test of one view (tests/test_view_<view>.py): every page of the registry, visited once.

    Each view is its own file so that two test processes (`-n 2 --dist loadfile`) share the views between them."""
    view = a11y_audit.VIEW_NAMES[name]

    @pytest.mark.browser
    @pytest.mark.skipif(not a11y_audit.axe_available(), reason="axe-core is not installed: run `npm ci`")
    @pytest.mark.parametrize("info", registry.routed_pages(), ids=lambda p: p.url_path)
    def test_view(view_pages, info):
        url, page, errors = view_pages(view)
        visit(page, errors, url, info, view)

    return test_view
