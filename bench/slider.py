"""Slider moves in a real browser, sliced: where does the time between a key press and a settled page go?

    python bench/slider.py                      # the first slider of every page, 12 moves each
    python bench/slider.py --pages sinusoidal rope --moves 30

For each move it logs, in the page's own clock: key press -> widget message sent over the websocket ->
script run start -> run end -> last websocket message received -> last DOM change, and counts chart
mounts (a new Plotly root in the DOM) and Plotly draws. In the same run it times a bare Streamlit app
(`bench/baseline_app.py`: one slider, one st.plotly_chart heatmap of the Sinusoidal page's size, the
quick Streamlit app everyone starts with) and prints our medians as ratios to it. Not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from page_kit import registry  # noqa: E402
from tests.streamlit_server import (  # noqa: E402
    CHROMIUM_FLAGS,
    chromium_path,
    free_port,
    streamlit_server,
    wait_until_idle,
)

# Installed before any page script: timestamps of websocket traffic, script-state changes, DOM changes,
# new Plotly roots (a mount) and finished Plotly draws (plotly_afterplot on any chart).
PROBE = """
(() => {
  window.__log = [];
  const log = (what) => window.__log.push([performance.now(), what]);
  const Native = window.WebSocket;
  class Probed extends Native {
    constructor(...args) { super(...args); this.addEventListener('message', () => log('recv')); }
    send(data) { log('sent'); return super.send(data); }
  }
  window.WebSocket = Probed;
  document.addEventListener('keydown', () => log('keydown'), true);
  const watch = () => {
    const app = document.querySelector('[data-testid=stApp]');
    if (!app) { setTimeout(watch, 50); return; }
    new MutationObserver((mutations) => {
      for (const m of mutations) {
        if (m.attributeName === 'data-test-script-state') log(m.target.getAttribute('data-test-script-state'));
        else log('change');
      }
      // a chart root seen for the first time is a mount; every plotly_afterplot on any root is a draw
      for (const gd of document.querySelectorAll('.js-plotly-plot')) {
        if (gd.__probed || !gd.on) continue;
        gd.__probed = true;
        log('mount');
        gd.on('plotly_afterplot', () => log('draw'));
      }
    }).observe(app, {attributes: true, childList: true, characterData: true, subtree: true});
  };
  watch();
})();
"""
SLICES = ("sent", "running", "notRunning", "recv", "settled")


def _move_slices(log: list) -> dict | None:
    pressed = next((t for t, e in log if e == "keydown"), None)
    if pressed is None:
        return None
    first = {e: next((t for t, x in log if x == e and t >= pressed), None) for e in ("sent", "running")}
    last = {e: max((t for t, x in log if x == e), default=None) for e in ("notRunning", "recv")}
    times = {**first, **last, "settled": max(t for t, _ in log)}
    if any(v is None for v in times.values()):
        return None
    return {**{k: v - pressed for k, v in times.items()},
            "mounts": sum(e == "mount" for _, e in log), "draws": sum(e == "draw" for _, e in log)}


def measure(page, url: str, moves: int) -> dict | None:
    page.goto(url, wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_timeout(800)
    thumb = page.locator('[data-testid="stSlider"] input[type="range"]').first
    if thumb.count() == 0:
        return None
    rows = []
    for step in range(moves):
        page.evaluate("() => { window.__log = [] }")
        thumb.focus()
        thumb.press("ArrowRight" if step % 2 == 0 else "ArrowLeft")
        page.wait_for_timeout(1200)
        row = _move_slices(page.evaluate("() => window.__log"))
        if row:
            rows.append(row)
    if not rows:
        return None
    return {**{k: statistics.median(r[k] for r in rows) for k in SLICES},
            "mounts_per_move": statistics.mean(r["mounts"] for r in rows),
            "draws_per_move": statistics.mean(r["draws"] for r in rows), "moves": len(rows)}


@contextlib.contextmanager
def baseline_server():
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "bench" / "baseline_app.py"),
                             "--server.port", str(port), "--server.address", "127.0.0.1",
                             "--server.headless", "true", "--browser.gatherUsageStats", "false"],
                            cwd=ROOT / "bench", stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            with contextlib.suppress(OSError):
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).status == 200:
                    break
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", nargs="*", help="url paths (default: every page with a slider)")
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "slider.json")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    targets = args.pages or [p.url_path for p in registry.all_pages() if p is not registry.HOME]
    results = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.add_init_script(PROBE)
        with baseline_server() as url:
            results["baseline"] = measure(page, url, args.moves)
        with streamlit_server() as url:
            page.goto(f"{url}/home")
            wait_until_idle(page)
            for name in targets:
                row = measure(page, f"{url}/{name}", args.moves)
                if row:
                    results[name] = row
                    print(f"{name:<22}" + "".join(f"{k} {row[k]:6.0f}  " for k in SLICES)
                          + f"mounts {row['mounts_per_move']:.1f} draws {row['draws_per_move']:.1f}", flush=True)
        browser.close()
    base = results["baseline"]
    ours = [r for k, r in results.items() if k != "baseline"]
    settled = statistics.median(r["settled"] for r in ours)
    print(f"\n{'':<22}" + "".join(f"{k:>12}" for k in SLICES) + f"{'mounts':>8}{'draws':>7}")
    print(f"{'baseline app':<22}" + "".join(f"{base[k]:>12.0f}" for k in SLICES)
          + f"{base['mounts_per_move']:>8.1f}{base['draws_per_move']:>7.1f}")
    print(f"{'ours (median of pages)':<22}" + "".join(
        f"{statistics.median(r[k] for r in ours):>12.0f}" for k in SLICES)
        + f"{statistics.mean(r['mounts_per_move'] for r in ours):>8.1f}"
        + f"{statistics.mean(r['draws_per_move'] for r in ours):>7.1f}")
    print(f"\nkey press -> settled page, median over {len(ours)} pages: {settled:.0f} ms "
          f"= {settled / base['settled']:.2f}x the bare Streamlit app's {base['settled']:.0f} ms (aim <= 120 ms)")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
