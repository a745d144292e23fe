"""The whole page keeping up with the hand: every control a lesson opens with, from the action to the page settled,
and a fresh tab's first figure, each beside the bare Streamlit app in the same run.

    python bench/settle.py                        # every lesson
    python bench/settle.py --pages sinusoidal rope --json /tmp/settle.json

For each lesson, in headless Chromium against one warm app server:

- *open -> first figure painted*: a new browser context (a cold tab) opens the lesson's address; the time from the
  navigation's start to the first Plotly chart's first finished draw (``plotly_afterplot``), in the page's clock;
- *action -> page settled*, for every control beside the figure (``page.side``, the ones a lesson opens with): a
  slider takes a key press (ArrowRight, then ArrowLeft back), a toggle or checkbox a click and a click back, a radio
  or segmented control a click on another option and back, a select box ArrowDown + Enter and back. Settled: the
  runs the action started have finished (counted on the app's socket) and the last change to the document they
  caused has been painted (the last batch of DOM changes, the page then quiet); the drag slider's screen-reader
  announcement, 700 ms after a move, does not count.

The bare app (``bench/baseline_app.py``: one slider, one ``st.plotly_chart`` heatmap) is measured the same way in the
same run, and every figure is printed as a ratio to it. Not a test: numbers depend on the machine and its load, which
the summary prints (the 1-minute load average before and after).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from slider import PROBE, baseline_server  # noqa: E402 (this folder: bench/slider.py)

from devtools.streamlit_server import (  # noqa: E402
    CHROMIUM_FLAGS,
    chromium_path,
    count_runs,
    streamlit_server,
    wait_until_idle,
)
from page_kit import registry  # noqa: E402

SETTLE_AIM_MS = 400  # every control of every lesson
SETTLE_RATIO_AIM = 3.0  # the median over the lessons, against the bare app
OPEN_RATIO_AIM = 1.15  # a lesson's first figure against the bare app's
FIRST_DRAW = """(() => {
  // the first chart's first finished draw, in the page's clock (0 = the navigation's start)
  const seen = () => {
    for (const gd of document.querySelectorAll('.js-plotly-plot')) {
      if (gd.__firstProbe || !gd.on) continue;
      gd.__firstProbe = true;
      const first = () => { if (window.__firstDraw === undefined) window.__firstDraw = performance.now(); };
      gd.on('plotly_afterplot', first);
      if (gd.querySelector('.main-svg')) first();
    }
  };
  new MutationObserver(seen).observe(document, {childList: true, subtree: true});
})();"""
SIDE = '[data-testid="stMain"] .st-key-stage_side'
# (kind, selector inside the side column): the controls a lesson opens with, beside its figure
CONTROLS = (
    ("slider", ".ls-range"),
    ("slider", '[data-testid="stSlider"] input[type="range"]'),
    ("toggle", '[data-testid="stCheckbox"] label'),
    ("radio", '[role="radiogroup"]'),
    ("segmented", '[data-testid="stButtonGroup"]'),
    ("select", '[data-testid="stSelectbox"] input'),
)
# on screen, not in a folded section: a drag slider's range input is drawn over by its own track, so its box is
# the slider's
SHOWN = """(el) => { const box = (el.closest('.ls') || el).getBoundingClientRect();
    return box.width > 0 && box.height > 0 && !el.closest('details:not([open])')
        && !el.closest('[data-testid="stExpanderDetails"][hidden]'); }"""
# every drag slider drawn: the custom element mounts after the run that created it has settled
SLIDERS_DRAWN = """() => [...document.querySelectorAll('[class*="st-key-drag_"]')]
    .every((box) => box.querySelector('.ls-range'))"""
RUNS_DONE = "() => { const r = window.__peSocketRuns; return !r || r.finished >= r.started; }"


def _actions(page, kind: str, control):
    """The two actions (there, back) that move ``control`` and back, as zero-argument callables."""
    if kind == "slider":
        return (lambda: (control.focus(), control.press("ArrowRight")),
                lambda: (control.focus(), control.press("ArrowLeft")))
    if kind == "toggle":
        return control.click, control.click
    if kind in ("radio", "segmented"):
        options = control.locator('label' if kind == "radio" else "button")
        if options.count() < 2:
            return None
        chosen = next((i for i in range(options.count()) if options.nth(i).get_attribute("aria-checked") == "true"
                       or options.nth(i).get_attribute("aria-pressed") == "true"
                       or options.nth(i).locator("input:checked").count()), 0)
        other = 1 if chosen == 0 else 0
        return options.nth(other).click, options.nth(chosen).click
    if kind == "select":
        def pick(key: str):
            return lambda: (control.focus(), page.keyboard.press(key), page.keyboard.press("Enter"))
        return pick("ArrowDown"), pick("ArrowUp")
    return None


def _settle(page, action) -> float | None:
    """ms from the action to the last painted change it caused (None: the action changed nothing)."""
    page.evaluate("() => { window.__log = [] }")
    start = page.evaluate("() => performance.now()")
    action()
    try:
        page.wait_for_function("() => window.__log.some(([, e]) => e === 'sent')", timeout=3000)
    except Exception:  # noqa: BLE001 (playwright's timeout): nothing was sent, no run
        return None
    page.wait_for_function(RUNS_DONE, timeout=60000)
    wait_until_idle(page)
    # painted: the frame after the last change
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    log = page.evaluate("() => window.__log")
    changes = [t for t, e in log if e == "change" and t >= start]
    received = [t for t, e in log if e == "recv" and t >= start]
    last = max(changes + received, default=None)
    return None if last is None else last - start


def measure_open(browser, url: str) -> float | None:
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    count_runs(context)
    context.add_init_script(FIRST_DRAW)
    page = context.new_page()
    page.goto(url, wait_until="domcontentloaded")
    try:
        page.wait_for_function("() => window.__firstDraw !== undefined", timeout=60000)
        first = page.evaluate("() => window.__firstDraw")
    except Exception:  # noqa: BLE001 (no chart on the first screen)
        first = None
    context.close()
    return first


def measure_controls(browser, url: str, scope: str) -> list[dict]:
    """Every control in ``scope`` (the side column; the bare app's whole page), there and back."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    count_runs(context)
    context.add_init_script(PROBE)
    page = context.new_page()
    page.goto(url, wait_until="domcontentloaded")
    wait_until_idle(page)
    page.wait_for_function(SLIDERS_DRAWN, timeout=30000)
    wait_until_idle(page)
    page.wait_for_timeout(800)  # as bench/slider.py: a first key press before the widgets listen is lost
    rows = []
    for kind, selector in CONTROLS:
        found = page.locator(f"{scope} {selector}")
        for index in range(found.count()):
            control = found.nth(index)
            if not control.evaluate(SHOWN):
                continue
            actions = _actions(page, kind, control)
            if actions is None:
                continue
            times = [_settle(page, action) for action in actions]
            times = [t for t in times if t is not None]
            if times:
                label = control.get_attribute("aria-label") or control.evaluate(
                    "(el) => (el.closest('[data-testid]')?.innerText || el.innerText || '').split('\\n')[0]")
                rows.append({"kind": kind, "control": label[:40], "ms": max(times), "each": times})
    context.close()
    return rows


def _load() -> float:
    return os.getloadavg()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", nargs="*", help="url paths (default: every lesson)")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "settle.json")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    lessons = [p.url_path for p in registry.all_pages() if p is not registry.HOME]
    targets = args.pages or lessons
    load_before = _load()
    results: dict = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        with baseline_server() as url:
            measure_open(browser, url)  # warm
            results["baseline"] = {"open": measure_open(browser, url),
                                   "controls": measure_controls(browser, url, '[data-testid="stMain"]')}
        with streamlit_server() as url:
            for name in targets:
                measure_open(browser, f"{url}/{name}")  # the server's caches warm, as a class finds them
                row = {"open": measure_open(browser, f"{url}/{name}"),
                       "controls": measure_controls(browser, f"{url}/{name}", SIDE)}
                results[name] = row
                worst = max(row["controls"], key=lambda r: r["ms"], default=None)
                print(f"{name:<22} open {row['open'] or float('nan'):6.0f} ms  controls {len(row['controls']):2d}  "
                      + (f"worst {worst['ms']:6.0f} ms ({worst['kind']}: {worst['control']})" if worst else ""),
                      flush=True)
        browser.close()
    results["load"] = [load_before, _load()]
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2))
    report(results)


