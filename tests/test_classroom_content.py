"""Positions read from content (FoX, stick-breaking, PaTH): each snippet, run as a student would paste it, gives
the numbers its figure shows, at the default view and at a view set by a link."""

import numpy as np

from posenc_core.todays_models import (
    fox_sentence,
    path_sentence,
    path_two_reflections,
    stick_breaking_constant,
    stick_breaking_sentence,
)
from tests.test_snippets_todays_models import _one, _view

TEXT = "the cat sat on the warm mat and then the old dog slept by the door"


def test_fox_snippets_give_the_bias_and_the_slopes():
    ns = _one(_view("fox"))
    expected = fox_sentence(TEXT, 8, 2, 2.0, 0)
    np.testing.assert_array_equal(ns["ex"].fox, expected.fox)
    np.testing.assert_array_equal(ns["ex"].alibi, expected.alibi)
    ns = _one(_view("fox", "Slope per word", dep="2.5", heads="12", head="7", seed="3"))
    np.testing.assert_array_equal(ns["ex"].local_slope, fox_sentence(TEXT, 12, 7, 2.5, 3).local_slope)


def test_stick_breaking_snippets_give_the_weights():
    ns = _one(_view("stick_breaking", level="1.5", current="true"))
    expected = stick_breaking_sentence(TEXT, 1.5, 8, 2, 0, attend_current=True)
    for key in ("stick", "alibi", "softmax"):
        np.testing.assert_array_equal(getattr(ns["ex"], key), getattr(expected, key))
    ns = _one(_view("stick_breaking", "Constant scores", z="-1.5"))
    np.testing.assert_array_equal(ns["out"].weights, stick_breaking_constant(-1.5, 24).weights)


def test_path_snippets_give_the_scores():
    ns = _one(_view("path_attention", sharp="2", dim="4"))
    expected = path_sentence(TEXT, 4, 0, 100.0, 2.0)
    np.testing.assert_array_equal(ns["ex"].path, expected.path)
    np.testing.assert_array_equal(ns["ex"].rope, expected.rope)
    ns = _one(_view("path_attention", "Rotations from reflections", theta="-0.7"))
    np.testing.assert_array_equal(ns["out"].rotation, path_two_reflections(-0.7).rotation)
