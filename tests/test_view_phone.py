"""Every page on a 390 x 844 touch phone, on one visit each: the first screen opens on the figure, nothing covers
the title, no toolbar, no sideways scroll, every tab's formulas and figures, axe on the first tab. The checks:
tests/browser_views.py."""

from tests.browser_views import view_test

test_phone_view = view_test("phone")
