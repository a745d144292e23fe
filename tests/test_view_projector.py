"""Every page in presentation mode on a 1,280 x 720 projector, on one visit each: the first screen opens on the
figure with labels whole, every tab's formulas and figures, every question hides its answer until answered,
axe on the first tab, and Next leads on with the sidebar folded. The checks: tests/browser_views.py."""

from tests.browser_views import view_test

test_projector_view = view_test("present")
