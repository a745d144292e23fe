"""A learner's progress through the course in a real browser: kept, carried, merged and cleared; and Guide me.

One app server per test. A learner answers questions on three lessons (one right, one wrong, one after "Show me"),
with a second tab of the same browser answering a fourth meanwhile; the browser closes (its cookies kept, as a
restarted browser keeps them), reopens on the home page and finds all four, and *Continue* takes it to the right
stop, the section's checkpoint, where a wrong answer names its belief and the lesson to revisit. A second browser
starts empty, and a pasted code restores the progress there; the learner's copied link does in a third;
clearing empties it for good (a reload finds nothing). *Guide me* walks five lessons step by step, one task done
from the keyboard. Nothing on any page shows an exception box.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from devtools.streamlit_server import (
    browser_page,
    chromium_path,
    wait_for_query,
    wait_until_idle,
)
from page_kit.controls import drag_slider
from page_kit.lesson import checkpoints, course_map
from page_kit.navigation import progress as pg
from page_kit.navigation import registry

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]
WAIT_MS = 30000

LESSONS = sum(len(section.pages) for section in registry.SECTIONS)  # the course's lessons, as counted


def _context(browser, state=None):
    return browser_page(browser, state)


def _go(page, address: str) -> None:
    page.goto(address, wait_until="domcontentloaded")
    wait_until_idle(page)


def _clean(page, errors) -> None:
    for selector in ('[data-testid="stException"]', '[data-testid="stAlertContentError"]'):
        assert page.locator(selector).count() == 0, page.locator(selector).first.inner_text()
    assert not errors, errors


def _answer(page, key: str, option: int) -> None:
    """Pick ``option`` of question ``key`` and wait for its verdict (the cookie is written in that run)."""
    page.locator(f'.st-key-predict_{key} [role="radiogroup"] label').nth(option).click()
    page.locator(f".st-key-answer_open_{key}").wait_for(state="attached", timeout=WAIT_MS)
    wait_until_idle(page)


def _button(page, key: str):
    """The button keyed ``key`` (a button with help also draws a hidden copy of itself: not this one)."""
    return page.locator(f".st-key-{key}").get_by_role("button")


def _cookie(context) -> str:
    return next((c["value"] for c in context.cookies() if c["name"] == "posenc_progress"), "")


def _summary(page) -> str:
    """The home page's progress panel, once its link is drawn (a first visit shows a placeholder until the page
    link's code has loaded)."""
    panel = page.locator(".st-key-course_panel")
    panel.locator("a").first.wait_for(timeout=WAIT_MS)
    return panel.inner_text()


def test_progress_is_kept_carried_merged_and_cleared(chromium, app_url):
    browser, url = chromium, app_url
    context, page, errors = _context(browser)
    _go(page, f"{url}/order")
    _answer(page, "order_rows", 0)  # right at the first try
    other = context.new_page()  # a second tab, opened before the answers below
    _go(other, f"{url}/binary")
    _go(page, f"{url}/naive")
    _answer(page, "naive_width", 0)  # wrong (the lesson is a fragment: its cookie is written in the fragment's run)
    _go(page, f"{url}/naive?view=Divide%20by%20the%20length")
    page.locator(".st-key-predict_naive_fraction_show button").click()  # shown first: never "right at first"
    page.locator(".st-key-answer_open_naive_fraction").wait_for(state="attached", timeout=WAIT_MS)
    _answer(page, "naive_fraction", 2)
    _answer(other, "binary_repeat", 2)  # the other tab: merged into what the first wrote
    _clean(page, errors)
    kept = pg.from_cookie(_cookie(context))
    assert {k: int(v) for k, v in kept.marks.items()} == {
        "order": 1, "naive": 1, "binary": 1, "order_rows": 2, "naive_width": 1, "naive_fraction": 1,
        "binary_repeat": 2}
    state = context.storage_state()
    context.close()

    # the browser restarts with its cookies: the home page knows where the learner stands
    context, page, errors = _context(browser, state)
    _go(page, url)
    assert f"3 of {LESSONS} lessons read" in _summary(page) and "2 right at the first try" in _summary(page)
    after = course_map.next_to_do(kept)
    assert after is not None and after.url_path == course_map.after(course_map.stop_of("binary")).url_path
    go_on = page.locator(".st-key-course_panel a", has_text="Continue")
    assert after.title in go_on.inner_text()
    go_on.click()
    page.wait_for_url(re.compile(after.url_path), timeout=WAIT_MS)
    wait_until_idle(page)
    assert after.is_checkpoint  # binary's one question was answered: the section's checkpoint comes next
    first = checkpoints.questions(after.section)[0]
    wrong = (first.answer + 1) % len(first.options)
    page.locator(f'.st-key-checkpoint_{first.key} [role="radiogroup"] label').nth(wrong).click()
    page.get_by_text("The belief behind that answer").wait_for(timeout=WAIT_MS)
    lesson = registry.page(first.lesson)
    assert page.get_by_role("link", name=f"Revisit: {lesson.title}").count() == 1
    wait_until_idle(page)
    _clean(page, errors)
    code = pg.to_code(pg.from_cookie(_cookie(context)))  # three lessons read, five questions answered
    assert pg.from_code(code).mark(first.key) == 1

    # another browser starts empty, and a pasted code carries the progress there
    pasted, into, into_errors = _context(browser)
    _go(into, url)
    assert "Start the course" in _summary(into) and not _cookie(pasted)
    into.get_by_text("Your progress: carry it, bring it, clear it").click()
    into.get_by_label("A progress code or link from another device").fill(code)
    into.get_by_role("button", name="Add it to this browser").click()
    into.get_by_text(f"Added: 3 of {LESSONS} lessons read").wait_for(timeout=WAIT_MS)
    _clean(into, into_errors)
    pasted.close()

    # so does the copied link, in a third
    carried, there, there_errors = _context(browser)
    _go(there, f"{url}/?progress={code}")
    assert f"3 of {LESSONS} lessons read" in _summary(there)
    assert "progress=" not in there.url
    _go(there, url)  # the cookie was written: a new session reads it
    assert f"3 of {LESSONS} lessons read" in _summary(there)
    _clean(there, there_errors)
    carried.close()

    # clearing empties it, in this tab and for the next visit
    _go(page, url)
    page.get_by_text("Your progress: carry it, bring it, clear it").click()
    page.get_by_text("I want to clear my progress").click()
    page.get_by_role("button", name="Clear my progress in this browser").click()
    page.locator(".st-key-course_panel", has_text="Start the course").wait_for(timeout=WAIT_MS)
    wait_until_idle(page)
    _go(page, url)
    assert "Start the course" in _summary(page)
    assert not pg.from_cookie(_cookie(context))
    _clean(page, errors)
    context.close()


