"""Guide me (page_kit.lesson.guide): each lesson's guide walked step by step, and the view a step sets
(page_kit.controls.link_view) for every kind of control."""

import pytest
from streamlit.testing.v1 import AppTest

from lessons.absolute.sinusoidal_guide_views import GUIDE as SINUSOIDAL
from lessons.attention_bias.alibi_guide_views import GUIDE as ALIBI
from lessons.long_context.extension_guide_views import GUIDE as EXTENSION
from lessons.rope.rope_guide_views import GUIDE as ROPE
from lessons.why_position.order_guide_views import GUIDE as ORDER
from page_kit import registry
from page_kit.lesson import guide
from page_kit.navigation.sidebar import TAB_KEY
from tests.apptest_pages import assert_clean, drag_value, load, move_drag_slider

GUIDES = {"order": ORDER, "sinusoidal": SINUSOIDAL, "rope": ROPE, "alibi": ALIBI, "extension": EXTENSION}
KINDS = ("slider", "select_slider", "segmented_control", "selectbox", "toggle")


def _url_text(at: AppTest, key: str) -> str | None:
    """What the control with URL key ``key`` holds, written as the URL writes it (None: no such control)."""
    if key == TAB_KEY:
        return at.session_state[key] if key in at.session_state else None
    dragged = drag_value(at, key)
    if dragged is not None:
        return dragged
    widget = next((w for kind in KINDS for w in at.get(kind) if w.key == key), None)
    if widget is None:
        return None
    if isinstance(widget.value, bool):
        return str(widget.value).lower()
    format_func = getattr(widget, "format_func", None) or str
    return str(format_func(widget.value))


def _panel(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown if m.value.startswith("## :material/route:"))


def _assert_step(at: AppTest, steps, step: int, where: str) -> None:
    assert_clean(at, where)
    assert at.query_params.get("guide") in (str(step), [str(step)]), f"{where}: {dict(at.query_params)}"
    assert f"Step {step} of {len(steps)} · {steps[step - 1].title}" in _panel(at), where
    for key, text in steps[step - 1].view.items():
        assert _url_text(at, key) == text, f"{where}: {key} holds {_url_text(at, key)!r}, the step sets {text!r}"


@pytest.mark.parametrize("url_path", list(GUIDES))
def test_every_step_sets_its_view(url_path):
    steps = GUIDES[url_path]
    assert 3 <= len(steps) <= 5
    at = load(registry.page(url_path), guide="1")
    _assert_step(at, steps, 1, f"{url_path} step 1")
    for step in range(2, len(steps) + 1):
        at.button(key="guide_next").click().run()
        _assert_step(at, steps, step, f"{url_path} step {step}")
    assert not [b for b in at.button if b.key == "guide_next"], "the last step has no Next"


def test_back_and_leave():
    at = load(registry.page("order"), guide="3")
    _assert_step(at, ORDER, 3, "opened on step 3")
    at.button(key="guide_back").click().run()
    _assert_step(at, ORDER, 2, "back to step 2")
    at.button(key="guide_next").click().run()
    at.button(key="guide_next").click().run()
    _assert_step(at, ORDER, 4, "step 4")
    at.toggle(key="pe").set_value(False).run()  # the learner moves a control, then leaves
    at.button(key="guide_leave").click().run()
    assert_clean(at, "left")
    assert "guide" not in at.query_params and not _panel(at)
    assert [b for b in at.button if b.key == "guide_start"], "no Guide me button after leaving"
    assert at.toggle(key="pe").value is False and at.session_state[TAB_KEY] == "Shuffle an image"
    at.button(key="guide_start").click().run()  # back in: step 1's whole view again
    _assert_step(at, ORDER, 1, "guide me again")


def test_a_task_turns_done_when_the_learner_does_it():
    at = load(registry.page("rope"), guide="2")
    _assert_step(at, ROPE, 2, "rope step 2")
    words = " ".join(m.value for m in at.markdown)
    assert "Your turn:" in words and "Done." not in words
    move_drag_slider(at, "drag_n", "5")  # the key position onto the query's, m = 5
    assert_clean(at, "n = m")
    words = " ".join(m.value for m in at.markdown)
    assert ":material/check_circle: **Done.**" in words and "Your turn:" not in words
    assert at.metric[2].value == "0"  # the offset m − n the page shows


