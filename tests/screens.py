"""Screenshots of lessons in the four ways people see them, to look at before calling a page done.

    python -m tests.screens sinusoidal "rope?m=5" --modes light,dark,present,phone --out /tmp/shots

Starts the app on a free loopback port, opens each page (a url_path, optionally with a query string) in
headless Chromium, and saves one tall PNG per page, mode and tab: light (1400 px wide), dark (the system
colour scheme set to dark), present (presentation mode, 1280 px, a projector) and phone (390 x 844).
Prints every exception or error box it sees. Not a test: the browser test in test_browser.py is.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from devtools.streamlit_server import CHROMIUM_FLAGS, chromium_path, streamlit_server, wait_until_idle

MODES = {  # name: (viewport width, height, colour scheme, extra query)
    "light": (1400, 900, "light", ""),
    "dark": (1400, 900, "dark", ""),
    "present": (1280, 800, "light", "present=true"),
    "phone": (390, 844, "light", ""),
}


def _tall_shot(page, path: Path, width: int, height: int) -> None:
    # Streamlit scrolls inside its main container: grow the viewport to the content for a whole-page shot.
    full = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": width, "height": min(max(height, full + 40), 12000)})
    page.wait_for_timeout(500)
    wait_until_idle(page)  # a resize can start a rerun (presentation mode): shoot what it settles on
    _wait_for_figures(page)
    page.screenshot(path=str(path))
    page.set_viewport_size({"width": width, "height": height})


def _wait_for_figures(page, timeout_ms: int = 30000) -> None:
    # a chart is drawn by its custom element after the script has finished; on a busy machine a shot taken at
    # "idle" caught empty chart boxes, so wait until every visible chart has its Plotly SVG
    try:
        page.wait_for_function("""() => [...document.querySelectorAll('[data-testid="stMain"] .pe-plot')]
            .filter((plot) => plot.offsetParent).every((plot) => plot.querySelector('.main-svg'))""",
            timeout=timeout_ms)
    except Exception as exc:  # noqa: BLE001 (a shot of a page whose chart never drew is still worth looking at)
        print(f"NOTE: a chart had not drawn after {timeout_ms / 1000:.0f} s ({type(exc).__name__})")


def _problems(page) -> list[str]:
    boxes = page.locator('[data-testid="stException"], [data-testid="stAlertContentError"]')
    return [boxes.nth(i).inner_text()[:300] for i in range(boxes.count())]


def shoot(targets: list[str], modes: list[str], out: Path, all_tabs: bool = True) -> list[Path]:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    saved = []
    with streamlit_server() as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        for mode in modes:
            width, height, scheme, query = MODES[mode]
            context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme,
                                          has_touch=mode == "phone", is_mobile=mode == "phone")
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda exc, errors=errors: errors.append(str(exc)))
            for target in targets:
                path, _, own_query = target.partition("?")
                full_query = "&".join(q for q in (own_query, query) if q)
                page.goto(f"{url}/{path}" + (f"?{full_query}" if full_query else ""), wait_until="domcontentloaded")
                wait_until_idle(page)
                _wait_for_figures(page)
                stem = f"{path or 'home'}-{mode}"
                saved.append(out / f"{stem}.png")
                _tall_shot(page, saved[-1], width, height)
                for problem in _problems(page) + errors:
                    print(f"PROBLEM {stem}: {problem}")
                errors.clear()
                if not all_tabs:
                    continue
                tabs = page.locator('[data-testid="stMain"] [role="tab"]')
                for index in range(1, tabs.count()):
                    tabs.nth(index).click()
                    wait_until_idle(page)
                    _wait_for_figures(page)
                    saved.append(out / f"{stem}--{index}.png")
                    _tall_shot(page, saved[-1], width, height)
                    for problem in _problems(page) + errors:
                        print(f"PROBLEM {stem} tab {index}: {problem}")
                    errors.clear()
            context.close()
        browser.close()
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="+", help="url_path[?query] of each page ('' for home)")
    parser.add_argument("--modes", default="light,dark,present,phone")
    parser.add_argument("--out", type=Path, default=Path("tests/artifacts/screens"))
    parser.add_argument("--first-tab-only", action="store_true")
    args = parser.parse_args()
    for path in shoot(args.targets, args.modes.split(","), args.out, all_tabs=not args.first_tab_only):
        print(path)


if __name__ == "__main__":
    main()
