"""Class features: animation frames, predict-then-reveal questions, and the code snippets next to figures."""

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import posenc_core as pc
from page_kit import figures, registry
from page_kit.figures import animation
from page_kit.figures.animation import MAX_FRAME_BYTES
from tests import apptest_pages

HERO_PAGES = {"sinusoidal": "play_base", "rope": "play_m", "extension": "play_s", "alibi": "play_ctx"}
BY_URL = {p.url_path: p for p in registry.all_pages()}
LESSONS = [p for p in registry.all_pages() if p is not registry.HOME]


def _page(url_path: str, **query) -> AppTest:
    return apptest_pages.load(BY_URL[url_path], **query)


def _line(y):
    return figures.lines(np.arange(4), {"a": np.asarray(y, dtype=float), "b": np.ones(4)}, title="t",
                         x_title="x", y_title="y", alt="a", name="n")


def test_frames_send_only_the_arrays_that_change():
    payload = animation.frames(lambda v: _line([0, v, 2 * v, 3 * v]), "v", [1, 2, 3], start_value=2)
    assert payload["start"] == 1 and payload["values"] == ["1", "2", "3"]
    assert [[(p["trace"], p["attribute"]) for p in frame] for frame in payload["patches"]] == [[(0, "y")]] * 3
    assert payload["datas"] is None


def test_frames_whose_traces_differ_send_whole_trace_lists():
    def build(v):
        series = {"a": np.arange(4.0) * v} | ({"b": np.ones(4)} if v > 1 else {})
        return figures.lines(np.arange(4), series, title=f"v = {v}", x_title="x", y_title="y", alt="a", name="n")

    payload = animation.frames(build, "v", [1, 2])
    assert [len(d) for d in payload["datas"]] == [1, 2]
    assert [layout["title"]["text"] for layout in payload["layouts"]] == ["v = 1", "v = 2"]


def test_frames_are_bounded():
    big = 2 * MAX_FRAME_BYTES // (4 * 40)  # elements per frame that make 40 frames exceed the cap
    with pytest.raises(ValueError, match="MB"):
        animation.frames(lambda v: figures.heatmap(np.full((big // 100 + 1, 100), float(v)), title="t",
                                                   x_title="x", y_title="y", alt="a", name="n"),
                         "v", range(40))
    with pytest.raises(ValueError, match="between 2"):
        animation.frames(lambda v: _line([v] * 4), "v", [1])



_BUILT: list = []  # the values built, outside the builder's closure (its recipe is what it closes over)


def test_attached_frames_are_built_once_per_recipe_and_start_where_the_page_stands():
    built = _BUILT

    def frames_of(scale: float, start: int) -> dict:
        def build(v):
            _BUILT.append(v)
            return _line([0, v * scale, 2 * v, 3 * v])
        return animation.attach(_line([0, 1, 2, 3]), build, "v", [1, 2, 3], start_value=start).frames

    first = frames_of(0.5, 1)
    assert len(built) == 3 and first["start"] == 0
    again = frames_of(0.5, 3)  # the animated value moved: the same frames, a new start
    assert len(built) == 3 and again["start"] == 2 and again["patches"] == first["patches"]
    other = frames_of(0.25, 3)  # the view around it changed: new frames
    assert len(built) == 6 and other["patches"] != first["patches"]

@pytest.mark.parametrize("url_path", list(HERO_PAGES))
def test_hero_pages_build_their_frames_without_errors(url_path):
    _page(url_path, **{HERO_PAGES[url_path]: "true"})


def _class_views(info):
    """The page at its defaults and each of its lazy tabs, one AppTest per view."""
    at = apptest_pages.load(info)
    yield "default view", at
    for key, labels in apptest_pages.tab_groups(at).items():
        for label in labels[1:]:  # the first tab is the default view
            yield label, apptest_pages.open_tab(apptest_pages.load(info), key, label)


@pytest.mark.parametrize("info", LESSONS, ids=lambda p: p.url_path)
def test_every_lesson_asks_first_and_shows_the_code(info):
    """Each lesson asks at least one predict-then-reveal question and shows at least one snippet; every question
    has exactly one right option and reveals a computed answer for each choice; every snippet runs."""
    questions, snippets = 0, 0
    for where, at in _class_views(info):
        for question in [r for r in at.radio if r.key and r.key.startswith("predict_")]:
            questions += 1
            revealed = set()
            for option in question.options:
                at.radio(key=question.key).set_value(option).run()
                apptest_pages.assert_clean(at, f"{info.url_path} ({where}) after answering {option!r}")
                revealed.add("success" if at.success else "info")
            assert revealed == {"success", "info"}, f"{question.key}: one option must be right, the others not"
        for code in apptest_pages.snippets(at):
            snippets += 1
            exec(compile(code, f"<{info.url_path} snippet>", "exec"), {})  # noqa: S102 (our own generated code)
    assert questions, f"{info.url_path} asks no predict-then-reveal question"
    assert snippets, f"{info.url_path} shows no code snippet"


def test_the_sinusoidal_snippet_reproduces_the_table():
    at = _page("sinusoidal")
    namespace: dict = {}
    code = apptest_pages.snippets(at)[0]
    exec(compile(code, "<sinusoidal snippet>", "exec"), namespace)  # noqa: S102
    # the page's default view: 128 positions, 64 dimensions, base 10,000
    np.testing.assert_array_equal(namespace["pe"], pc.sinusoidal(128, 64, 10000.0, "interleaved"))


def test_a_chart_behind_an_unanswered_question_is_sent_once_it_is_answered():
    """A hidden answer's chart would be redrawn, unseen, on every move (80 ms of the browser's main thread on RoPE
    relative): it is not sent until the question is answered, and then it is the chart the page computes."""
    at = _page("rope_relative")
    names = {"half": "chart_rope_scores_half", "interleaved": "chart_rope_scores_interleaved"}

    def charts():
        sent = apptest_pages.chart_figures(at)
        return {name for name, key in names.items() if any(element.endswith(key) for element in sent)}

    assert charts() == {"half"}  # the interleaved grid answers the question: unsent, its box empty
    assert at.session_state["predict_rr_diagonal"] is None
    at.radio(key="predict_rr_diagonal").set_value("grows").run()
    assert charts() == {"half", "interleaved"}
    assert "Not quite" in at.info[0].value
