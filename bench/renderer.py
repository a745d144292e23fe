"""Where the browser's time goes: Chromium's renderer on a reader's walk through some lessons and their tabs.

    python bench/renderer.py                                   # 8 lessons, 3 passes
    python bench/renderer.py --pages order rope --passes 2 --profile

One warm app server and one headless Chromium page (1,400 x 900, light). A warm-up pass fills the server's caches;
then each pass opens every lesson by its sidebar link and every tab of it, each action waited on until the page has
settled (devtools/streamlit_server.settle_after), and prints the renderer's main-thread time for the pass from
Chrome's own counters (TaskDuration, and its script, layout and style parts). ``--profile`` samples the renderer's
JavaScript during the last pass and prints the self time per script and the inclusive time of React's, Plotly's and
the chart element's work. Not a test: the figures depend on the machine and its load, printed before and after.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from devtools.streamlit_server import CHROMIUM_FLAGS, chromium_path, settle_after, streamlit_server  # noqa: E402
from tests import a11y_audit  # noqa: E402

PAGES = ["extension", "alibi", "rope_relative", "kv_cache", "order", "sinusoidal", "mm_pair_axes", "porting_bugs"]
COUNTERS = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")


def walk(page, paths: list[str]) -> None:
    """Every lesson by its sidebar link, then each of its later tabs."""
    for path in paths:
        link = page.locator(f'[data-testid="stSidebarContent"] .st-key-lesson_nav a[href="{path}"]')
        settle_after(page, lambda link=link: link.dispatch_event("click"))
        tabs = page.locator('[data-testid="stMain"] [role="tab"]')
        for index in range(1, tabs.count()):
            settle_after(page, tabs.nth(index).click)


def _script(url: str) -> str:
    """A script's file name; the chart element (page_kit/chart/plotly_element.js) runs from a blob: address."""
    return "plotly_element.js (chart element)" if url.startswith("blob:") else url.rsplit("/", 1)[-1]


def by_script(profile: dict) -> tuple[collections.Counter, collections.Counter, float]:
    """(self ms per script file, inclusive ms per script file, all sampled ms) of a CDP CPU profile."""
    nodes = {node["id"]: node for node in profile["nodes"]}
    parent = {child: node["id"] for node in profile["nodes"] for child in node.get("children", [])}
    sampled: collections.Counter = collections.Counter()
    for sample, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        sampled[sample] += delta / 1000
    own, inclusive = collections.Counter(), collections.Counter()
    for node_id, ms in sampled.items():
        frame = nodes[node_id]["callFrame"]
        own[_script(frame["url"]) or frame["functionName"]] += ms
        seen, at = set(), node_id
        while at is not None:
            script = _script(nodes[at]["callFrame"]["url"])
            if script and script not in seen:
                inclusive[script] += ms
                seen.add(script)
            at = parent.get(at)
    busy = sum(ms for name, ms in own.items() if name != "(idle)")
    return own, inclusive, busy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", nargs="*", default=PAGES, help="url paths of lessons")
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="sample the renderer's JavaScript in the last pass")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    view = a11y_audit.VIEW_NAMES["light"]
    with sync_playwright() as pw, streamlit_server() as url:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        context = a11y_audit.new_context(browser, view)
        page = context.new_page()
        a11y_audit.open_page(page, url, args.pages[0], view)
        walk(page, args.pages)  # warms the server's caches
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable")

        def counters() -> dict[str, float]:
            return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}

        for number in range(1, args.passes + 1):
            profiling = args.profile and number == args.passes
            if profiling:
                cdp.send("Profiler.enable")
                cdp.send("Profiler.setSamplingInterval", {"interval": 200})
                cdp.send("Profiler.start")
            before, start = counters(), time.perf_counter()
            walk(page, args.pages)
            after = counters()
            print(f"pass {number}: wall {time.perf_counter() - start:.1f} s, renderer main thread "
                  + ", ".join(f"{name.removesuffix('Duration').lower()} {after[name] - before[name]:.2f} s"
                              for name in COUNTERS))
            if profiling:
                own, inclusive, busy = by_script(cdp.send("Profiler.stop")["profile"])
                print(f"sampled JavaScript and native work: {busy / 1000:.1f} s; self time by script:")
                for name, ms in own.most_common(12):
                    if name != "(idle)":
                        print(f"  {ms / 1000:6.2f} s  {100 * ms / busy:4.1f} %  {name}")
                print("inclusive (work under the script's frames):")
                for name, ms in inclusive.most_common(8):
                    print(f"  {ms / 1000:6.2f} s  {100 * ms / busy:4.1f} %  {name}")
        browser.close()
    print(f"load average (1 min) {load_before:.1f} before, {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main()
