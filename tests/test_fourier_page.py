"""The Fourier lesson's fits in AppTest: training waits for its button, and everything the tab draws describes the
fit it shows (the settings trained), never the sliders' new values before they are trained."""

from streamlit.testing.v1 import AppTest

from page_kit.lesson import TAB_KEY
from page_kit.navigation import registry
from tests.apptest_pages import move_drag_slider
from tests.conftest import ROOT

FOURIER = next(p for p in registry.all_pages() if p.url_path == "fourier")


def _fit_tab() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    at.switch_page(FOURIER.path).run()
    at.session_state[TAB_KEY] = "Fit a 1D signal"
    return at.run()


def _question(at: AppTest) -> str:
    return next(m.value for m in at.markdown if "Predict first." in m.value)


def test_a_slider_move_keeps_the_trained_fit_until_train_is_pressed():
    at = _fit_tab()
    assert not at.exception and "σ = 10 and L = 6" in _question(at)  # the page's own settings: trained on opening
    assert not [b for b in at.button if b.key == "fourier_train_1d"]
    move_drag_slider(at, "drag_s1", "50")
    assert "σ = 10 and L = 6" in _question(at), "the question, like the figures, is about the fit shown"
    assert any("fit trained with σ = 10, L = 6" in c.value for c in at.caption)
    at.button(key="fourier_train_1d").click().run()
    assert not at.exception and "σ = 50 and L = 6" in _question(at)
    assert not [b for b in at.button if b.key == "fourier_train_1d"]
