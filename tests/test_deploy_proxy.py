"""Two app replicas behind the compose file's nginx, for real: browser sessions stay on one replica, uploads work.

Two app processes start on loopback ports as the Dockerfile starts them; nginx (Debian's package, a child
process with its own prefix and pid file) runs deploy/nginx/default.conf.template rendered exactly as the
official image renders it for compose, only with loopback upstreams. Headless Chromium opens sessions through
the proxy; nginx's access log (the template's own log format) says which replica answered each request.
"""

from __future__ import annotations

import io
import json
import re
import time
import urllib.request
from collections import defaultdict

import numpy as np
import pytest

import posenc_core as pc
from deploy import local_proxy
from devtools.streamlit_server import chromium_path, wait_until_idle
from posenc_core.configs import config_contexts

CHROMIUM = chromium_path()
pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
    pytest.mark.skipif(local_proxy.nginx_path() is None, reason="nginx is not installed (apt-get install nginx)"),
]
THUMB = '.ls-range, [data-testid="stSlider"] input[type="range"]'  # Sinusoidal's first slider is a drag slider
LOG_LINE = re.compile(r'"(?P<method>\S+) (?P<uri>\S+) [^"]*" (?P<status>\d+) \d+ key=(?P<key>\S+) '
                      r'upstream=(?P<upstream>\S+)')


@pytest.fixture(scope="module")
def proxied():
    """(proxy URL, access log, replica addresses) for two replicas behind nginx."""
    with local_proxy.app_processes(2) as replicas:
        upstreams = [url.removeprefix("http://") for url, _ in replicas]
        with local_proxy.nginx_proxy(upstreams, local_proxy.free_port()) as (url, log):
            yield url, log, upstreams


@pytest.fixture(scope="module")
def browser(chromium):
    return chromium  # the process's one Chromium (tests/conftest.py): Playwright's sync API runs once a thread


def _requests_by_key(log) -> dict[str, list[dict]]:
    """The access log as it is now, grouped by sticky key."""
    grouped = defaultdict(list)
    for line in log.read_text().splitlines():
        match = LOG_LINE.search(line)
        if match:
            grouped[match["key"]].append(match.groupdict())
    return grouped


def _session(browser, url: str, path: str, choose: str | None = None):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{url}/{path}", wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_selector("h1", timeout=60000)
    if choose:  # a segmented control's option, clicked as a student would
        page.get_by_role("button", name=choose).or_(page.get_by_role("radio", name=choose)).first.click()
        wait_until_idle(page)
    cookie = next(c["value"] for c in context.cookies() if c["name"] == "posenc_replica")
    return context, page, cookie, errors


def _assert_clean(page, errors, where: str) -> None:
    for selector in ('[data-testid="stException"]', '[data-testid="stAlertContentError"]'):
        boxes = page.locator(selector)
        assert boxes.count() == 0, f"{where}: {boxes.first.inner_text()}"
    assert not errors, f"{where}: {errors}"


def _assert_one_replica(log, cookie: str, upstreams: list[str], must_include: tuple[str, ...],
                        sockets: int = 1) -> str:
    """The session's requests all went to one replica, among them ``must_include`` and its ``sockets`` websockets."""
    # nginx logs a websocket when it closes, and a busy machine may take a moment to close it and write the line
    deadline = time.time() + 20
    while True:
        requests = _requests_by_key(log)[cookie]
        closed = sum(r["uri"].startswith("/_stcore/stream") for r in requests)
        if (closed >= sockets and all(any(r["uri"].startswith(path) for r in requests) for path in must_include)) \
                or time.time() > deadline:
            break
        time.sleep(0.1)
    served_by = {r["upstream"] for r in requests}
    assert len(served_by) == 1 and served_by <= set(upstreams), f"session {cookie} went to {served_by}"
    for path in must_include:
        assert any(r["uri"].startswith(path) for r in requests), f"no {path} request logged for {cookie}"
    assert closed >= sockets, f"{closed} of the {sockets} websockets of {cookie} logged"
    return served_by.pop()


