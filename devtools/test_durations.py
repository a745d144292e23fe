"""Where a test run's time goes, by layer and by file, from pytest's JUnit XML.

    python -m pytest -n 2 --dist loadfile --junitxml=/tmp/run.xml
    python -m devtools.test_durations /tmp/run.xml [--files 25]

Prints two markdown tables (the form of tests/README.md): seconds of test time per layer and per file, with the
number of tests. Test time is the sum over both workers; the run's wall time is about half of it plus the
collection. Each file's layer is read from its source, as tests/conftest.py marks it, with the slow families that
are not pages or browsers (deploy, lab, real models) named apart.
"""

from __future__ import annotations

import argparse
import collections
import xml.etree.ElementTree as ET
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests"
FAMILIES = {"test_deploy": "deploy", "test_lab": "lab", "test_drope": "lab", "test_real": "real models"}


def layer(module: str) -> str:
    """browser / pages (AppTest) / kit / core, as tests/conftest.py decides, or a named family."""
    for prefix, family in FAMILIES.items():
        if module == prefix or module.startswith(prefix + "_"):
            return family
    source = (TESTS / f"{module}.py").read_text(encoding="utf-8")
    if "pytest.mark.browser" in source or "browser_views" in source:
        return "browser"
    if "AppTest" in source or "apptest_pages" in source:
        return "pages (AppTest)"
    return "kit" if "page_kit" in source else "core"


def table(rows, header: tuple[str, str, str]) -> str:
    lines = [f"| {header[0]} | {header[1]} | {header[2]} |", "|---|---:|---:|"]
    lines += [f"| {name} | {seconds:,.0f} | {count:,} |" for name, seconds, count in rows]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit", type=Path)
    parser.add_argument("--files", type=int, default=25, help="how many of the slowest files to list")
    args = parser.parse_args()
    seconds, counts = collections.Counter(), collections.Counter()
    for case in ET.parse(args.junit).getroot().iter("testcase"):
        module = case.get("classname", "").split(".")[1] if case.get("classname", "").startswith("tests.") else "?"
        seconds[module] += float(case.get("time") or 0)
        counts[module] += 1
    by_layer, layer_counts = collections.Counter(), collections.Counter()
    for module, value in seconds.items():
        by_layer[layer(module)] += value
        layer_counts[layer(module)] += counts[module]
    total = sum(seconds.values())
    print(table([(name, value, layer_counts[name]) for name, value in by_layer.most_common()]
                + [("**all**", total, sum(counts.values()))], ("layer", "seconds", "tests")))
    print()
    print(table([(f"`{module}.py` ({layer(module)})", value, counts[module])
                 for module, value in seconds.most_common(args.files)], ("file", "seconds", "tests")))


if __name__ == "__main__":
    main()
