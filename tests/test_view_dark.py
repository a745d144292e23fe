"""Every page and tab at 1,400 x 900 in the dark scheme, on one visit each: clean, figures, text, and axe on
every tab (contrast is where dark mode breaks). The checks: tests/browser_views.py."""

from tests.browser_views import view_test

test_dark_view = view_test("dark")
