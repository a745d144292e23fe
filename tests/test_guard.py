"""The pages' last line of defence: a bug becomes a logged traceback and a sentence, and the suites notice."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from page_kit.lesson import FALLBACK_MESSAGE
from tests.apptest_pages import read


def _page_with_a_bug():
    import streamlit as st

    from page_kit import guard

    st.write("before")
    with guard():
        {}["missing"]  # a KeyError: a bug, not a user's value
    with guard():
        raise ValueError("A sentence from the core.")
    st.write("after")


@pytest.mark.fallback_expected
def test_an_unexpected_error_is_logged_with_its_traceback_and_shown_as_a_sentence(no_fallback):
    at = AppTest.from_function(_page_with_a_bug).run()
    assert not at.exception
    assert [read(e) for e in at.error] == [f"{FALLBACK_MESSAGE} (KeyError)", "A sentence from the core."]
    assert [m.value for m in at.markdown] == ["before", "after"]  # the page goes on below the guard
    (record,) = no_fallback.records
    assert record.exc_info[0] is KeyError and "missing" in str(record.exc_info[1])


def test_a_page_that_never_falls_back_passes(no_fallback):
    def clean():
        from page_kit import guard

        with guard():
            raise ValueError("only a sentence")

    at = AppTest.from_function(clean).run()
    assert [read(e) for e in at.error] == ["only a sentence"] and not no_fallback.records


def test_a_sentence_that_quotes_user_input_is_drawn_letter_for_letter():
    """A config value or a file name inside a core sentence can form no link, image, emphasis or formula."""
    def page():
        from page_kit import guard

        with guard():
            raise ValueError("model_type '[Log in](//ev.il) ![](//x.invalid/a) **bold** $x$ <b>' is unknown; "
                             "see `rope_scaling`.")

    at = AppTest.from_function(page).run()
    (error,) = at.error
    assert read(error) == ("model_type '[Log in](//ev.il) ![](//x.invalid/a) **bold** $x$ <b>' is unknown; see "
                           "`rope_scaling`.")
    assert "\\[Log in\\]\\(" in error.value and "\\!\\[\\]" in error.value and "`rope_scaling`" in error.value
