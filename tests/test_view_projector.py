"""Every page in presentation mode on a 1,280 x 720 projector, on one visit each: the first screen opens on the
figure with labels whole, every tab's formulas and figures, every question hides its answer until answered,
axe on the first tab, and Next leads on with the sidebar folded. The checks: tests/browser_views.py."""

import pytest

from page_kit import registry
from tests import a11y_audit, browser_views

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not a11y_audit.axe_available(), reason="axe-core is not installed: run `npm ci`")]
VIEW = a11y_audit.VIEW_NAMES["present"]


@pytest.mark.parametrize("info", registry.all_pages(), ids=lambda p: p.url_path)
def test_projector_view(view_pages, info):
    url, page, errors = view_pages(VIEW)
    browser_views.visit(page, errors, url, info, VIEW)
