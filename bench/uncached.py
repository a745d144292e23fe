"""Core calls a rerun pays again: posenc_core calls a page makes outside its caches, per page and tab. Not a test.

    python bench/uncached.py                 # every page, every tab
    python bench/uncached.py --pages latent_attention rope --min-ms 1

A slider move reruns the lesson; what its cached functions (`st.cache_data`) computed before comes back from the
cache, but a core call made straight from the page runs again on every move, for every student. This loads each
page in AppTest, opens each of its tabs, reruns that view once with nothing changed (so every cache entry it
needs is warm) and times each `pc.<name>(...)` call the rerun still makes. Calls under --min-ms are left out:
reading one entry or one formula is cheaper than a cache lookup. bench/floor.py measures what such calls cost a
whole move; this says which call it is.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import posenc_core as pc  # noqa: E402
from page_kit import registry  # noqa: E402
from tests.apptest_pages import load, open_tab, tab_groups  # noqa: E402

CALLS: list[tuple[str, float]] = []  # (core function, seconds) made since the list was last emptied


def _timed(name: str, function):
    @functools.wraps(function)
    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            CALLS.append((name, time.perf_counter() - start))
    return timed


def instrument() -> None:
    """Time every public function the pages reach as ``pc.<name>`` (the diffusion section's too)."""
    names = {name: getattr(pc, name) for name in dir(pc) if not name.startswith("_")}
    names.update({name: getattr(pc.diffusion, name) for name in getattr(pc.diffusion, "__all__", ())})
    for name, obj in names.items():
        if inspect.isfunction(obj) and obj.__module__.startswith("posenc_core"):
            setattr(pc, name, _timed(name, obj))


def views(info):
    """Each view of the page: (tab label or "", the AppTest after it was opened and rerun once)."""
    at = load(info)
    groups = tab_groups(at)
    yield "", at
    for key, labels in groups.items():
        for label in labels[1:]:  # the first tab is the view the page opened on
            yield label, open_tab(at, key, label)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", nargs="*", help="url paths (default: every page)")
    parser.add_argument("--min-ms", type=float, default=2.0)
    args = parser.parse_args()
    instrument()
    pages = [p for p in registry.all_pages() if not args.pages or p.url_path in args.pages]
    worst: dict[str, float] = defaultdict(float)
    for info in pages:
        for label, at in views(info):
            CALLS.clear()
            at.run()  # the same view again: every cache it needs is warm now
            slow = [(name, 1000 * s) for name, s in CALLS if 1000 * s >= args.min_ms]
            total = sum(1000 * s for _, s in CALLS)
            where = f"{info.url_path}" + (f" / {label}" if label else "")
            worst[where] = total
            if slow:
                print(f"{where}: {total:.1f} ms in {len(CALLS)} uncached core calls; over {args.min_ms:g} ms: "
                      + ", ".join(f"{name} {ms:.1f}" for name, ms in sorted(slow, key=lambda x: -x[1])), flush=True)
    top = sorted(worst.items(), key=lambda x: -x[1])[:10]
    print("\nmost time in uncached core calls per rerun: " + ", ".join(f"{w} {ms:.1f} ms" for w, ms in top))


if __name__ == "__main__":
    main()
