"""What one element of each kind adds to a slider move's server CPU, when everything is cached. Not a test.

    python bench/element_costs.py              # every kind, 10 copies each
    python bench/element_costs.py --kinds chart drag_slider --count 20

bench/floor.py says a lesson's cached move costs about 2.5 times a bare Streamlit fragment with as many elements;
this says which elements make the difference. For each kind in bench/element_costs_app.py (a caption, a drag
slider, a chart through the kit, a question, a formula, a notice, a folded section) it serves a fragment with one
driving slider and N copies of that kind, moves the slider there and back (bench/floor.py's student), and divides
the server CPU per move beyond the fragment with none by N.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from floor import Mover, bare_process  # noqa: E402  (bench/ is on sys.path: this script lives there)

KINDS = ("caption", "drag_slider", "chart", "question", "formula", "notice", "folded")


def cpu_per_move(kind: str, count: int, moves: int) -> dict:
    env = {"POSENC_ELEMENT_KIND": kind, "POSENC_ELEMENT_COUNT": str(count)}
    with bare_process("element_costs_app.py", env=env) as (url, pid):
        return asyncio.run(Mover(url, "").moves(moves, pid))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kinds", nargs="*", default=list(KINDS), choices=KINDS)
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--moves", type=int, default=60)
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    none = cpu_per_move("caption", 0, args.moves)
    print(f"{'the driving slider alone':<28}{none['cpu_ms']:6.1f} ms CPU / move  {none['messages']:5.1f} messages")
    for kind in args.kinds:
        row = cpu_per_move(kind, args.count, args.moves)
        each = (row["cpu_ms"] - none["cpu_ms"]) / args.count
        extra = (row["messages"] - none["messages"]) / args.count
        print(f"{kind:<28}{row['cpu_ms']:6.1f} ms CPU / move with {args.count}: {each:5.2f} ms and "
              f"{extra:4.1f} messages each, {(row['kb'] - none['kb']) / args.count:6.1f} KB each", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