GUIDED = ("order", "sinusoidal", "rope", "alibi", "extension")


def _guide(lesson: str) -> list:
    """A guided lesson's steps, as its section's views module lists them."""
    import importlib

    section = registry.section_of(lesson).key
    return importlib.import_module(f"lessons.{section}.{lesson}_guide_views").GUIDE


def _holds(page, view: dict, where: str) -> None:
    """The page shows ``view``: its tab is the open one, and the address bar holds each other value (a control at
    its default is left out of the address, as Streamlit writes it)."""
    query = {k: v[-1] for k, v in parse_qs(urlsplit(page.url).query).items()}
    if "view" in view:
        assert page.locator('[data-testid="stMain"] [role="tab"][aria-selected="true"]').first.inner_text().strip() \
            == view["view"], where
    wrong = {k: query[k] for k, v in view.items() if k != "view" and k in query and query[k] != v}
    assert not wrong, f"{where}: the address bar holds {wrong}, the step {view}"


def _done_by_keys(page, key: str, presses: int) -> None:
    """Move the drag slider ``key`` by ``presses`` steps from the keyboard; the step's task then shows done."""
    handle = page.locator(f".st-key-{drag_slider.state_key(key)} input[type=range]")
    handle.focus()
    for _ in range(presses):
        handle.press("ArrowRight")
    page.locator(".st-key-guide_panel", has_text="Done.").wait_for(timeout=WAIT_MS)
    wait_until_idle(page)


def test_guide_me_drives_the_controls_of_five_lessons_step_by_step(chromium, app_url):
    """Each guided lesson from *Guide me* to its last step and out: every step's view reaches the address bar (the
    controls' values, as a shared link holds them), the panel names the step, and leaving keeps the controls."""
    browser, url = chromium, app_url
    context, page, errors = _context(browser)
    for lesson in GUIDED:
        steps = _guide(lesson)
        _go(page, f"{url}/{lesson}")
        for number, step in enumerate(steps, start=1):
            _button(page, "guide_start" if number == 1 else "guide_next").click()
            wait_for_query(page, guide=str(number))  # the step's view is written in the same run
            _holds(page, step.view, f"{lesson} step {number}")
            heading = page.locator(".st-key-guide_panel h2").inner_text()
            assert f"Step {number} of {len(steps)}" in heading and step.title in heading, heading
            _clean(page, errors)
            if (lesson, number) == ("rope", 2):  # the task: drag n onto m (5, from 2), by keyboard
                _done_by_keys(page, "n", 3)
        _button(page, "guide_leave").click()
        page.locator(".st-key-guide_start").wait_for(timeout=WAIT_MS)
        wait_until_idle(page)
        assert "guide" not in parse_qs(urlsplit(page.url).query)
        _holds(page, steps[-1].view, f"{lesson} after leaving")
        _clean(page, errors)
    context.close()
