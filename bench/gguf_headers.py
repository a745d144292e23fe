"""Time to read or refuse GGUF headers built to be slow: each hostile shape filling the 20 MiB upload cap, and
each at the parser's caps (the most work a header can ask for). A measurement, not a test.

    python bench/gguf_headers.py

Printed per header: its size, the best of three wall times of ``read_gguf_header`` and whether it was read or
refused, with the machine's load average before and after.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from devtools import gguf_crafted  # noqa: E402
from posenc_core.inference import GGUF_LIMITS, read_gguf_header  # noqa: E402


def _timed(data: bytes) -> tuple[float, str]:
    best, outcome = float("inf"), ""
    for _ in range(3):
        start = time.perf_counter()
        try:
            read_gguf_header(data)
            outcome = "read"
        except ValueError:
            outcome = "refused"
        best = min(best, time.perf_counter() - start)
    return best, outcome


def main() -> None:
    limits = GGUF_LIMITS
    at_caps = {"nested empty arrays": gguf_crafted.nested_empty_arrays(limits.nested),
               "empty strings": gguf_crafted.empty_strings(limits.strings),
               "tiny tensor infos": gguf_crafted.tiny_tensors(limits.tensors),
               "one-byte keys": gguf_crafted.many_keys(limits.keys)}
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")
    print(f"{'header':45} {'MiB':>6} {'best of 3':>10}  outcome")
    for name, (builder, item_bytes) in gguf_crafted.CRAFTED.items():
        data = gguf_crafted.filling(builder, item_bytes)
        seconds, outcome = _timed(data)
        print(f"{name + ', filling 20 MiB':45} {len(data) / 2**20:6.1f} {seconds * 1e3:8.1f} ms  {outcome}")
    for name, data in at_caps.items():
        seconds, outcome = _timed(data)
        print(f"{name + ', at the cap':45} {len(data) / 2**20:6.1f} {seconds * 1e3:8.1f} ms  {outcome}")
    load = os.getloadavg()
    print(f"load average after: {load[0]:.1f}")


if __name__ == "__main__":
    main()
