"""Slider moves in a real browser, sliced: where does the time between a key press and a settled page go?

    python bench/slider.py                      # the first slider of every page, 12 moves each
    python bench/slider.py --pages sinusoidal rope --moves 30

For each move it logs, in the page's own clock: key press -> widget message sent over the websocket ->
the page marks the run started -> run end -> last websocket message received -> the hero figure redrawn
-> last DOM change, and counts chart mounts (a new Plotly root in the DOM) and Plotly draws. In the same
run it times a bare Streamlit app (`bench/baseline_app.py`: one slider, one st.plotly_chart heatmap of
the Sinusoidal page's size, the quick Streamlit app everyone starts with) and prints our medians as
ratios to it. Then it drags each drag slider of the hero figures (DRAGS) and counts the hero figure's
redraws against the values the hand crossed (`--no-drag` skips this). Not a test.
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

from devtools.streamlit_server import (  # noqa: E402
    CHROMIUM_FLAGS,
    chromium_path,
    free_port,
    streamlit_server,
    wait_until_idle,
)
from page_kit import registry  # noqa: E402

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
  // a drag slider's value changing under the hand (its label text changes with each new value)
  let lastValue = null;
  document.addEventListener('input', (event) => {
    if (event.target.classList && event.target.classList.contains('ls-range') && event.target.value !== lastValue) {
      lastValue = event.target.value;
      log('value');
    }
  }, true);
  const watch = () => {
    const app = document.querySelector('[data-testid=stApp]');
    if (!app) { setTimeout(watch, 50); return; }
    // One log entry per batch of DOM changes, not per change: a heatmap redraw changes thousands of nodes, and
    // logging each one made the probe itself add tens of milliseconds to every move it timed.
    new MutationObserver((mutations) => {
      let changed = false;
      for (const m of mutations) {
        if (m.attributeName === 'data-test-script-state') log(m.target.getAttribute('data-test-script-state'));
        // a drag slider says its value to screen readers 700 ms after the last move (drag_slider.js): not a
        // change anyone sees, so it does not count towards "settled"
        else if (!(m.target.closest && m.target.closest('.ls-status')) &&
                 !(m.target.parentElement && m.target.parentElement.closest('.ls-status'))) changed = true;
      }
      if (changed) log('change');
      // a chart root seen for the first time is a mount; every plotly_afterplot on any root is a draw
      for (const gd of document.querySelectorAll('.js-plotly-plot')) {
        if (gd.__probed || !gd.on) continue;
        gd.__probed = true;
        log('mount');
        // the page's first chart (the hero figure), even when a remount has replaced its node
        gd.on('plotly_afterplot', () => log(gd === document.querySelector('.js-plotly-plot') ? 'draw' : 'draw-other'));
      }
    }).observe(app, {attributes: true, childList: true, characterData: true, subtree: true});
  };
  watch();
})();
"""
DRAWN_AIM = 0.5  # key press -> hero figure redrawn, as a share of the bare app's
SLICES = ("sent", "running", "notRunning", "recv", "drawn", "settled")  # drawn: the hero figure redrawn


def _move_slices(log: list) -> dict | None:
    pressed = next((t for t, e in log if e == "keydown"), None)
    if pressed is None:
        return None
    first = {e: next((t for t, x in log if x == e and t >= pressed), None) for e in ("sent", "running")}
    last = {e: max((t for t, x in log if x == e), default=None) for e in ("notRunning", "recv")}
    times = {**first, **last, "settled": max(t for t, _ in log)}
    if any(v is None for v in times.values()):
        return None
    # the first chart's last redraw (a remounting chart draws twice); where the slider leaves it as it is, the last
    # redraw of another chart (the one the slider drives); a move that redraws no chart counts as settled
    hero = [t for t, x in log if x == "draw" and t >= pressed]
    other = [t for t, x in log if x == "draw-other" and t >= pressed]
    times["drawn"] = max(hero or other or [times["settled"]])
    return {**{k: v - pressed for k, v in times.items()},
            "mounts": sum(e == "mount" for _, e in log), "draws": sum(e == "draw" for _, e in log),
            "redraws": len(hero) + len(other)}


