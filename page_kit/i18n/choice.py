"""Which language a session reads, chosen as a reader expects: the link's ``?lang=`` (a shared link opens in its
sender's language), then the reader's own choice in this browser tab, then the browser's language on a first visit.
The address always says the language shown (English, the default, leaves it out), so a link copied from the
address bar opens as it was seen; a value the app does not speak changes nothing."""

from __future__ import annotations

import streamlit as st

from page_kit.i18n import SESSION_KEY, URL_KEY, _, use
from page_kit.i18n.languages import BY_CODE, DEFAULT, LANGUAGES, Language, from_accept_language, from_tag

SWITCH_KEY = "lang_choice"  # the sidebar's switch


def _browser() -> Language:
    context = st.context
    return (from_tag(context.locale) or from_accept_language(context.headers.get("Accept-Language"))
            or DEFAULT)


def choose() -> Language:
    """The language of this run (app.py, first thing after the page config): made the session's, and written to
    the address."""
    asked = st.query_params.get(URL_KEY)
    language = from_tag(asked[:35]) if asked else None  # a BCP 47 tag is short; a hostile one is cut, then ignored
    if language is None:
        language = BY_CODE.get(str(st.session_state.get(SESSION_KEY, "")).lower()) or _browser()
    use(language)
    if language != DEFAULT:
        if st.query_params.get(URL_KEY) != language.code:
            st.query_params[URL_KEY] = language.code
    elif URL_KEY in st.query_params:
        del st.query_params[URL_KEY]
    return language


def _switched() -> None:
    language = BY_CODE.get(str(st.session_state.get(SWITCH_KEY, "")).lower(), DEFAULT)
    use(language)
    if language != DEFAULT:
        st.query_params[URL_KEY] = language.code
    elif URL_KEY in st.query_params:
        del st.query_params[URL_KEY]


def switch(language: Language) -> None:
    """The language switch (in the sidebar): each language by its own name, so a reader finds theirs."""
    st.session_state[SWITCH_KEY] = language.code
    codes = [lang.code for lang in LANGUAGES]
    names = {lang.code: lang.name for lang in LANGUAGES}
    st.selectbox(":material/translate: " + _("Language"), codes, key=SWITCH_KEY,
                 format_func=lambda code: names.get(code, str(code)), on_change=_switched,
                 help=_("The language of the whole app; links you copy keep it."))
