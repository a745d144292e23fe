"""Every page and tab at 1,400 x 900 in the light scheme, on one visit each: clean, figures, text, axe on every
tab, every chart's text alternative, app.py's sidebar (and, with POSENC_SCREENSHOTS=1, a whole-page screenshot of
each tab in tests/artifacts/screenshots/). The checks: tests/browser_views.py."""

from tests.browser_views import view_test

test_light_view = view_test("light")
