import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import logging  # noqa: E402

import pytest  # noqa: E402


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
    """The process-wide figure cache (page_kit.figure_cache) emptied before and after the test: a view an earlier
    test built would come back without its builder or kit steps running."""
    from page_kit import figure_cache

    stores = (figure_cache.CHARTS, figure_cache.SPECS, figure_cache.DERIVED)
    for store in stores:
        store.clear()
    yield
    for store in stores:
        store.clear()