def report(results: dict) -> None:
    base = results["baseline"]
    base_settle = statistics.median(t for r in base["controls"] for t in r["each"])
    pages = {k: v for k, v in results.items() if k not in ("baseline", "load")}
    medians = {k: statistics.median(r["ms"] for r in v["controls"]) for k, v in pages.items() if v["controls"]}
    over = sorted(((r["ms"], k, r["control"]) for k, v in pages.items() for r in v["controls"]
                   if r["ms"] > SETTLE_AIM_MS), reverse=True)
    opens = {k: v["open"] / base["open"] for k, v in pages.items() if v["open"] and base["open"]}
    print(f"\nload average (1 min) {results['load'][0]:.1f} before, {results['load'][1]:.1f} after")
    print(f"bare app: open -> first figure {base['open']:.0f} ms; key press -> settled {base_settle:.0f} ms")
    if medians:
        middle = statistics.median(medians.values())
        print(f"action -> page settled, median over {len(medians)} lessons of each one's median control: "
              f"{middle:.0f} ms = {middle / base_settle:.2f}x the bare app (aim <= {SETTLE_RATIO_AIM}x)")
        print(f"controls over {SETTLE_AIM_MS} ms: {len(over)} on {len({k for _, k, _ in over})} lessons"
              + (": " + ", ".join(f"{k} / {c} {ms:.0f}" for ms, k, c in over[:12]) if over else ""))
    if opens:
        print(f"open -> first figure, median {statistics.median(opens.values()):.2f}x the bare app, worst "
              f"{max(opens.values()):.2f}x ({max(opens, key=opens.get)}) (aim <= {OPEN_RATIO_AIM}x on every lesson)")


if __name__ == "__main__":
    main()
