"""Every page and tab at 1,400 x 900 in the light scheme, on one visit each: clean, figures, text, axe on every
tab, every chart's text alternative, app.py's sidebar, and a whole-page screenshot of each tab
(tests/artifacts/screenshots/). The checks: tests/browser_views.py."""

import pytest

from page_kit import registry
from tests import a11y_audit, browser_views

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not a11y_audit.axe_available(), reason="axe-core is not installed: run `npm ci`")]
VIEW = a11y_audit.VIEW_NAMES["light"]


@pytest.mark.parametrize("info", registry.all_pages(), ids=lambda p: p.url_path)
def test_light_view(view_pages, info):
    url, page, errors = view_pages(VIEW)
    browser_views.visit(page, errors, url, info, VIEW)