def test_requests_without_the_cookie_spread_over_both_replicas(proxied):
    url, log, upstreams = proxied
    for _ in range(24):
        with urllib.request.urlopen(f"{url}/sinusoidal", timeout=30) as response:
            assert "posenc_replica=" in response.headers["Set-Cookie"]
    first_visits = [r for rs in _requests_by_key(log).values() for r in rs if r["uri"] == "/sinusoidal"]
    assert {r["upstream"] for r in first_visits} == set(upstreams)  # 24 random keys: both, but for 2**-23


def test_each_session_stays_on_one_replica_across_reruns(proxied, browser):
    url, log, upstreams = proxied
    for attempt in range(3):
        context, page, cookie, errors = _session(browser, url, "sinusoidal")
        thumb = page.locator(THUMB).first
        before = float(thumb.input_value())
        for _ in range(3):  # each key press is one rerun over the same websocket
            thumb.focus()
            thumb.press("ArrowRight")
            wait_until_idle(page)
        page.reload(wait_until="domcontentloaded")  # a new websocket: the cookie must bring it back
        wait_until_idle(page)
        page.wait_for_selector(THUMB, timeout=60000)
        deadline = time.time() + 20  # a busy machine may draw the slider before its value from the URL reaches it
        while float(page.locator(THUMB).first.input_value()) <= before and time.time() < deadline:
            page.wait_for_timeout(50)
        assert float(page.locator(THUMB).first.input_value()) > before, "the moved slider (bound to the URL)"
        _assert_clean(page, errors, f"session {attempt}")
        context.close()
        # two websockets: the first load's and the reload's
        _assert_one_replica(log, cookie, upstreams, ("/sinusoidal", "/_stcore/stream", "/_stcore/host-config"), 2)


def test_a_table_upload_on_the_learned_page_works_through_the_proxy(proxied, browser):
    url, log, upstreams = proxied
    context, page, cookie, errors = _session(browser, url, "learned", choose="your upload")
    table = np.random.default_rng(0).normal(size=(48, 20)).astype(np.float32)  # (positions, channels)
    buffer = io.BytesIO()
    np.save(buffer, table, allow_pickle=False)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        files=[{"name": "table.npy", "mimeType": "application/octet-stream", "buffer": buffer.getvalue()}])
    page.get_by_text("P has 48 rows x 20 channels").first.wait_for(timeout=60000)
    wait_until_idle(page)
    _assert_clean(page, errors, "learned upload")
    context.close()
    _assert_one_replica(log, cookie, upstreams, ("/_stcore/upload_file", "/_stcore/stream"))


def test_a_config_upload_on_the_model_presets_page_works_through_the_proxy(proxied, browser):
    url, log, upstreams = proxied
    config = {"model_type": "llama", "hidden_size": 2048, "num_attention_heads": 16, "rope_theta": 500000.0,
              "max_position_embeddings": 4096, "rope_scaling": {"rope_type": "linear", "factor": 3.0}}
    _, target, _ = config_contexts(pc.read_rope_config(config, None))  # what the page must report
    context, page, cookie, errors = _session(browser, url, "model_configs?src=json&how=upload")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        files=[{"name": "config.json", "mimeType": "application/json", "buffer": json.dumps(config).encode()}])
    # the numbers answer the page's predict-first question, so they show once the reader asks to see them
    page.locator(".st-key-predict_cfg_trained_show button").click(timeout=60000)
    page.locator('[data-testid="stMetricValue"]', has_text=f"{target:,}").first.wait_for(timeout=60000)
    wait_until_idle(page)
    _assert_clean(page, errors, "config upload")
    context.close()
    _assert_one_replica(log, cookie, upstreams, ("/_stcore/upload_file", "/_stcore/stream"))
