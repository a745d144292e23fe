"""The kit builds figures without plotly's property checks (page_kit/figures/cache.py, for speed): every figure
on every tab of every page must reach the browser as the figure built with the checks on.

The pages run in the dark scheme (a server whose base theme is dark, as before a browser reports its own): every
other AppTest runs them light, and the browser's dark view opens only each page's first tab, so this is where every
tab's dark figures are built and checked."""

from __future__ import annotations

import json

import pytest
from streamlit import config

from page_kit import registry
from page_kit.controls.settings import PAGE_BACKGROUND
from page_kit.figures import cache
from tests.apptest_pages import chart_figures, load, open_tab, reveal_answers, tab_groups

PAGES = registry.all_pages()


def _differences(sent, checked, path="") -> list[str]:
    """Where two figures differ, as paths into the JSON, each with both values."""
    if type(sent) is type(checked) and isinstance(sent, dict):
        return [difference for name in sorted(set(sent) | set(checked)) if sent.get(name) != checked.get(name)
                for difference in (_differences(sent[name], checked[name], f"{path}/{name}")
                                   if name in sent and name in checked else
                                   [f"{path}/{name}: only in the {'sent' if name in sent else 'checked'} figure"])]
    if type(sent) is type(checked) and isinstance(sent, list) and len(sent) == len(checked):
        return [difference for i, (a, b) in enumerate(zip(sent, checked, strict=True)) if a != b
                for difference in _differences(a, b, f"{path}[{i}]")]
    return [f"{path or '/'}: sent {str(sent)[:80]!r}, checked {str(checked)[:80]!r}"]


def _every_tab(info) -> dict[str, dict]:
    """Every figure of every tab at its defaults, its questions answered, parsed, by tab and element id."""
    at = reveal_answers(load(info))
    found = {f"(opening) {element}": json.loads(figure) for element, figure in chart_figures(at).items()}
    for key, labels in tab_groups(at).items():
        for label in labels[1:]:
            at = reveal_answers(open_tab(at, key, label))
            found.update({f"{label} {element}": json.loads(figure) for element, figure in chart_figures(at).items()})
    return found


@pytest.fixture
def uncached(monkeypatch):
    monkeypatch.setattr(cache, "ENABLED", False)  # every figure is built in the pass that sends it
    before = config.get_option("theme.base")
    config.set_option("theme.base", "dark")
    yield
    config.set_option("theme.base", before)
    cache.CHECKED = False


@pytest.mark.parametrize("info", PAGES, ids=lambda p: p.url_path)
def test_unchecked_figures_are_the_checked_ones(info, uncached):
    cache.CHECKED = True
    checked = _every_tab(info)
    cache.CHECKED = False
    sent = _every_tab(info)
    if not checked:
        pytest.skip(f"{info.url_path} draws no figure at its defaults")
    assert all(figure["layout"]["template"]["layout"]["paper_bgcolor"] == PAGE_BACKGROUND[True]
               for figure in checked.values()), f"{info.url_path}: a figure is not drawn in the dark scheme"
    assert sent.keys() == checked.keys()
    differences = [f"{where}: {difference}" for where in checked
                   for difference in _differences(sent[where], checked[where])]
    assert not differences, f"{info.url_path}: " + "; ".join(differences[:20])
