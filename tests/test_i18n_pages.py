"""The app in each language through app.py (AppTest): a link's ?lang= opens the app in that language and stays in
the address, the sidebar's switch changes the whole session's language, a value the app does not speak changes
nothing, a lesson not yet translated says so, and a teacher's followers keep their own language."""

import pytest
from streamlit.testing.v1 import AppTest

from page_kit.i18n import choice, coverage
from page_kit.i18n.catalogues import translations
from page_kit.i18n.languages import BY_CODE
from page_kit.navigation import registry
from tests.apptest_pages import assert_clean, load

NOTE = "This lesson's text is not translated yet: it is shown in English."
FIRST_SECTION = registry.SECTIONS[0]
LESSON = FIRST_SECTION.pages[0]
# a lesson Spanish does not cover yet (page_kit/i18n/coverage.py): it says so under its title
UNCOVERED = next(info for info in registry.all_pages()
                 if not coverage.page_translated(info.path, BY_CODE["es"]) and info is not registry.CHECKPOINT)


def _headings(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if m.value.startswith("## ")]


def _captions(at: AppTest) -> list[str]:
    return [c.value for c in at.caption]


@pytest.mark.parametrize("code", ["zh-CN", "es"])
def test_a_link_opens_the_app_in_its_language(code):
    language = BY_CODE[code.lower()]
    tr = translations(language).gettext
    at = load(registry.HOME, lang=code)
    assert at.query_params["lang"] == code
    assert _headings(at)[0] == f"## 1. {tr(FIRST_SECTION.title)}" != f"## 1. {FIRST_SECTION.title}"
    links = [link.proto.label for link in at.sidebar.get("page_link")]
    assert tr(LESSON.title) in links and LESSON.title not in links
    assert at.selectbox(key=choice.SWITCH_KEY).value == code
    assert not any(NOTE in c or tr(NOTE) in c for c in _captions(at)), "the home page is translated"


@pytest.mark.parametrize("value", ["xx", "<script>alert(1)</script>", "zh-TW", "e" * 3000, "en"])
def test_a_language_the_app_does_not_speak_changes_nothing(value):
    at = load(registry.HOME, lang=value)
    assert "lang" not in at.query_params
    assert _headings(at)[0] == f"## 1. {FIRST_SECTION.title}"


def test_the_switch_changes_the_session_and_the_address():
    at = load(registry.HOME)
    assert "lang" not in at.query_params and at.selectbox(key=choice.SWITCH_KEY).value == "en"
    at.selectbox(key=choice.SWITCH_KEY).set_value("es").run()
    assert_clean(at, "home, switched to Spanish")
    spanish = translations(BY_CODE["es"]).gettext
    assert at.query_params["lang"] == "es" and _headings(at)[0] == f"## 1. {spanish(FIRST_SECTION.title)}"
    # a page opened without ?lang= (the presentation bar's Next clears the address) keeps the session's language
    at.query_params.pop("lang", None)
    at.switch_page(UNCOVERED.path).run()
    assert_clean(at, f"{UNCOVERED.url_path} after the switch")
    assert at.query_params["lang"] == "es"
    assert any(spanish(NOTE) in c for c in _captions(at)), "an untranslated lesson says it is in English"
    at.selectbox(key=choice.SWITCH_KEY).set_value("en").run()
    assert "lang" not in at.query_params and not any(NOTE in c for c in _captions(at))


def test_followers_keep_their_own_language():
    """What a teacher's page sends to followers (live.view) leaves the teacher's language out, as it leaves out
    presentation mode."""
    def script():
        import streamlit as st

        from page_kit import live

        st.query_params.update({"lang": "zh-CN", "p": "3", "present": "true", "room": "ABCDE"})
        st.write(live.view("rope"))

    at = AppTest.from_function(script).run()
    assert at.markdown[0].value == "rope?p=3"


def _tabbed_page():
    import streamlit as st

    from page_kit.i18n import N_, languages, use
    from page_kit.lesson import sections

    use(languages.BY_CODE[st.session_state.get("test_lang", "es")])
    for tab in sections([N_("Settings"), N_("Language")]):
        if tab.open:
            with tab:
                st.write("open")


def test_a_tab_named_in_any_language_opens_the_same_tab():
    """A tab's name in the address is the reader's language; a link written in another, or a switch of language,
    keeps the same tab open."""
    at = AppTest.from_function(_tabbed_page)
    at.query_params["view"] = "Language"  # an English link, read by a Spanish reader
    at.run()
    assert_clean(at, "tabs in Spanish")
    assert [t.label for t in at.tabs] == ["Ajustes", "Idioma"]
    assert at.query_params["view"] == "Idioma" and at.session_state["view"] == "Idioma"
    at.session_state["test_lang"] = "en"  # the reader switches to English: the same tab, named in English
    at.run()
    assert [t.label for t in at.tabs] == ["Settings", "Language"] and at.session_state["view"] == "Language"


def _options_page():
    import streamlit as st

    from page_kit import controls
    from page_kit.i18n import _, languages, use

    use(languages.BY_CODE[st.session_state.get("test_lang", "es")])
    st.session_state["picked"] = controls.select("Pick", "k", ["Settings", "Language"], format_func=_)
    st.session_state["slid"] = controls.select_slider("Slide", "s", ["Settings", "Language", "Theme"], "Settings",
                                                      format_func=_)


def test_an_option_named_in_any_language_is_the_same_option():
    """A select's label in the address is the reader's (Streamlit writes the label shown); a link written in another
    language picks the same option. A drag slider's address keeps the source's words in every language."""
    at = AppTest.from_function(_options_page)
    at.query_params.update({"k": "Language", "s": "Idioma"})  # an English select, a Spanish slider link
    at.run()
    assert_clean(at, "options in Spanish")
    assert at.session_state["picked"] == "Language" and at.query_params["k"] == "Idioma"
    assert at.session_state["slid"] == "Language" and at.query_params["s"] == "Language"
