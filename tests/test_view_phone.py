"""Every page on a 390 x 844 touch phone, on one visit each: the first screen opens on the figure, nothing covers
the title, no toolbar, no sideways scroll, every tab's formulas and figures, axe on the first tab. The checks:
tests/browser_views.py."""

import pytest

from page_kit import registry
from tests import a11y_audit, browser_views

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not a11y_audit.axe_available(), reason="axe-core is not installed: run `npm ci`")]
VIEW = a11y_audit.VIEW_NAMES["phone"]


@pytest.mark.parametrize("info", registry.all_pages(), ids=lambda p: p.url_path)
def test_phone_view(view_pages, info):
    url, page, errors = view_pages(VIEW)
    browser_views.visit(page, errors, url, info, VIEW)
