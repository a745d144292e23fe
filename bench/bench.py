"""PosEnc Explorer benchmark. Prints ratios measured in one run; not a test.

    python bench/bench.py            # everything (needs chromium for the browser part)
    python bench/bench.py --no-browser

1. sinusoidal(8192, 1024) against the same number of float64 sin + cos evaluations, the precision its bits need
   (aim <= 1.3x), and against float32 ones;
2. apply_rope (torch backend) against transformers' rotary embedding + rotate_half on one tensor (aim <= 1.0x);
3. each page's script time (AppTest, warm caches);
4. each page's payload (bytes the browser receives over the websocket) and, in the browser, the time from
   a slider key press on the Sinusoidal page until the run has finished and until the page has settled
   (its last DOM change: Plotly redraws the figure after the run).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import posenc_core as pc  # noqa: E402
from page_kit import registry  # noqa: E402


def best_of(fn, repeat: int = 7, number: int = 1) -> float:
    """Minimum wall time of `number` calls, over `repeat` trials (seconds per call)."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times)


def bench_sinusoidal() -> dict:
    """The table against the sin and cos it needs, on this machine, one thread each.

    The models' table is float32(sin(float64 angle)): float64 sines and cosines rounded once. So the limit for
    these bits is the fastest float64 sin + cos the machine offers (torch's vectorised kernels, one thread);
    numpy's float64 sin + cos (what the model's own code calls) and numpy's float32 ones (a table that is not
    bit-identical) are printed beside it.
    """
    n, d = 8192, 1024
    angles = np.random.default_rng(0).random((n, d // 2), dtype=np.float32) * 100  # same count as the table
    wide = angles.astype(np.float64)
    row = {"sinusoidal_s": best_of(lambda: pc.sinusoidal(n, d)),
           "bare_sincos_s": best_of(lambda: (np.sin(angles), np.cos(angles))),
           "numpy_float64_sincos_s": best_of(lambda: (np.sin(wide), np.cos(wide)), repeat=3)}
    try:
        import torch
    except ImportError:
        row["limit_s"] = row["numpy_float64_sincos_s"]
    else:
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        tensor = torch.from_numpy(wide)
        row["torch_float64_sincos_s"] = best_of(lambda: (torch.sin(tensor), torch.cos(tensor)))
        torch.set_num_threads(threads)
        row["limit_s"] = min(row["torch_float64_sincos_s"], row["numpy_float64_sincos_s"])
    row["ratio"] = row["sinusoidal_s"] / row["limit_s"]
    row["ratio_float32"] = row["sinusoidal_s"] / row["bare_sincos_s"]
    return row


def bench_rope() -> dict | None:
    try:
        import torch
        from transformers import LlamaConfig
        from transformers.models.llama import modeling_llama as llama
    except ImportError:
        return None
    torch.set_grad_enabled(False)
    b, h, s, d = 4, 16, 2048, 128
    config = LlamaConfig(hidden_size=h * d, num_attention_heads=h, rope_theta=500000.0)
    rotary = llama.LlamaRotaryEmbedding(config)
    q = torch.randn(b, h, s, d)
    position_ids = torch.arange(s)[None]

    def reference():
        cos, sin = rotary(q, position_ids)
        return q * cos[:, None] + llama.rotate_half(q) * sin[:, None]

    positions = torch.arange(s)
    inv_t = rotary.inv_freq  # the same float32 frequencies for both, so the outputs can be compared
    torch.testing.assert_close(pc.apply_rope(q, positions, inv_t), reference())
    ref = best_of(reference)
    ours = best_of(lambda: pc.apply_rope(q, positions, inv_t))
    return {"shape": [b, h, s, d], "apply_rope_s": ours, "transformers_s": ref, "ratio": ours / ref,
            "threads": torch.get_num_threads()}


def bench_pages() -> list[dict]:
    from streamlit.testing.v1 import AppTest

    rows = []
    for info in registry.all_pages():
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300).run()
        if info is not registry.HOME:
            at.switch_page(info.path).run()
        times = []
        for _ in range(3):  # warm caches: this is what a slider move costs on the server
            start = time.perf_counter()
            at.run()
            times.append(time.perf_counter() - start)
        rows.append({"page": info.url_path, "script_s": statistics.median(times)})
    return rows


# Timestamps, in the page's own clock, of the key press, of every script-state change, and of every other change
# to the page (Plotly redraws the figure after the run has finished). Playwright's polling can miss a short
# "running" phase, a MutationObserver cannot.
STATE_LOGGER = """() => {
  window.__log = [];
  new MutationObserver(ms => { for (const m of ms) window.__log.push([performance.now(),
      m.attributeName === 'data-test-script-state' ? m.target.getAttribute('data-test-script-state') : 'change']) })
    .observe(document.querySelector('[data-testid=stApp]'),
             {attributes: true, childList: true, characterData: true, subtree: true});
  document.addEventListener('keydown', () => window.__log.push([performance.now(), 'keydown']), true);
}"""


MOVES = 30


def bench_browser(rows: list[dict]) -> dict | None:
    from devtools.streamlit_server import CHROMIUM_FLAGS, chromium_path, streamlit_server, wait_until_idle

    chromium = chromium_path()
    if chromium is None:
        print("chromium not found: skipping the browser measurements")
        return None
    from playwright.sync_api import sync_playwright

    by_page = {r["page"]: r for r in rows}
    with streamlit_server() as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        received = []
        page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: received.append(len(frame))))
        page.goto(f"{url}/home")  # first load pays for the app's JavaScript, not a page
        wait_until_idle(page)
        for info in registry.all_pages():
            received.clear()
            page.goto(f"{url}/{info.url_path}")
            wait_until_idle(page)
            by_page[info.url_path]["payload_bytes"] = sum(received)

        page.goto(f"{url}/sinusoidal")
        wait_until_idle(page)
        page.evaluate(STATE_LOGGER)
        thumb = page.locator('.ls-range, [data-testid="stSlider"] input[type="range"]').first  # n is a drag slider
        finished, settled = [], []
        for step in range(MOVES):
            page.evaluate("() => { window.__log = [] }")
            thumb.focus()
            thumb.press("ArrowRight" if step % 2 == 0 else "ArrowLeft")
            page.wait_for_timeout(1500)
            log = page.evaluate("() => window.__log")
            pressed = next(t for t, event in log if event == "keydown")
            done = [t for t, event in log if event == "notRunning"]
            if done:  # key down -> the run has finished and every element is on the page
                finished.append(done[-1] - pressed)
                settled.append(max(t for t, _ in log) - pressed)  # ... and the last thing on it stopped changing
        browser.close()
    return {"sinusoidal_slider_finished_ms_median": statistics.median(finished),
            "sinusoidal_slider_settled_ms_median": statistics.median(settled),
            "sinusoidal_slider_finished_ms_all": [round(t, 1) for t in finished],
            "sinusoidal_slider_settled_ms_all": [round(t, 1) for t in settled]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-browser", action="store_true")
    parser.add_argument("--json", type=Path, default=ROOT / "bench" / "results" / "latest.json")
    args = parser.parse_args()

    results = {"sinusoidal": bench_sinusoidal(), "rope": bench_rope()}
    s = results["sinusoidal"]
    print(f"sinusoidal(8192, 1024), bit-identical: {1e3 * s['sinusoidal_s']:.1f} ms vs the machine's float64 "
          f"sin+cos limit {1e3 * s['limit_s']:.1f} ms -> {s['ratio']:.2f}x (aim <= 1.3x); numpy float64 sin+cos "
          f"{1e3 * s['numpy_float64_sincos_s']:.1f} ms; bare float32 sin+cos {1e3 * s['bare_sincos_s']:.1f} ms "
          f"-> {s['ratio_float32']:.2f}x")
    r = results["rope"]
    if r:
        print(f"apply_rope torch {r['shape']}: {1e3 * r['apply_rope_s']:.1f} ms vs transformers "
              f"{1e3 * r['transformers_s']:.1f} ms -> {r['ratio']:.2f}x (aim <= 1.0x, {r['threads']} threads)")
    pages = bench_pages()
    results["pages"] = pages
    if not args.no_browser:
        results["browser"] = bench_browser(pages)
    print(f"\n{'page':<24}{'script (ms)':>12}{'payload (KB)':>14}")
    for row in pages:
        payload = row.get("payload_bytes")
        kib = "" if payload is None else f"{payload / 1024:.1f}"
        print(f"{row['page']:<24}{1e3 * row['script_s']:>12.1f}{kib:>14}")
    if results.get("browser"):
        b = results["browser"]
        print(f"\nSinusoidal slider move, median of {len(b['sinusoidal_slider_finished_ms_all'])} key presses: run "
              f"finished after {b['sinusoidal_slider_finished_ms_median']:.0f} ms, page settled (figure redrawn) after "
              f"{b['sinusoidal_slider_settled_ms_median']:.0f} ms (aim < 200 ms)")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2))
    print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
