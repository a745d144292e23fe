"""Run a test command several times while every core is kept busy, and say whether any test changed its result.

    python -m devtools.under_load --runs 3 -- -n 2 --dist loadfile -m browser

Starts one busy-looping process per core (os.cpu_count(), or --burners), runs `python -m pytest <args>` --runs
times in a row with a JUnit report each, and prints each run's counts, wall time and load average, then every
test whose outcome was not the same in all runs. Exits 1 if any test changed or any run failed. A test whose
result depends on how busy the machine is shows up here; tests/README.md records the last such check.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _burn() -> None:  # pragma: no cover (a child process that spins until it is terminated)
    while True:
        pass


def outcomes(junit: Path) -> dict[str, str]:
    """test id -> passed / failed / error / skipped, from pytest's JUnit XML."""
    found = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        name = f"{case.get('classname')}::{case.get('name')}"
        kinds = [child.tag for child in case if child.tag in ("failure", "error", "skipped")]
        found[name] = kinds[0] if kinds else "passed"
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--burners", type=int, default=os.cpu_count() or 2)
    parser.add_argument("pytest_args", nargs=argparse.REMAINDER, help="after --: the arguments for pytest")
    args = parser.parse_args()
    pytest_args = [a for a in args.pytest_args if a != "--"]
    burners = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(args.burners)]
    for burner in burners:
        burner.start()
    results, codes = [], []
    try:
        with tempfile.TemporaryDirectory() as folder:
            for run in range(args.runs):
                junit = Path(folder) / f"run{run}.xml"
                start, load = time.monotonic(), os.getloadavg()[0]
                code = subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                        f"--junitxml={junit}", *pytest_args], cwd=ROOT)
                results.append(outcomes(junit))
                codes.append(code)
                counts = {kind: list(results[-1].values()).count(kind) for kind in sorted(set(results[-1].values()))}
                print(f"run {run + 1}: exit {code}, {counts}, {time.monotonic() - start:.0f} s, load average "
                      f"{load:.1f} at the start and {os.getloadavg()[0]:.1f} at the end "
                      f"({args.burners} burners on {os.cpu_count()} cores)", flush=True)
    finally:
        for burner in burners:
            burner.terminate()
    names = sorted(set().union(*results))
    changed = [name for name in names if len({result.get(name, "absent") for result in results}) > 1]
    for name in changed:
        print(f"CHANGED {name}: {[result.get(name, 'absent') for result in results]}")
    print(f"{len(names)} tests, {len(changed)} changed their result across {args.runs} loaded runs")
    return 1 if changed or any(codes) else 0


if __name__ == "__main__":
    sys.exit(main())
