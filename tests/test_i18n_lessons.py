"""Every page a language covers (page_kit/i18n/coverage.py) reads in that language through app.py (AppTest): every
tab opened and every question's answer shown, no text on it is still English (code, formulas, names and numbers
aside), and no note says the page is in English. A page not yet covered says so under its title
(tests/test_i18n_pages.py)."""

import re

import pytest

from page_kit.i18n import coverage
from page_kit.i18n.languages import DEFAULT, LANGUAGES
from page_kit.navigation import registry
from tests.apptest_pages import assert_clean, load, open_tab, reveal_answers, tab_groups

# Words of English grammar that neither Spanish nor Chinese writes: three in one text is an English sentence
ENGLISH_WORDS = frozenset("""the and of is are with this that which from each every its it when what how by for not be
    was were they their into than only you your here there these those where why will would can does do has have
    on in at to an or while both""".split())
_NOT_PROSE = re.compile(r"`[^`]*`|\$[^$]*\$|:material/\w+:|https?://\S+|\[[^\]]*\]\([^)]*\)")
COVERED = [(info, language) for language in LANGUAGES if language != DEFAULT for info in registry.all_pages()
           if coverage.page_translated(info.path, language)]
PROSE_KINDS = ("title", "header", "subheader", "markdown", "caption", "info", "success", "warning", "error",
               "metric", "expander", "tab")


def english_left(text: str) -> list[str]:
    """The English grammar words in ``text`` outside code spans, formulas, icons and links (three or more: English)."""
    words = re.findall(r"[A-Za-z]+", _NOT_PROSE.sub(" ", text))
    found = [w for w in words if w.lower() in ENGLISH_WORDS]
    return found if len(found) >= 3 else []


def _texts(at) -> list[str]:
    """What the reader reads on the page: prose, labels, options (code blocks and formulas aside)."""
    texts = []
    for kind in PROSE_KINDS:
        for element in at.main.get(kind):
            texts += [str(getattr(element, attr)) for attr in ("value", "label", "body")
                      if getattr(element, attr, None)]
    for kind in ("slider", "select_slider", "selectbox", "radio", "segmented_control", "toggle", "checkbox",
                 "multiselect", "number_input", "text_input", "button"):
        for widget in at.main.get(kind):
            texts += [str(widget.label)] + [str(o) for o in getattr(widget, "options", [])]
            texts += [str(widget.help)] if getattr(widget, "help", None) else []
    return texts


def test_english_is_told_from_a_translation():
    assert english_left("The score between them only sees the offset m − n.")
    assert not english_left("RoPE 只看偏移 `m - n`：q·k 与 theta。") and not english_left("la puntuación de `q` y `k`")
    assert not english_left("Llama 3, Qwen2.5 y all-MiniLM-L6-v2")


@pytest.mark.parametrize(("info", "language"), COVERED, ids=[f"{i.url_path}-{lang.code}" for i, lang in COVERED])
def test_a_covered_page_reads_in_its_language(info, language):
    at = load(info, lang=language.code)
    groups = tab_groups(at) or {None: [None]}
    for key, labels in groups.items():
        for label in labels:
            if key is not None:
                open_tab(at, key, label)
            reveal_answers(at)
            where = f"{info.url_path} [{language.code}] / {label or 'page'}"
            assert_clean(at, where)
            english = [(text[:80], english_left(text)) for text in _texts(at) if english_left(text)]
            assert not english, f"{where}: still English: {english[:3]}"