SLIDERS = '.ls-range, [data-testid="stSlider"] input[type="range"]'
TRIED = 4  # sliders tried, in page order, for one that redraws a figure


def _press(page, thumb, key: str) -> list:
    page.evaluate("() => { window.__log = [] }")
    thumb.focus()
    thumb.press(key)
    page.wait_for_timeout(1200)
    return page.evaluate("() => window.__log")


def _driving_slider(page):
    """(index, thumb, draws a figure) of the first visible slider, in page order, whose move redraws a chart.

    The aim is about the hero figure following the hand; a slider that only sets a run's options (the lab, DroPE)
    or picks what the text below reads (the layer strip) redraws nothing. Each slider tried is moved right and
    back, and counts where both moves redraw one; where none of the first TRIED does, the page's first slider is
    timed and marked."""
    thumbs = page.locator(SLIDERS)
    visible = [i for i in range(min(thumbs.count(), 2 * TRIED)) if thumbs.nth(i).is_visible()][:TRIED]
    for i in visible:
        thumb = thumbs.nth(i)
        there, back = _press(page, thumb, "ArrowRight"), _press(page, thumb, "ArrowLeft")
        # both ways: a chart drawing late after the page load is not a figure following this slider
        if all(any(e in ("draw", "draw-other") for _, e in log) for log in (there, back)):
            return i, thumb, True
    return (visible[0], thumbs.nth(visible[0]), False) if visible else None


def measure(page, url: str, moves: int) -> dict | None:
    page.goto(url, wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_timeout(800)
    chosen = _driving_slider(page)
    if chosen is None:
        return None
    index, _, drives = chosen
    page.goto(url, wait_until="domcontentloaded")  # timed from a fresh page, as before the sliders were tried
    wait_until_idle(page)
    page.wait_for_timeout(800)
    thumb = page.locator(SLIDERS).nth(index)
    rows = []
    for step in range(moves):
        row = _move_slices(_press(page, thumb, "ArrowRight" if step % 2 == 0 else "ArrowLeft"))
        if row:
            rows.append(row)
    if not rows:
        return None
    return {**{k: statistics.median(r[k] for r in rows) for k in SLICES},
            "mounts_per_move": statistics.mean(r["mounts"] for r in rows),
            "draws_per_move": statistics.mean(r["draws"] for r in rows),
            "redraws_per_move": statistics.mean(r["redraws"] for r in rows), "moves": len(rows),
            "slider": index, "drives_figure": drives}


# The hero figures whose sliders must carry the figure while dragged, by page: the sliders' URL keys.
DRAGS = {"sinusoidal": ("n", "d", "base"), "rope": ("m", "n", "i"), "extension": ("s", "base"), "alibi": ("h",)}
DRAG_MS = 3000
DRAG_STEP_MS = 25  # a pointer event every 25 ms, as a quick hand on a trackpad sends them


def measure_drag(page, url: str, key: str) -> dict | None:
    """Drag one drag slider there and back for DRAG_MS; count, while the button is down, the new values under
    the hand and the hero figure's own redraws (its Plotly.react calls)."""
    page.goto(url, wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_timeout(800)
    slider = page.locator(f'.ls[data-key="{key}"] .ls-range')
    if slider.count() == 0:
        return None
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    steps = DRAG_MS // DRAG_STEP_MS
    page.mouse.move(box["x"] + 0.1 * box["width"], y)
    page.evaluate("() => { window.__log = [] }")
    hero = "() => (document.querySelector('.pe-chart') || {}).__draws || 0"  # Plotly.react calls on the first chart
    before = page.evaluate(hero)
    page.mouse.down()
    for k in range(1, steps + 1):  # there and back, so the drag never pins at an end
        frac = 0.1 + 0.8 * (1 - abs(1 - 2 * k / steps))
        page.mouse.move(box["x"] + frac * box["width"], y)
        page.wait_for_timeout(DRAG_STEP_MS)
    log, during = page.evaluate("() => window.__log"), page.evaluate(hero) - before
    page.mouse.up()
    wait_until_idle(page)
    values = [t for t, e in log if e == "value"]
    if not values:
        return None
    return {"values_per_s": 1000 * len(values) / DRAG_MS, "draws_per_s": 1000 * during / DRAG_MS,
            "values": len(values), "draws": during}


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
    parser.add_argument("--no-drag", action="store_true", help="skip the drag measurement of the hero sliders")
    parser.add_argument("--report", type=Path, help="print the summary of a saved run (its --json) and stop")
    args = parser.parse_args()
    if args.report:
        saved = json.loads(args.report.read_text())
        drags = saved.pop("drags", {})
        report(saved, drags)
        return
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
                          + f"mounts {row['mounts_per_move']:.1f} draws {row['draws_per_move']:.1f}  slider "
                          + (f"{row['slider'] + 1}" if _moves_figure(row) else "1 (no figure follows)"),
                          flush=True)
            drags = {} if args.no_drag else {
                f"{name} {key}": measure_drag(page, f"{url}/{name}", key)
                for name, keys in DRAGS.items() if not args.pages or name in args.pages for key in keys}
        browser.close()
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({**results, "drags": drags}, indent=2))
    report(results, drags)


