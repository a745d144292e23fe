"""The app in each language in a real browser: a link's ?lang= opens it so and survives the reader's clicks, the
Chinese glyphs are the app's own (no boxes on a machine without CJK fonts), a browser set to Spanish gets Spanish on
a first visit, and the presentation bar keeps to one row at 1,280 x 720 with the longest titles of each language."""

import pytest

from devtools.streamlit_server import (
    browser_page,
    chromium_path,
    count_runs,
    settle_after,
    wait_for_query,
    wait_until_idle,
)
from page_kit.i18n.catalogues import translations
from page_kit.i18n.languages import BY_CODE
from page_kit.navigation import registry
from tests.browser_views import _BAR, LESSONS, check_clean, check_figures

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]
_FACES = """() => [...document.fonts].filter((f) => f.family.replace(/["']/g, '') === 'Noto Sans SC')
    .map((f) => f.status)"""


def _tr(code: str):
    return translations(BY_CODE[code.lower()]).gettext


def test_a_chinese_link_reads_in_chinese_with_the_apps_own_glyphs(chromium, app_url):
    context, page, errors = browser_page(chromium)
    count_runs(context)  # runs counted on the app's socket: settle_after never misses a short one
    lesson = registry.SECTIONS[0].pages[1]  # naive: its tabs are lazy runs
    page.goto(f"{app_url}/{lesson.url_path}?lang=zh-CN", wait_until="domcontentloaded")
    wait_until_idle(page)
    check_clean(page, errors, "zh-CN")
    tr = _tr("zh-CN")
    page.wait_for_function("t => document.title.startsWith(t)", arg=tr(lesson.title), timeout=30000)
    nav = page.locator('[data-testid="stSidebarContent"] .st-key-lesson_nav')
    assert nav.get_by_text(tr(registry.SECTIONS[0].title), exact=True).count() == 1
    page.wait_for_function(f"() => ({_FACES})().length && ({_FACES})().every((s) => s === 'loaded')", timeout=30000)
    check_figures(page, "zh-CN")
    # the reader's clicks keep the language: a tab (a run that writes the address) and a sidebar link
    tab = page.locator('[data-testid="stMain"] [role="tab"]').nth(1)
    assert settle_after(page, tab.click)
    assert "lang=zh-CN" in page.url
    target = registry.SECTIONS[0].pages[2]
    settle_after(page, lambda: nav.locator(f'a[href="{target.url_path}"]').dispatch_event("click"))
    wait_for_query(page, lang="zh-CN")
    page.wait_for_function("t => document.title.startsWith(t)", arg=tr(target.title), timeout=30000)
    check_clean(page, errors, "zh-CN, after the reader's clicks")
    page.context.close()


def test_a_browser_set_to_spanish_opens_in_spanish(chromium, app_url):
    context = chromium.new_context(locale="es-CO", viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.goto(app_url, wait_until="domcontentloaded")
    wait_for_query(page, lang="es")
    assert page.get_by_text(_tr("es")(registry.SECTIONS[0].title), exact=False).count() >= 1
    context.close()


_WIDEST = """(titles) => { const button = document.querySelector('.st-key-present_next button p')
    || document.querySelector('.st-key-present_next button');
  const context = document.createElement('canvas').getContext('2d');
  context.font = getComputedStyle(button).font;
  const widths = titles.map((t) => context.measureText(t).width);
  return widths.indexOf(Math.max(...widths)); }"""


@pytest.mark.parametrize("code", ["es", "zh-CN"])
def test_the_presentation_bar_keeps_to_one_row(chromium, app_url, code):
    """On the lesson before the title that is widest in this language as the Next button draws it."""
    _, page, errors = browser_page(chromium, viewport=(1280, 720))
    tr = _tr(code)
    page.goto(f"{app_url}/{LESSONS[0].url_path}?present=true&lang={code}", wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_selector(".st-key-present_next button", timeout=30000)
    widest = page.evaluate(_WIDEST, [tr(info.title) for info in LESSONS[1:]]) + 1
    lesson = LESSONS[widest - 1]
    page.goto(f"{app_url}/{lesson.url_path}?present=true&lang={code}", wait_until="domcontentloaded")
    wait_until_idle(page)
    check_clean(page, errors, f"{lesson.url_path} presenting in {code}")
    # as a presenter sees it at the end of the lesson: the whole page drawn, its scroll bar in the width
    page.evaluate("() => { const main = document.querySelector('[data-testid=\"stMain\"]'); "
                  "main.scrollTop = main.scrollHeight; return document.fonts.ready.then(() => true); }")
    wait_until_idle(page)
    bar = page.evaluate(_BAR)
    assert bar["rows"] == 1 and bar["overflow"] <= 1 and not bar["cut"] and bar["right"] <= 1280, (
        f"{code}: the presentation bar wraps, overflows or cuts a label before {tr(LESSONS[widest].title)!r}: {bar}")
    assert page.locator(".st-key-present_next button").first.inner_text().strip().startswith(tr(LESSONS[widest].title))
    page.context.close()


# Every page a language covers (page_kit/i18n/coverage.py), on the projector and on a phone, every tab: the checks of
# tests/browser_views.py that words can break (text cut short or wrapped, a figure's text outside it or colliding,
# text under the screen's minimum, the page scrolling sideways), and no English left on screen.
LANGUAGE_VIEWS = [(code, view) for code in ("zh-CN", "es") for view in ("present", "phone")]


def _covered(code: str):
    from page_kit.i18n import coverage

    return [info for info in registry.all_pages() if coverage.page_translated(info.path, BY_CODE[code.lower()])]


@pytest.mark.parametrize(("code", "view_name"), LANGUAGE_VIEWS, ids=[f"{c}-{v}" for c, v in LANGUAGE_VIEWS])
def test_every_covered_page_fits_the_projector_and_the_phone(chromium, app_url, code, view_name):
    from tests import a11y_audit
    from tests.browser_views import (
        LAYOUT_CHECK_JS,
        check_elided,
        check_formulas,
        check_phone,
        check_room,
        settled_layout,
        tabs,
        watch,
    )
    from tests.test_i18n_lessons import english_left

    view = a11y_audit.VIEW_NAMES[view_name]
    context = chromium.new_context(viewport={"width": view.width, "height": view.height}, is_mobile=view.phone,
                                   has_touch=view.phone, locale=code)  # a first visit follows the browser's language
    a11y_audit.count_runs(context)
    page = context.new_page()
    errors = watch(page)
    for info in _covered(code):
        a11y_audit.open_page(page, app_url, "" if info is registry.HOME else info.url_path, view)
        for index in range(max(1, tabs(page).count())):
            if index:
                assert settle_after(page, tabs(page).nth(index).click)
            where = f"{info.url_path} / tab {index} [{code}, {view_name}]"
            check_clean(page, errors, where)
            check_figures(page, where)
            report = settled_layout(page) if index == 0 else page.evaluate(LAYOUT_CHECK_JS)
            check_formulas(report, view, where)
            check_room(report, where)
            check_elided(report, where)
            if view.present:
                assert not report["cut"], f"{where}: labels wrapped or cut off: {report['cut']}"
            else:
                check_phone(page, where)
            text = page.locator('[data-testid="stMain"]').inner_text()
            english = [line[:80] for line in text.splitlines() if english_left(line)]
            assert not english, f"{where}: still English on screen: {english[:3]}"
    context.close()
