"""Picture first, on a projector and on a phone: every lesson opens on its figure, asks before it answers,
and can be presented without a stumble.

Each lesson page is opened in headless Chromium as a 1,280 x 720 projector in presentation mode and as a
390 x 844 touch phone. On the first screen the first figure's top must lie within the top 40% with at most
four controls above it; in every tab no display formula may be wider than its box without a scroll cue, and no
figure title, panel title, legend or reference-line label runs past the figure's edge or into another; every
predict-then-reveal question hides what answers it until it is answered; in presentation mode the Next control
is in view after scrolling to the end, and clicking it leaves the sidebar folded.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from devtools.streamlit_server import wait_until_idle
from page_kit import registry
from tests.test_browser import CHROMIUM, _check_figures, browser_page, chromium_browser  # noqa: F401 (fixtures)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]

PlaywrightTimeout = pytest.importorskip("playwright.sync_api").TimeoutError
LESSONS = [p for p in registry.all_pages() if p is not registry.HOME]

# Lessons still laid out the old way (title, intro, a block of controls, then the figure; questions not gated).
# Their layout checks are expected to fail until they adopt lesson.stage() and gated classroom.predict(); whoever
# converts a page removes it here. Presentation navigation is checked on every page regardless.
NOT_YET: set[str] = set()  # every lesson is converted
assert NOT_YET <= {p.url_path for p in LESSONS}, "NOT_YET names a page the registry does not have"

VIEWS = {  # name: (browser context options, query the page is opened with)
    "projector": ({"viewport": {"width": 1280, "height": 720}}, "?present=true"),
    "phone": ({"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}, ""),
}
FIRST_SCREEN_SHARE = 0.4  # the first figure's top lies within the top 40% of the first screen
MOST_CONTROLS_ABOVE = 4
LAYOUT_CHECK_JS = (Path(__file__).resolve().parent / "layout_check.js").read_text()
NOT_YET_REASON = "not yet converted to the picture-first layout (lesson.stage, gated classroom.predict)"
# Measured after the accessibility and figure-as-control kits joined the layout: on these pages the tab strip
# wraps onto a second row and the first figure starts 2-4 px below the 40% line (290 px of 720, 342 of 844).
# Open work (issue 26): a shorter tab strip; whoever fixes one removes it here.


def _lessons(converted_only_marks: bool = True):
    return [pytest.param(p, id=p.url_path, marks=pytest.mark.xfail(reason=NOT_YET_REASON, strict=False))
            if converted_only_marks and p.url_path in NOT_YET else pytest.param(p, id=p.url_path) for p in LESSONS]


@pytest.fixture(scope="module")
def views(chromium_browser, browser_page):  # noqa: F811 (fixtures imported above)
    url = browser_page[0]
    contexts = {name: chromium_browser.new_context(**options) for name, (options, _) in VIEWS.items()}
    pages = {name: context.new_page() for name, context in contexts.items()}
    yield url, pages
    for context in contexts.values():
        context.close()


def _open(url: str, page, info, view: str) -> None:
    page.goto(f"{url}/{info.url_path}{VIEWS[view][1]}", wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_selector("h1", timeout=30000)
    # a chart mounts after the script has finished: give the first one time to draw (a page may have none)
    try:
        page.locator('.js-plotly-plot, [data-testid="stImage"], [data-testid="stDataFrame"]').first.wait_for(
            state="visible", timeout=15000)
    except PlaywrightTimeout:
        pass


def _settled_report(page) -> dict:
    """LAYOUT_CHECK_JS once two readings 300 ms apart agree on where the figure starts (at most 3 s). On a loaded
    CI machine one reading put Transformer-XL's projector figure at 291 px, where it stands at 279 px on every
    quiet run: a page still settling, read too early (the cause was not pinned down)."""
    report = page.evaluate(LAYOUT_CHECK_JS)
    for _ in range(10):
        page.wait_for_timeout(300)
        again = page.evaluate(LAYOUT_CHECK_JS)
        if again["figureTop"] == report["figureTop"]:
            return again
        report = again
    return report


def _check_formulas(report: dict, where: str) -> None:
    for formula in report["formulas"]:
        assert not formula["wide"] or formula["cue"], (
            f"{where}: the formula {formula['text']!r} is {formula['scrollWidth']} px wide in a "
            f"{formula['width']} px box with no scroll cue")


def _tabs(page):
    return page.locator('[data-testid="stMain"] [role="tab"]')


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("info", _lessons())
def test_the_first_screen_opens_on_the_figure(views, info, view):
    url, pages = views
    page = pages[view]
    _open(url, page, info, view)
    report = _settled_report(page)
    where = f"{info.url_path} ({view})"
    assert report["figureTop"] is not None, f"{where}: no figure on the first tab"
    assert report["figureTop"] <= FIRST_SCREEN_SHARE * report["height"], (
        f"{where}: the first figure starts at {report['figureTop']:.0f} px, below the top "
        f"{FIRST_SCREEN_SHARE:.0%} of a {report['height']} px screen")
    assert len(report["controls"]) <= MOST_CONTROLS_ABOVE, f"{where}: controls above the figure: {report['controls']}"
    _check_formulas(report, where)
    if view == "projector":  # projector fonts: every label reads whole, on one line
        assert not report["cut"], f"{where}: labels wrapped or cut off: {report['cut']}"
    # titles, panel titles and reference-line labels inside the figure, apart, in the page's font (phone widths
    # and projector fonts are where a long title ran off the edge and panel titles met)
    _check_figures(page, where)


def _question_keys(page) -> list[str]:
    """The keys of the predict-then-reveal questions on screen (classroom.predict keys its radio predict_<key>)."""
    return page.evaluate("""() => [...document.querySelectorAll('[data-testid="stMain"] [class*="st-key-predict_"]')]
        .filter((el) => el.querySelector('[role="radiogroup"]'))
        .map((el) => [...el.classList].find((c) => c.startsWith('st-key-predict_')).slice('st-key-predict_'.length))""")


def _check_questions(page, where: str) -> int:
    """Every question hides its answering block until answered; answering shows it and a computed number."""
    keys = _question_keys(page)
    for key in keys:
        hidden, shown = page.locator(f".st-key-answer_hidden_{key}"), page.locator(f".st-key-answer_open_{key}")
        # an answer that is only a chart sends nothing before it is answered (lesson.unseen), and the browser
        # draws no empty box: whether the question gates something shows once it is answered (below)
        assert hidden.count() <= 1 and shown.count() == 0, (
            f"{where}: the answer to {key!r} is open before it is answered")
        assert not hidden.count() or not hidden.is_visible(), (
            f"{where}: the answer to {key!r} is on screen before it is answered")
        box = page.locator(f".st-key-predict_{key}")
        assert box.locator('[data-testid="stAlert"]').count() == 0, f"{where}: {key!r} reveals before an answer"
        box.locator('[role="radiogroup"] label').first.click()
        wait_until_idle(page)
        try:
            page.locator(f".st-key-answer_open_{key}").wait_for(state="visible", timeout=15000)
        except PlaywrightTimeout:
            raise AssertionError(f"{where}: the question {key!r} gates nothing (use `with classroom.predict(...):` "
                                 "around its answer)") from None
        reveal = page.locator('[data-testid="stMain"] [data-testid="stAlert"]').filter(
            has=page.locator("text=/Right\\.|Not quite/"))
        assert reveal.count() >= 1, f"{where}: answering {key!r} reveals nothing"
        assert re.search(r"\d", reveal.first.inner_text()), f"{where}: the reveal of {key!r} names no number"
    return len(keys)


@pytest.mark.parametrize("info", _lessons())
def test_questions_come_before_their_answers_and_formulas_fit(views, info):
    """Every tab, on the projector: gated questions; formulas that fit or say they scroll (on the phone too)."""
    url, pages = views
    asked = 0
    for view, page in pages.items():
        _open(url, page, info, view)
        labels = [_tabs(page).nth(i).inner_text().strip() for i in range(_tabs(page).count())] or [""]
        for index, label in enumerate(labels):
            if index:
                _tabs(page).nth(index).click()
                wait_until_idle(page)
            where = f"{info.url_path} / {label} ({view})"
            _check_formulas(page.evaluate(LAYOUT_CHECK_JS), where)
            _check_figures(page, where)  # every tab's figures: titles, reference-line labels, legends apart
            if view == "projector":
                asked += _check_questions(page, where)
    assert asked, f"{info.url_path}: no predict-then-reveal question found"


def _sidebar_folded(page) -> bool:
    return page.evaluate("""() => { const bar = document.querySelector('[data-testid="stSidebar"]');
        return !bar || bar.getAttribute('aria-expanded') === 'false' || bar.getBoundingClientRect().right <= 1; }""")


@pytest.mark.parametrize("info", _lessons(converted_only_marks=False)[:-1])  # the last lesson has no Next
def test_presentation_next_stays_in_view_and_keeps_the_sidebar_folded(views, info):
    url, pages = views
    page = pages["projector"]
    _open(url, page, info, "projector")
    page.evaluate("() => { const main = document.querySelector('[data-testid=\"stMain\"]'); "
                  "main.scrollTop = main.scrollHeight; }")
    page.wait_for_timeout(300)
    button = page.locator(".st-key-present_next button").first
    box = button.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 720, (
        f"{info.url_path}: after scrolling to the end the Next control is out of view ({box})")
    bar = page.evaluate("""() => { const bar = document.querySelector('.st-key-present_bar');
        const tops = [...bar.querySelectorAll('[data-testid="stElementContainer"]')]
            .map((el) => Math.round(el.getBoundingClientRect().top));
        return {rows: new Set(tops).size, right: bar.getBoundingClientRect().right, overflow: bar.scrollWidth -
                bar.clientWidth, cut: [...bar.querySelectorAll('p')].some((p) => p.scrollWidth > p.clientWidth + 1)};
        }""")
    assert bar["rows"] == 1 and bar["overflow"] <= 1 and not bar["cut"] and bar["right"] <= 1280, (
        f"{info.url_path}: the presentation bar wraps, overflows or cuts a label: {bar}")
    following = LESSONS[LESSONS.index(info) + 1]
    button.click()
    page.wait_for_url(f"**/{following.url_path}**", timeout=30000)
    wait_until_idle(page)
    # the browser tab names the lesson by its registry title (a lesson's own h1 may say more: "ALiBi: ...")
    page.wait_for_function("t => document.title.startsWith(t)", arg=following.title, timeout=30000)
    assert page.locator("h1").first.inner_text().strip()
    assert _sidebar_folded(page), f"{info.url_path}: Next opened the sidebar on {following.url_path}"
