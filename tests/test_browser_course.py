"""A learner's progress through the course in a real browser: kept, carried, merged and cleared.

One app server. A learner answers questions on three lessons (one right, one wrong, one after "Show me"), with a
second tab of the same browser answering a fourth meanwhile; the browser closes (its cookies kept, as a restarted
browser keeps them), reopens on the home page and finds all four, and *Continue* takes it to the right stop. A
second browser starts empty. The learner's copied link restores the progress in a third browser and a pasted code
in a fourth; clearing empties it for good (a reload finds nothing). Nothing on any page shows an exception box.
"""

from __future__ import annotations

import re

import pytest

from devtools.streamlit_server import chromium_path, streamlit_server, wait_until_idle
from page_kit.lesson import course_map
from page_kit.navigation import progress as pg

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]
WAIT_MS = 30000


def _context(browser, state=None):
    context = browser.new_context(viewport={"width": 1400, "height": 900}, storage_state=state)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page, errors


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


def _cookie(context) -> str:
    return next((c["value"] for c in context.cookies() if c["name"] == "posenc_progress"), "")


def _summary(page) -> str:
    """The home page's progress panel, once its link is drawn (a first visit shows a placeholder until the page
    link's code has loaded)."""
    panel = page.locator(".st-key-course_panel")
    panel.locator("a").first.wait_for(timeout=WAIT_MS)
    return panel.inner_text()


def test_progress_is_kept_carried_merged_and_cleared():
    from playwright.sync_api import sync_playwright

    with streamlit_server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
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
        assert "3 of 53 lessons read" in _summary(page) and "2 right at the first try" in _summary(page)
        after = course_map.next_to_do(kept)
        assert after is not None and after.url_path == course_map.after(course_map.stop_of("binary")).url_path
        go_on = page.locator(".st-key-course_panel a", has_text="Continue")
        assert after.title in go_on.inner_text()
        go_on.click()
        page.wait_for_url(re.compile(after.url_path), timeout=WAIT_MS)
        wait_until_idle(page)
        _clean(page, errors)
        code = pg.to_code(pg.from_cookie(_cookie(context)))  # the lesson Continue opened is read too: four

        # another browser starts empty
        fresh, blank, blank_errors = _context(browser)
        _go(blank, url)
        _clean(blank, blank_errors)
        assert "Start the course" in _summary(blank) and not _cookie(fresh)
        fresh.close()

        # the copied link, then a pasted code, carry it to other browsers
        carried, there, there_errors = _context(browser)
        _go(there, f"{url}/?progress={code}")
        assert "4 of 53 lessons read" in _summary(there)
        assert "progress=" not in there.url
        _go(there, url)  # the cookie was written: a new session reads it
        assert "4 of 53 lessons read" in _summary(there)
        _clean(there, there_errors)
        carried.close()
        pasted, into, into_errors = _context(browser)
        _go(into, url)
        into.get_by_text("Your progress: carry it, bring it, clear it").click()
        into.get_by_label("A progress code or link from another device").fill(code)
        into.get_by_role("button", name="Add it to this browser").click()
        into.get_by_text("Added: 4 of 53 lessons read").wait_for(timeout=WAIT_MS)
        _clean(into, into_errors)
        pasted.close()

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
        browser.close()