def _moves_figure(row: dict) -> bool:
    """Whether the timed moves redrew a chart (any chart: the slider may drive one under the first), not only
    the probe's two moves (a chart drawing late after the page load fooled it)."""
    if "redraws_per_move" in row:
        return row["redraws_per_move"] >= 0.5
    return row["draws_per_move"] >= 0.5 or row["drawn"] < row["settled"]  # runs saved before redraws were counted


def report(results: dict, drags: dict) -> None:
    """The summary, from one run's rows (``python bench/slider.py --report bench/results/slider.json``)."""
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
    drawn = {name: r["drawn"] / base["drawn"] for name, r in results.items()
             if name != "baseline" and _moves_figure(r)}
    text_only = {name: r["drawn"] / base["drawn"] for name, r in results.items()
                 if name != "baseline" and not _moves_figure(r)}
    slow = sorted((ratio, name) for name, ratio in drawn.items() if ratio > DRAWN_AIM)
    print(f"key press -> hero figure redrawn, median over the {len(drawn)} pages where a slider moves a figure (the "
          f"first such slider of each): {statistics.median(results[n]['drawn'] for n in drawn):.0f} ms = "
          f"{statistics.median(drawn.values()):.2f}x the bare app's {base['drawn']:.0f} ms; at or under {DRAWN_AIM}x: "
          f"{len(drawn) - len(slow)} of {len(drawn)}")
    if slow:
        print("  over the aim: " + ", ".join(f"{name} {ratio:.2f}x" for ratio, name in reversed(slow)))
    if text_only:
        print(f"pages where none of the first {TRIED} sliders moves a figure (their first slider's text, settled): "
              + ", ".join(f"{name} {ratio:.2f}x" for name, ratio in sorted(text_only.items())))
    if drags:
        print(f"\nwhile dragging ({DRAG_MS / 1000:g} s there and back, a pointer event every {DRAG_STEP_MS} ms): "
              "new slider values per second under the hand, hero-figure redraws per second (aim >= 10, or every "
              "value when a slider has fewer stops)")
        for name, row in drags.items():
            if row is None:
                print(f"{name:<22} no drag slider with this key")
                continue
            print(f"{name:<22}values {row['values_per_s']:5.1f}/s  redraws {row['draws_per_s']:5.1f}/s  "
                  f"({row['draws']} redraws for {row['values']} values)")
        rates = [min(r["draws_per_s"], 10.0) / min(r["values_per_s"], 10.0) for r in drags.values() if r]
        if rates:
            print(f"share of the aim met (redraws per second against min(10, values per second)): median "
                  f"{statistics.median(rates):.0%}, lowest {min(rates):.0%}")


if __name__ == "__main__":
    main()
