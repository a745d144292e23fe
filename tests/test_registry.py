"""The page registry is the single list of pages; these are the rules every entry must follow."""

import re
from pathlib import Path

from page_kit import registry
from tests.conftest import ROOT


def test_every_page_file_exists_and_is_listed_once():
    pages = registry.routed_pages()
    paths = [p.path for p in pages]
    assert len(paths) == len(set(paths))
    for path in paths:
        assert (ROOT / path).is_file(), path
    listed = {Path(p).as_posix() for p in paths}
    # A section's own figures and questions sit beside its lessons as <name>_views.py, and the words its pages put
    # the core's codes into as words.py; every other file is a page.
    on_disk = {p.relative_to(ROOT).as_posix() for p in (ROOT / "lessons").rglob("*.py")
               if not p.stem.endswith("_views") and p.stem != "words"}
    assert on_disk == listed, f"pages not in the registry: {on_disk - listed}"


def test_url_paths_are_unique_and_pages_sit_in_their_section_folder():
    urls = [p.url_path for p in registry.all_pages()]
    assert len(urls) == len(set(urls))
    assert not (ROOT / "pages").exists(), "a pages/ folder puts Streamlit in legacy mode (see registry.PageInfo)"
    for section in registry.SECTIONS:
        folders = {Path(p.path).parent for p in section.pages}
        assert len(folders) == 1, f"{section.title}: one folder per section, got {folders}"


def test_sections_have_a_story_and_visible_pages():
    for section in registry.SECTIONS:
        assert section.story and section.pages, section.title


def _readme_lesson_map() -> list[tuple[str, str, str, str]]:
    """(section, title, file, url_path) of each row of README's lesson map, in order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text.split("## What each page teaches", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[1] in ("Page", "---"):
            continue
        linked = re.fullmatch(r"\[(.+)\]\((.+)\) \(`/(.+)`\)", cells[1])
        rows.append((cells[0], *linked.groups()) if linked else (cells[0], cells[1], "", ""))
    return rows


def test_readme_lesson_map_lists_exactly_the_registry_pages_in_order():
    # The README's map is the first thing a newcomer reads; the registry is what the app shows. Home has no row
    # link; every lesson's row names its section, title, file and url path as the registry does.
    expected = [("", registry.HOME.title, "", "")] + [
        (section.title, page.title, page.path, page.url_path)
        for section in registry.SECTIONS for page in section.pages
    ]
    assert _readme_lesson_map() == expected


def test_the_chart_element_serves_plotly_from_the_apps_static_folder():
    """Streamlit serves <app dir>/static at /app/static: the chart element copies plotly.js there, beside app.py."""
    from page_kit.chart import plotly_element

    assert plotly_element.APP_STATIC == ROOT / "static"
    assert (ROOT / "app.py").is_file()
