"""The app's languages without a page: which language a browser or a link asks for, numbers in each locale, and the
catalogues complete, current and safe to format (python -m devtools.catalogues --check says the same)."""

import pytest

from devtools import catalogues
from page_kit import i18n
from page_kit.i18n import coverage
from page_kit.i18n.catalogues import translations
from page_kit.i18n.languages import BY_CODE, DEFAULT, LANGUAGES, from_accept_language, from_tag
from page_kit.navigation import registry

EN, ZH, ES = BY_CODE["en"], BY_CODE["zh-cn"], BY_CODE["es"]


@pytest.mark.parametrize(("tag", "expected"), [
    ("en", EN), ("en-GB", EN), ("zh-CN", ZH), ("zh_cn", ZH), ("zh", ZH), ("zh-Hans", ZH), ("zh-Hans-CN", ZH),
    ("zh-SG", ZH), ("zh-TW", None), ("zh-Hant-HK", None), ("es", ES), ("es-MX", ES), ("ES-419", ES),
    ("fr", None), ("", None), (None, None), ("<script>", None), ("e" * 5000, None),
])
def test_a_tag_names_the_language_a_reader_gets(tag, expected):
    assert from_tag(tag) == expected


@pytest.mark.parametrize(("header", "expected"), [
    ("zh-CN,zh;q=0.9,en;q=0.8", ZH), ("fr-FR, fr;q=0.9, es;q=0.8, en;q=0.7", ES), ("de, en;q=0.5, es;q=0.9", ES),
    ("fr, de", None), ("", None), (None, None), ("es;q=abc, zh", ZH), ("zh-TW, es;q=0.1", ES),
    (",".join(["fr"] * 100) + ",es", None),  # the header is read to its 32nd language, no further
])
def test_a_browser_header_names_the_first_language_the_app_speaks(header, expected):
    assert from_accept_language(header) == expected


def test_numbers_follow_the_readers_locale():
    assert [i18n.number(12345.5, 1, language) for language in (EN, ZH, ES)] == ["12,345.5", "12,345.5", "12.345,5"]
    assert i18n.number(0.25, language=ES) == "0,25" and i18n.number(3, 0, language=ES) == "3"


def test_outside_a_run_the_source_language_is_spoken():
    assert i18n.current() == DEFAULT and i18n._("Settings") == "Settings"
    assert i18n.ngettext("{n} seat", "{n} seats", 2) == "{n} seats" and i18n.N_("Home") == "Home"


def test_the_catalogues_hold_every_string_of_the_source_and_nothing_stale():
    report = catalogues.check()
    assert not report.problems, report.problems


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != DEFAULT], ids=lambda lang: lang.code)
def test_every_marked_string_is_translated(language):
    """A string marked in the source and left untranslated would show English in the middle of a translated page."""
    assert catalogues.check().untranslated[language.code] == []


@pytest.mark.parametrize("language", [lang for lang in LANGUAGES if lang != DEFAULT], ids=lambda lang: lang.code)
def test_plural_forms_come_from_the_catalogue(language):
    forms = {n: translations(language).ngettext("({n} question left)", "({n} questions left)", n) for n in (1, 2, 5)}
    if language.code == "zh-CN":  # one form for every count
        assert forms[1] == forms[2] == forms[5] and "{n}" in forms[1]
    else:
        assert forms[1] != forms[2] == forms[5]


def test_the_navigation_reads_in_every_language():
    """Every page title, section name, summary and story is marked, so the sidebar and the home page translate."""
    texts = [registry.HOME.title, registry.CHECKPOINT.title]
    texts += [text for s in registry.SECTIONS for text in (s.title, s.story)]
    texts += [text for p in registry.all_pages() for text in (p.title, p.summary)]
    for language in LANGUAGES:
        if language != DEFAULT:
            untranslated = [t for t in texts if t not in coverage.translated_ids(language)]
            assert not untranslated, f"{language.code}: {untranslated[:3]}"


def test_a_page_counts_as_translated_only_when_every_file_it_shows_is(tmp_path, monkeypatch):
    assert all(coverage.page_translated(p.path, DEFAULT) for p in registry.all_pages())
    for language in (ZH, ES):
        assert coverage.page_translated(registry.HOME.path, language)
    # the checkpoint page shows questions its own file does not hold: a question file that marks nothing is English
    page, questions = tmp_path / "page.py", tmp_path / "questions"
    questions.mkdir()
    page.write_text('from page_kit import _\n_("Settings")\n')
    (questions / "section.py").write_text('QUESTIONS = ("An unmarked question?",)\n')
    monkeypatch.setattr(coverage, "ROOT", tmp_path)
    monkeypatch.setattr(coverage, "ALSO_SHOWN", {"page.py": "questions"})
    assert not coverage.page_translated("page.py", ES)
    (questions / "section.py").write_text('from page_kit import N_\nQUESTIONS = (N_("Language"),)\n')
    coverage._marked.cache_clear()
    assert coverage.page_translated("page.py", ES)


def test_placeholders_are_read_by_name():
    assert catalogues.placeholders("{read} of {n} read, {mean:.1f} {{literal}}") == ["mean", "n", "read"]


def test_a_page_shows_the_views_it_imports_either_way():
    """``from lessons.s import x_views`` and ``from lessons.s.x_views import NAME`` both bring its words."""
    order = {f.name for f in coverage._files(registry.page("order").path)}
    compare = {f.name for f in coverage._files(registry.page("compare").path)}
    assert {"order.py", "order_views.py", "why_views.py"} <= order and {"compare.py", "compare_views.py"} <= compare