def test_a_link_keeps_the_values_it_names():
    at = load(registry.page("order"), guide="3", pe="true")  # a teacher's link: step 3, positions switched on
    assert_clean(at, "link")
    assert "Step 3 of 4" in _panel(at)
    assert at.toggle(key="pe").value is True and at.session_state[TAB_KEY] == "The pooled summary"
    assert "Done." in " ".join(m.value for m in at.markdown)


def test_a_key_another_page_binds_to_another_kind_of_control():
    at = load(registry.page("extension"))  # m: the method's selectbox there, the query position's drag slider on RoPE
    at.selectbox(key="m").set_value("ntk").run()
    at.query_params["guide"] = "1"
    at.switch_page(registry.page("rope").path).run()
    _assert_step(at, ROPE, 1, "rope after extension")


@pytest.mark.parametrize("raw, step", [("999", 4), ("abc", None), (["1", "2"], 2)])
def test_hostile_steps_are_harmless(raw, step):
    at = load(registry.page("order"), guide=raw)
    assert_clean(at, f"guide={raw}")
    if step is None:
        assert "guide" not in at.query_params and not _panel(at)
    else:
        _assert_step(at, ORDER, step, f"guide={raw}")


@pytest.mark.parametrize("raw, step", [([], None), (["0"], None), (["-1"], None), (["abc"], None), ([""], None),
                                       (["1.5"], None), (["1e3"], None), (["3"], 3), (["9" * 400], 4),
                                       (["2", "x"], None), (["x", "2"], 2), ([" 2 "], 2)])
def test_step_of(raw, step):
    assert guide.step_of(raw, 4) == step


# --- the view of a step, on every kind of control, in one page ---------------------------------------------------

def _controls_page():
    import streamlit as st

    from page_kit import controls, sections
    from page_kit.controls import link_view

    if st.session_state.get("apply"):
        link_view.apply({"dn": "7", "sn": "0.7", "ss": "1,000", "ch": "b", "se": "Two", "tg": "true", "view": "Second"})
    controls.slider("drag number", "dn", 0, 10, 3)
    controls.slider("streamlit number", "sn", 0.0, 1.0, 0.2, step=0.1, drag=False)
    controls.select_slider("options", "ss", [10, 100, 1000], 10, format_func=lambda v: f"{v:,}")
    controls.choice("choice", "ch", ["a", "b"], "a")
    controls.select("select", "se", [1, 2], format_func=lambda v: ["One", "Two"][v - 1])
    controls.toggle("toggle", "tg")
    sections(["First", "Second"])


def test_apply_sets_every_kind_of_control_and_the_address_bar():
    at = AppTest.from_function(_controls_page).run()
    # move every control off what the view will set, as a learner would
    move_drag_slider(at, "drag_dn", "9")
    at.slider(key="sn").set_value(0.9).run()
    at.toggle(key="tg").set_value(False).run()
    at.session_state["apply"] = True
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert drag_value(at, "dn") == "7"
    assert at.slider(key="sn").value == 0.7
    assert drag_value(at, "ss") == "1,000"
    assert at.get("segmented_control")[0].value == "b"
    assert at.selectbox(key="se").value == 2
    assert at.toggle(key="tg").value is True
    assert at.session_state["view"] == "Second"
    assert {k: at.query_params[k] for k in ("dn", "sn", "ss", "ch", "se", "tg", "view")} == {
        "dn": "7", "sn": "0.7", "ss": "1,000", "ch": "b", "se": "Two", "tg": "true", "view": "Second"}


def test_a_class_follows_the_teachers_step():
    from page_kit import live

    assert live.where("order?how=shuffle&guide=2") != live.where("order?how=shuffle&guide=3")
    assert live.where("order?guide=2&pe=true") == live.where("order?guide=2")  # a slider alone moves nobody
    assert live.where("order?view=The+pooled+summary") == ("order", "The+pooled+summary", "")
