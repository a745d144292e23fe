"""Start the app on a free loopback port, for the browser tests and the benchmarks."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(timeout: float = 60.0, env: dict[str, str] | None = None):
    """Yield the base URL of a running app (``env``: variables to add to its environment); stop it afterwards."""
    port = free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", **(env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                time.sleep(0.3)
        else:
            raise RuntimeError("The Streamlit server did not become healthy in time.")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


# Settled: the script has finished (Streamlit's own run state), no element is left stale from the last run, every
# chart on screen has drawn and none is drawing or waiting to fit a new width (page_kit/chart/plotly_element.js), fonts
# and images have loaded, and nothing in the document has changed for QUIET_MS. Each is a condition the
# page reports; QUIET_MS only bridges the gap between a run's last message and the render it causes (a rerun the
# page asks for, a component mounting), so the wait takes as long as the machine needs and no longer.
QUIET_MS = 80
_SETTLED_JS = """([quietMs, timeoutMs]) => new Promise((resolve) => {
  const start = performance.now();
  let last = start;
  const observer = new MutationObserver(() => { last = performance.now(); });
  observer.observe(document.documentElement, {subtree: true, childList: true, attributes: true, characterData: true});
  const busy = () => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.dataset.testScriptState !== 'notRunning') return 'the script is running';
    if (document.querySelector('[data-stale="true"]')) return 'elements of the last run are stale';
    const undrawn = [...document.querySelectorAll('[data-testid="stMain"] .pe-plot')]
      .filter((plot) => plot.offsetParent && !plot.querySelector('.main-svg'));
    if (undrawn.length || (window.__posencCharts || {}).pending > 0) return 'a chart is drawing';
    if (document.querySelector('.pe-chart[data-width-pending]')) return 'a chart waits to fit a new width';
    if (document.fonts && document.fonts.status !== 'loaded') return 'fonts are loading';
    const images = [...document.querySelectorAll('[data-testid="stMain"] img')].filter((img) => !img.complete);
    return images.length ? 'an image is loading' : null;
  };
  const tick = () => {
    const now = performance.now();
    const why = busy();
    if (why) last = now;
    if (!why && now - last >= quietMs) { observer.disconnect(); resolve(null); return; }
    if (now - start > timeoutMs) { observer.disconnect(); resolve(why || 'the page kept changing'); return; }
    setTimeout(tick, 20);
  };
  tick();
})"""


def browser_page(browser, storage_state=None, viewport=(1400, 900)):
    """(context, page, errors): a new browser context (its own cookies; ``storage_state``: a saved one, as a browser
    restarted keeps it) with one page, whose uncaught script errors collect in ``errors``."""
    context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]}, storage_state=storage_state)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page, errors


def wait_until_idle(page, timeout_ms: int = 60000) -> None:
    """Wait until the page has settled: its script has run to the end and the page has stopped changing."""
    page.wait_for_selector('[data-testid="stApp"]', state="attached", timeout=timeout_ms)
    why = page.evaluate(_SETTLED_JS, [QUIET_MS, timeout_ms])
    if why:
        raise TimeoutError(f"the page did not settle in {timeout_ms / 1000:.0f} s: {why}")


def wait_for_query(page, timeout_ms: int = 30000, **expected: str) -> None:
    """Wait for the run an action started to put ``expected`` in the address bar, then for the page to settle.

    A click or key press reaches the server a moment after it is made: waiting for the page to settle at once
    could see the page before that run begins. Returns quietly at the timeout, for the caller's assertion to say
    what the address bar holds.
    """
    try:
        page.wait_for_function("""(want) => { const query = new URLSearchParams(location.search);
            return Object.entries(want).every(([key, value]) => query.getAll(key).slice(-1)[0] === value); }""",
                               arg=expected, timeout=timeout_ms)
    except Exception:  # noqa: BLE001 (playwright's timeout): the caller's assertion names what is there instead
        pass
    wait_until_idle(page)


# A run is counted from the app's own socket: Streamlit sends a new_session message when a run (of the page or of a
# fragment) starts and script_finished when it ends (ForwardMsg fields 4 and 6, streamlit/proto/ForwardMsg.proto).
# The run state the page shows (data-test-script-state) cannot count runs: a run that ends before React draws
# never shows "running", and the wait for it would last its whole time-out. The counter listens before Streamlit's
# own handler, which dispatches a message in the same task (its message cache answers without a fetch), so by
# the time a later evaluate sees the count, the app has taken in the run's end. Installed by count_runs before
# the app loads; a page without it is counted from the run state as before.
RUN_COUNTER_JS = """(() => {
  const Native = window.WebSocket;
  if (!Native || window.__peSocketRuns) return;
  const runs = window.__peSocketRuns = {started: 0, finished: 0};
  const field = (data) => {
    if (!(data instanceof ArrayBuffer)) return 0;
    const bytes = new Uint8Array(data);
    let at = 0;
    const varint = () => {
      let value = 0, scale = 1, byte;
      do { byte = bytes[at++]; value += (byte & 0x7f) * scale; scale *= 128; } while (byte & 0x80 && at < bytes.length);
      return value;
    };
    while (at < bytes.length) {
      const tag = varint(), number = Math.floor(tag / 8), wire = tag % 8;
      if (number === 4 || number === 6) return number;
      if (wire === 0) varint();
      else if (wire === 2) { const length = varint(); at += length; }  // `at += varint()` adds to the old `at`
      else if (wire === 1 || wire === 5) at += wire === 1 ? 8 : 4; else return 0;
    }
    return 0;
  };
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        const number = field(event.data);
        if (number === 4) runs.started += 1;
        if (number === 6) runs.finished += 1;
      });
    }
  };
})();"""


def count_runs(target) -> None:
    """Count the app's runs on its socket in every document ``target`` (a browser context or a page) opens from now
    on: settle_after and wait_for_run then never wait out their time-out for a run that did happen."""
    target.add_init_script(script=RUN_COUNTER_JS)


_COUNT_RUNS = """() => { if (window.__peSocketRuns) return window.__peSocketRuns.started;
  if (!window.__peRuns) {
    window.__peRuns = {started: 0};
    const app = document.querySelector('[data-testid="stApp"]');
    new MutationObserver(() => { if (app.dataset.testScriptState === 'running') window.__peRuns.started += 1; })
      .observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
  }
  return window.__peRuns.started; }"""
_STARTED = "(before) => (window.__peSocketRuns || window.__peRuns).started > before"
_ENDED = "() => { const runs = window.__peSocketRuns; return !runs || runs.finished >= runs.started; }"


def runs_started(page) -> int:
    """How many script runs the page has started since it loaded (counted from the first call on, on a page
    without count_runs)."""
    return page.evaluate(_COUNT_RUNS)


def wait_for_run(page, before: int, start_ms: int = 3000) -> bool:
    """Wait for a run after the ``before``-th to start (for at most ``start_ms``), then for the page to settle.
    Returns whether one started."""
    try:
        page.wait_for_function(_STARTED, arg=before, timeout=start_ms)
        started = True
    except Exception:  # noqa: BLE001 (playwright's timeout): no run began
        started = False
    if started:
        page.wait_for_function(_ENDED, timeout=60000)
    wait_until_idle(page)
    return started


def settle_after(page, action, start_ms: int = 3000) -> bool:
    """Do ``action`` (a key press, a click) and wait for the run it starts, then for the page to settle.

    An action that changes nothing (a key at the end of a slider's range) starts no run: after ``start_ms``
    without one, the page is taken as it is. Returns whether a run started.
    """
    before = runs_started(page)
    action()
    return wait_for_run(page, before, start_ms)
