"""The page registry is the single list of pages; these are the rules every entry must follow."""

from pathlib import Path

from page_kit import registry
from tests.conftest import ROOT


def test_every_page_file_exists_and_is_listed_once():
    pages = registry.all_pages()
    paths = [p.path for p in pages]
    assert len(paths) == len(set(paths))
    for path in paths:
        assert (ROOT / path).is_file(), path
    listed = {Path(p).name for p in paths}
    on_disk = {p.name for p in (ROOT / "pages").glob("*.py")}
    assert on_disk == listed, f"pages not in the registry: {on_disk - listed}"


def test_url_paths_are_unique_and_equal_the_file_stem():
    # A first visit that deep-links to a page is resolved by file name before app.py has run.
    urls = [p.url_path for p in registry.all_pages()]
    assert len(urls) == len(set(urls))
    for page in registry.all_pages():
        assert Path(page.path).stem == page.url_path, page


def test_sections_have_a_story_and_visible_pages():
    for section in registry.SECTIONS:
        assert section.story and section.pages, section.title
