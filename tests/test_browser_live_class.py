"""A live class in real browsers, as a teacher runs it, on the served deployment: two app replicas behind the
compose file's nginx, sharing one real redis-server. A teacher (presentation mode) and two students, each its own
browser context (own cookie, so the proxy may seat them on different replicas). The student who opens the join
link lands on the teacher's lesson (joining follows the teacher); the one who types the code gives a nickname and
stops following from the bar above the lesson. A student's answer is saved with no verdict until the teacher
reveals it; then both see it. The teacher's address never carries the key, and a reload keeps the room. The
teacher sees the nickname as plain text; the other student does not.
"""

from __future__ import annotations

import os
import re
import time

import pytest

from deploy import local_proxy
from deploy.local_redis import redis_server, redis_server_path
from devtools.streamlit_server import chromium_path, wait_until_idle
from live_class import rooms

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
    pytest.mark.skipif(local_proxy.nginx_path() is None, reason="nginx is not installed (apt-get install nginx)"),
    pytest.mark.skipif(redis_server_path() is None, reason="redis-server is not installed (apt-get install "
                                                           "redis-server; .ci/run installs it)"),
]
RADIO = '.st-key-predict_order_rows [role="radiogroup"] label'
NICKNAME = "<i>Quinn</i>"  # markup in a nickname is text, nothing more


@pytest.fixture(scope="module")
def served():
    """The proxy's URL, with two replicas that share a Redis store (POSENC_REDIS_URL in their environment)."""
    with redis_server() as redis_url:
        before = os.environ.get(rooms.REDIS_URL_ENV)
        os.environ[rooms.REDIS_URL_ENV] = redis_url
        try:
            with local_proxy.app_processes(2) as replicas:
                upstreams = [url.removeprefix("http://") for url, _ in replicas]
                with local_proxy.nginx_proxy(upstreams, local_proxy.free_port()) as (url, _log):
                    yield url
        finally:
            os.environ.pop(rooms.REDIS_URL_ENV) if before is None else os.environ.update({rooms.REDIS_URL_ENV: before})


def _open(browser, url: str, path: str, width: int = 1400, settle: bool = True):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{url}/{path}", wait_until="domcontentloaded")
    if settle:  # a join link's page moves to the teacher's lesson on its own: _wait_path waits for that one
        wait_until_idle(page)
    return context, page, errors


def _wait_path(page, pattern: str, timeout_s: float = 60) -> None:
    """Until the address bar matches: a follower's browser loads the teacher's page after its next poll."""
    deadline = time.monotonic() + timeout_s
    while not re.search(pattern, page.url):
        assert time.monotonic() < deadline, f"still at {page.url}, expected {pattern}"
        page.wait_for_timeout(250)
    wait_until_idle(page)


def _clean(page, errors, who: str) -> None:
    for selector in ('[data-testid="stException"]', '[data-testid="stAlertContentError"]'):
        assert page.locator(selector).count() == 0, f"{who}: {page.locator(selector).first.inner_text()}"
    assert not errors, f"{who}: {errors}"


def test_a_class_answers_sees_the_reveal_and_follows(served, chromium):
    url = served
    browser = chromium  # the process's one Chromium (tests/conftest.py): Playwright's sync API runs once a thread
    teacher_ctx, teacher, teacher_errors = _open(browser, url, "order?present=true", width=1280)
    teacher.locator(".st-key-present_class button").first.click()  # the presentation bar's Class button
    code = teacher.locator(".live-code").inner_text(timeout=60000).strip()
    assert re.fullmatch(f"[{rooms.ALPHABET}]{{{rooms.CODE_LENGTH}}}", code)
    assert teacher.locator('img.live-qr[alt="QR code of the join link"]').count() == 1
    teacher.keyboard.press("Escape")
    wait_until_idle(teacher)

    assert "key=" not in teacher.url  # the projected address bar carries no teacher key

    # one student by the join link: taken to the teacher's lesson; one types the code in the sidebar
    follower_ctx, follower, follower_errors = _open(browser, url, f"?room={code}", settle=False)
    _wait_path(follower, r"/order\?.*room=")
    assert "key=" not in follower.url
    quiet_ctx, quiet, quiet_errors = _open(browser, url, "order")
    quiet.get_by_label("Room code").fill(code.lower())
    quiet.get_by_role("textbox", name="Nickname (optional)").fill(NICKNAME)
    quiet.get_by_role("button", name="Join").click()
    quiet.get_by_text(f"You are in room {code}").wait_for(timeout=30000)
    quiet.get_by_role("button", name="Stop following").click()  # on the page, above the lesson
    quiet.get_by_role("button", name="Follow the teacher").wait_for(timeout=30000)

    started = time.monotonic()
    follower.locator(RADIO).first.click()
    follower.get_by_text("is saved. The teacher reveals the answer to the room.").wait_for(timeout=30000)
    assert follower.locator('[class*="st-key-answer_hidden_order_rows"]').count() == 1  # no verdict, no figure
    assert follower.get_by_text("Right.").count() == 0 and follower.get_by_text("Not quite").count() == 0
    teacher.get_by_text("1 of 2 answered").wait_for(timeout=30000)  # the count, from the teacher's poll
    counted_s = time.monotonic() - started
    assert quiet.locator('[class*="st-key-answer_hidden_order_rows"]').count() == 1
    assert quiet.get_by_text(re.compile(r"\d+ of \d+ answered")).count() == 0  # no count, no reveal button
    assert quiet.get_by_role("button", name="Reveal to the room").count() == 0

    teacher.locator(".st-key-live_who_order_rows").click()  # who answered, who has not yet, by nickname
    name = teacher.locator(".live-who .live-name").first
    name.wait_for(timeout=30000)
    assert name.inner_text() == NICKNAME and teacher.locator(".live-who i").count() == 0
    assert "1 anonymous" in teacher.locator(".live-who").inner_text()  # the follower gave no nickname
    assert follower.get_by_text("Quinn").count() == 0 and follower.locator(".live-name").count() == 0

    teacher.reload(wait_until="domcontentloaded")  # the key lives in the teacher's browser, not the address
    wait_until_idle(teacher)
    teacher.get_by_role("button", name="Reveal to the room").click()
    quiet.get_by_text("The answer: ").wait_for(timeout=30000)  # not answered, revealed by the room
    assert quiet.locator('[class*="st-key-answer_open_order_rows"]').count() == 1
    follower.locator('[class*="st-key-answer_open_order_rows"]').wait_for(timeout=30000)
    assert follower.get_by_text("Right.").count() + follower.get_by_text("Not quite").count() == 1  # now, the verdict

    teacher.locator(".st-key-present_next button").first.click()  # the teacher moves on
    moved = time.monotonic()
    _wait_path(follower, r"/naive\?.*room=")
    followed_s = time.monotonic() - moved
    assert "/order" in quiet.url  # who stopped following stays
    for page, errors, who in ((teacher, teacher_errors, "teacher"), (follower, follower_errors, "follower"),
                              (quiet, quiet_errors, "student")):
        _clean(page, errors, who)
    print(f"answer to the teacher's count: {counted_s:.1f} s; teacher's Next to the follower's new page "
          f"loaded: {followed_s:.1f} s")
    for context in (teacher_ctx, follower_ctx, quiet_ctx):
        context.close()
