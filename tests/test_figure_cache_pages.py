"""Every page sends the same figures from the shared figure cache as built afresh: at its defaults and after
its first drag slider moves (page_kit/figures/cache.py). A figure served for a view must be the one the core
computes for it, whatever another session built before."""

from __future__ import annotations

import pytest

from page_kit import registry
from page_kit.figures import cache
from tests.apptest_pages import chart_figures, drag_sliders, move_drag_slider
from tests.apptest_pages import load as _load

PAGES = registry.all_pages()


def _views(info) -> list[dict[str, str]]:
    """The page's figures at its defaults and, where it has one, after its first drag slider's next stop."""
    at = _load(info)
    views = [chart_figures(at)]
    sliders = drag_sliders(at)
    if sliders:
        key, texts = sliders[0]
        moved = move_drag_slider(at, key, texts[min(1, len(texts) - 1)] if len(texts) > 1 else texts[0])
        views.append(chart_figures(moved))
    return views


@pytest.fixture
def cache_switch():
    yield
    cache.ENABLED = True


@pytest.mark.parametrize("info", PAGES, ids=lambda p: p.url_path)
def test_cached_figures_are_the_figures_built_afresh(info, cache_switch):
    cache.ENABLED = True
    first = _views(info)  # builds, or finds what an earlier test's page built
    cached = _views(info)  # every figure now comes from the cache
    cache.ENABLED = False
    fresh = _views(info)
    if not any(fresh):
        pytest.skip(f"{info.url_path} opens on a table, not a figure")
    assert cached == fresh == first, f"{info.url_path}: a cached figure differs from the one built afresh"
