"""What the reader reads, in their language: gettext catalogues managed with Babel (docs/translating.md).

Pages and the kit wrap every sentence a reader sees in ``_()`` (``ngettext`` where a count decides the form,
``N_`` to mark a string kept in a constant and translated where it is shown). The language is the running
session's: app.py chooses it at the start of every run (``choose``: the address's ``?lang=``, then the reader's
earlier choice, then the browser's language) and every ``_`` of that session's runs, fragment runs included,
reads it. Outside a Streamlit run (the tests, a notebook) the source's English is returned.

The core never speaks (CONTRIBUTING.md): it returns values and codes, and the words are the pages'.
"""

from __future__ import annotations

import contextlib
import functools
import threading

from page_kit.i18n.catalogues import translations
from page_kit.i18n.languages import BY_CODE, DEFAULT, LANGUAGES, Language, from_accept_language, from_tag

SESSION_KEY = "_lang"  # session state: the code of the language this browser tab reads
URL_KEY = "lang"

_local = threading.local()  # (the script run's context, its language): one lookup per run, not per string

__all__ = ["DEFAULT", "LANGUAGES", "N_", "Language", "_", "current", "from_accept_language", "from_tag", "gettext",
           "in_every_language", "ngettext", "number", "pgettext", "speaking"]


def current() -> Language:
    """The language of the running session (the default outside a Streamlit run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return DEFAULT
    if getattr(_local, "ctx", None) is not ctx:
        try:
            code = ctx.session_state[SESSION_KEY] if SESSION_KEY in ctx.session_state else DEFAULT.code
        except Exception:  # noqa: BLE001 (a session being torn down: its English is fine)
            code = DEFAULT.code
        _local.ctx, _local.language = ctx, BY_CODE.get(str(code).lower(), DEFAULT)
    return _local.language


def use(language: Language) -> None:
    """Make ``language`` the running session's (app.py, at the start of a run, and the language switch)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is not None:
        ctx.session_state[SESSION_KEY] = language.code
        _local.ctx, _local.language = ctx, language


@contextlib.contextmanager
def speaking(language: Language):
    """Within the block, the running session speaks ``language`` (a label as another language writes it)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    before = getattr(_local, "ctx", None), getattr(_local, "language", None)
    _local.ctx, _local.language = get_script_run_ctx(suppress_warning=True), language
    try:
        yield
    finally:
        _local.ctx, _local.language = before


def gettext(message: str) -> str:
    """``message`` in the session's language (itself where the catalogue has no translation yet)."""
    language = current()
    return message if language == DEFAULT else translations(language).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form for ``count`` by the language's plural rule (Chinese has one form; English and Spanish two)."""
    language = current()
    if language == DEFAULT:
        return singular if count == 1 else plural
    return translations(language).ngettext(singular, plural, count)


def pgettext(context: str, message: str) -> str:
    """``message`` where the same English means different things ("Next" lesson on the presentation bar, "Next"
    step of a guide): ``context`` tells the translator which."""
    language = current()
    return message if language == DEFAULT else translations(language).pgettext(context, message)


_ = gettext


@functools.cache
def in_every_language(message: str) -> tuple[str, ...]:
    """``message`` as each language writes it (the source's first): what a link written in any of them may hold."""
    return tuple(dict.fromkeys([message] + [translations(language).gettext(message) for language in LANGUAGES]))


def N_(message: str) -> str:  # noqa: N802 (gettext's name for "mark, translate later")
    """Marks ``message`` for the catalogue without translating it: a constant, translated where it is shown."""
    return message


def number(value: float, digits: int | None = None, language: Language | None = None) -> str:
    """``value`` as the reader's locale writes it ("12,345.5" in English, "12.345,5" in Spanish), with ``digits``
    decimals (as many as it has, up to three, by default)."""
    from babel.numbers import format_decimal

    pattern = None if digits is None else ("#,##0." + "0" * digits if digits > 0 else "#,##0")
    return format_decimal(value, format=pattern, locale=(language or current()).catalogue)
