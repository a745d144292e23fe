import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import logging  # noqa: E402
import os  # noqa: E402

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# --- hypothesis: the same examples on every run, more of them on request ---------------------------------------
# "ci" (the default) derandomizes: every run draws the same examples, so a test passes or fails for its code, never
# for its luck, and each test's own max_examples bounds its time. POSENC_HYPOTHESIS=deep draws fresh examples,
# DEEP_FACTOR times as many, for a search before a release (about ten times the core layer's time).
DEEP_FACTOR = 10
settings.register_profile("ci", derandomize=True, deadline=None, database=None, print_blob=True)
settings.register_profile("deep", derandomize=False, deadline=None, print_blob=True)
HYPOTHESIS_PROFILE = os.environ.get("POSENC_HYPOTHESIS", "ci")
settings.load_profile(HYPOTHESIS_PROFILE)


# --- AppTest: the installed packages' component manifests read once per test process ---------------------------
# Every new AppTest reads the metadata of every installed distribution for Streamlit component manifests (streamlit
# 1.67, components/v2/manifest_scanner), about 80 ms, more than a page's own run, on each of the 1,600 or so
# AppTests of a run. The installed packages cannot change during a run, so one reading serves every AppTest.
def _scan_once():
    import functools

    from streamlit.components.v2 import manifest_scanner

    scan = functools.cache(manifest_scanner.scan_component_manifests)
    manifest_scanner.scan_component_manifests = lambda *args, **kwargs: list(scan(*args, **kwargs))


_scan_once()


# --- AppTest: each script compiled once per test process -----------------------------------------------------------
# Every AppTest run makes a new ScriptCache (streamlit 1.67, testing/v1/app_test.py), so app.py and the page were
# read and compiled again on every run: about a tenth of a page's run, on each of the tens of thousands of runs. The
# app's sources do not change during a run, so one cache serves every AppTest (a running server keeps one too).
def _compile_once():
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test

    shared = ScriptCache()
    app_test.ScriptCache = lambda: shared


_compile_once()


# --- layers: what a change touches -------------------------------------------------------------------------------
# Every test carries one layer marker, decided from its module (CONTRIBUTING.md: which command fits which change):
# browser (marked so: a real Chromium), pages (Streamlit's AppTest), kit (page_kit without a page) or core.
LAYERS = {
    "browser": lambda item, source: item.get_closest_marker("browser") is not None,
    # AppTest, or a served app spoken to at the protocol level (devtools.st_protocol): pages without a browser
    "pages": lambda item, source: any(s in source for s in ("AppTest", "apptest_pages", "st_protocol")),
    "kit": lambda item, source: "page_kit" in source,
    "core": lambda item, source: True,
}


# the order the suite runs them: real browsers and AppTest pages (the longest files) first, then the core (some single
# tests of half a minute), and last the kit's many short tests, which fill the end so both workers finish together
LAYER_ORDER = ("browser", "pages", "core", "kit")


def pytest_addoption(parser):
    parser.addoption("--lesson", action="append", default=[], metavar="URL_PATH",
                     help="only the tests of one lesson (its url_path, e.g. sinusoidal): its AppTest views and its "
                          "browser views; repeat for several")


def _layer(item) -> str:
    """The layer of ``item``'s module, judged on the module's first test (marks and source are the module's)."""
    source = Path(item.module.__file__).read_text(encoding="utf-8")
    return next(name for name, rule in LAYERS.items() if rule(item, source))


def _lessons_of(item) -> set[str]:
    """The url_paths a test is parametrized with: a page of the registry, or its url_path in the test's id."""
    from page_kit.navigation.registry import PageInfo

    params = getattr(getattr(item, "callspec", None), "params", {})
    found = {value.url_path for value in params.values() if isinstance(value, PageInfo)}
    ident = getattr(getattr(item, "callspec", None), "id", "")
    return found | set(ident.replace("?", "-").split("-"))


def pytest_collection_modifyitems(config, items):
    layers, deepened = {}, set()
    for item in items:
        module = item.module.__name__
        if module not in layers:
            layers[module] = _layer(item)
        item.add_marker(getattr(pytest.mark, layers[module]))
        test = getattr(item, "obj", None)
        if HYPOTHESIS_PROFILE == "deep" and hasattr(test, "_hypothesis_internal_use_settings") \
                and id(test) not in deepened:  # a parametrized test's items share one function
            deepened.add(id(test))
            own = item.obj._hypothesis_internal_use_settings
            item.obj._hypothesis_internal_use_settings = settings(own, max_examples=own.max_examples * DEEP_FACTOR)
    # two workers (--dist loadfile, --no-loadscope-reorder in pyproject.toml) take files in LAYER_ORDER, so short
    # ones fill the end instead of one worker running the last big file alone (a layer's files keep their order)
    items.sort(key=lambda item: LAYER_ORDER.index(layers[item.module.__name__]))
    lessons = set(config.getoption("lesson"))
    if lessons:
        keep = [item for item in items if _lessons_of(item) & lessons]
        config.hook.pytest_deselected(items=[item for item in items if item not in keep])
        items[:] = keep


class _Fallbacks(logging.Handler):
    def __init__(self):
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record):
        self.records.append(record)


@pytest.fixture(autouse=True)
def no_fallback(request):
    """Fail any test during which a page hit the last-line guard (page_kit.lesson.report_unexpected).

    The fallback turns a bug into a friendly message, so an AppTest could pass over it; its log record
    cannot. (The browser suites fail on its error box.) A test of the guard itself is marked
    ``fallback_expected``.
    """
    handler = _Fallbacks()
    logger = logging.getLogger("posenc_explorer.fallback")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
    if handler.records and not request.node.get_closest_marker("fallback_expected"):
        first = handler.records[0]
        pytest.fail(f"a page fell back to its last-line guard: {first.getMessage()}\n"
                    + logging.Formatter().formatException(first.exc_info), pytrace=False)


@pytest.fixture
def empty_figure_cache():
    """The process-wide figure cache (page_kit.figures.cache) emptied before and after the test: a view an earlier
    test built would come back without its builder or kit steps running."""
    from page_kit.figures import cache

    stores = (cache.CHARTS, cache.SPECS, cache.DERIVED)
    for store in stores:
        store.clear()
    yield
    for store in stores:
        store.clear()


# --- one app server and one browser per test process -------------------------------------------------------------
# Starting Streamlit and Chromium costs seconds; every browser test of a worker shares these two.

@pytest.fixture(scope="session")
def app_url():
    """The base URL of the app, served once for the whole run of this test process."""
    from devtools.streamlit_server import streamlit_server

    with streamlit_server() as url:
        yield url


@pytest.fixture(scope="session")
def chromium():
    """Headless Chromium (Debian's package), launched once for the whole run of this test process."""
    from devtools.streamlit_server import CHROMIUM_FLAGS, chromium_path

    if chromium_path() is None:
        pytest.skip("chromium is not installed (apt-get install chromium); .ci/run installs it")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def view_pages(chromium, app_url):
    """One browser context and tab per view (tests/a11y_audit.VIEWS), opened on first use and kept for the run:
    view name -> (url, page, the page's collected errors)."""
    from tests import a11y_audit, browser_views

    opened = {}

    def get(view):
        if view.name not in opened:
            context = a11y_audit.new_context(chromium, view)
            page = context.new_page()
            opened[view.name] = (context, page, browser_views.watch(page))
        return app_url, *opened[view.name][1:]

    yield get
    for context, _, _ in opened.values():
        context.close()
