"""The server's cost of a slider move when everything it shows is already cached: the floor under bench/load.py.

    python bench/floor.py                       # every lesson page with a slider
    python bench/floor.py --pages sinusoidal rope --moves 60
    python bench/floor.py --fresh               # every move to a stop not asked for before: the cost of a miss

One protocol-level student (bench/st_client.py) per page opens it, then moves the page's first slider one stop
right and back, again and again: after the first two moves every view it asks for is in the figure cache and in
`st.cache_data`, and every frame ahead of the hand has been sent. The server CPU the process spends per move from
then on (utime + stime from /proc, nothing else runs in the process) is what Streamlit and the kit cost for a
move that computes nothing: the least a run can cost, however well views are shared. In the same run it measures,
the same way, a bare Streamlit fragment with one slider, the same fragment with as many captions as the pages'
median move sends messages (`bench/bare_elements_app.py`), and the quick one-heatmap app (`bench/baseline_app.py`).

The last line turns the median into students: at `bench/load.py`'s pace (a move every 3-7 s, so 0.2 runs a
second per student) one core of Python (a process holds the GIL) serves at most 1 / (0.2 x CPU per run)
students at 100% busy; a p95 under 300 ms needs the core well under full. Not a test.

With --fresh the slider walks one way instead, a stop a move, so every move asks for a view nobody asked for
before (the frame ahead of the hand, built once the hand has moved twice, is the only help it gets): what a
page's move costs when the caches miss, as a quarter of bench/load.py's random walk does. The bare apps are
not run then.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import websockets

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from st_client import DragSliderState, Student, Tally  # noqa: E402  (bench/ is on sys.path: this script lives there)

from deploy.local_proxy import app_processes, free_port, wait_healthy  # noqa: E402
from page_kit import registry  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
RUNS_PER_STUDENT_S = 1 / 5  # bench/load.py: a move every 3-7 s
BARE_MESSAGES = 7  # what a bare fragment with one slider sends per rerun (the run's own messages and the slider)


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


class Mover(Student):
    """A student that moves one slider there and back, and counts what each move brings back."""

    def __init__(self, base_url: str, page: str, fresh: bool = False) -> None:
        super().__init__(base_url, [page], random.Random(0), Tally())
        self.start: float | None = None  # the stop left of the pair the slider moves between (index or value)
        self.right = False  # where the last move went
        self.fresh = fresh  # walk one way, a new stop each move (--fresh)
        self.back = False  # with fresh: walking towards the low end
        self.at: float | None = None  # with fresh: where the slider was sent last

    async def moves(self, count: int, pid: int, warm: int = 4) -> dict | None:
        ws_url = self.base_url.replace("http", "ws", 1) + "/_stcore/stream"
        async with websockets.connect(ws_url, subprotocols=["streamlit"], max_size=None) as ws:
            reader = asyncio.create_task(self._read(ws))
            try:
                await self._rerun(ws, "first")
                await asyncio.sleep(0.3)
                movable = [s for s in self.sliders.values() if s.movable]
                if not movable:
                    return None
                slider = next((s for s in movable if isinstance(s, DragSliderState)), movable[0])
                for _ in range(warm):
                    await self._move(ws, slider)
                cpu0, bytes0, messages0, t0 = cpu_s(pid), self.tally.bytes_in, self.tally.messages, time.perf_counter()
                for _ in range(count):
                    await self._move(ws, slider)
                elapsed = time.perf_counter() - t0
                cpu = cpu_s(pid) - cpu0
            finally:
                reader.cancel()
        if self.tally.errors:
            raise RuntimeError(f"{self.page}: {self.tally.errors}")
        return {"cpu_ms": 1000 * cpu / count, "wall_ms": 1000 * elapsed / count,
                "kb": (self.tally.bytes_in - bytes0) / 1024 / count,
                "messages": (self.tally.messages - messages0) / count}

    async def _move(self, ws, slider) -> None:
        """One stop right of where the slider started, then back: the same two views, cached after the first pair.
        With ``fresh``, one stop further each time, turning at the ends."""
        # each run's reply brings the slider's element again, and _read keeps its new state: move that one (the
        # state picked before the first move is stale by now, and moving it sent the slider where it stood)
        slider = self.sliders.get(slider.id.split("-", 2)[-1], slider)
        if self.fresh:
            if isinstance(slider, DragSliderState):
                low, high, at, step = 0, len(slider.texts) - 1, slider.index, 1
            else:
                low, high, at, step = slider.low, slider.high, slider.values[0], slider.step
            at = at if self.at is None else self.at  # a Streamlit slider's element carries its default only
            if not low <= at + step * (-1 if self.back else 1) <= high:  # turn at the end
                self.back = not self.back
            at += step * (-1 if self.back else 1)
            self.at = at
            if isinstance(slider, DragSliderState):
                slider.index = at
            else:
                slider.values[0] = at
            await self._moved(ws, slider)
            return
        self.right = not self.right
        if isinstance(slider, DragSliderState):
            if self.start is None:
                self.start = slider.index if slider.index + 1 < len(slider.texts) else slider.index - 1
            slider.index = self.start + self.right
        else:
            if self.start is None:
                value = slider.values[0]
                self.start = value if value + slider.step <= slider.high else value - slider.step
            slider.values[0] = self.start + slider.step * self.right
        await self._moved(ws, slider)

    async def _moved(self, ws, slider) -> None:
        """Send the move, and check that the server drew a drag slider where it was sent (its element says where
        it stands; a Streamlit slider's carries only its default)."""
        await self._rerun(ws, "move", slider)
        drawn = self.sliders.get(slider.id.split("-", 2)[-1])
        if isinstance(slider, DragSliderState) and isinstance(drawn, DragSliderState) and drawn.index != slider.index:
            raise RuntimeError(f"{self.page}: a move sent the slider to stop {slider.index}, the server drew it at "
                               f"stop {drawn.index}")


def measure(url: str, pid: int, pages: list[str], moves: int, label: str | None = None,
            fresh: bool = False) -> dict[str, dict]:
    results = {}
    for page in pages:
        row = asyncio.run(Mover(url, page, fresh).moves(moves, pid))
        if row:
            results[page] = row
            print(f"{label or page:<22} {row['cpu_ms']:6.1f} ms CPU / move  {row['wall_ms']:6.1f} ms wall  "
                  f"{row['kb']:6.1f} KB  {row['messages']:5.1f} messages", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", nargs="*", help="url paths (default: every lesson page)")
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--fresh", action="store_true", help="every move to a new stop: the cost of a miss")
    args = parser.parse_args()
    pages = args.pages or [p.url_path for p in registry.all_pages() if p is not registry.HOME]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with app_processes(1, ["--server.headless", "true"]) as [(url, pid)]:
        for page in pages[:3]:  # first visits import the lessons' modules: not what a move costs
            asyncio.run(Mover(url, page).moves(2, pid, warm=0))
        ours = measure(url, pid, pages, args.moves, fresh=args.fresh)
    cpus = [r["cpu_ms"] for r in ours.values()]
    cpu, messages = statistics.median(cpus), statistics.median(r["messages"] for r in ours.values())
    if args.fresh:
        ranked = sorted(ours, key=lambda page: -ours[page]["cpu_ms"])
        print(f"\nmedian of {len(ours)} pages: {cpu:.1f} ms of server CPU per move to a new stop (mean "
              f"{statistics.mean(cpus):.1f}); the most: "
              + ", ".join(f"{page} {ours[page]['cpu_ms']:.0f}" for page in ranked[:8]))
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return
    bare = {}
    for name, script, elements in (("bare fragment, slider only", "bare_elements_app.py", 0),
                                   (f"bare fragment, slider + {messages - BARE_MESSAGES:.0f} captions",
                                    "bare_elements_app.py", int(messages - BARE_MESSAGES)),
                                   ("the quick Streamlit app (bench/baseline_app.py)", "baseline_app.py", 0)):
        with bare_process(script, {"POSENC_BARE_ELEMENTS": str(elements)}) as (url, pid):
            bare[name] = measure(url, pid, [""], args.moves, label=name)[""]
    print(f"\nmedian of {len(ours)} pages: {cpu:.1f} ms of server CPU per cached move (lowest {min(cpus):.1f}, "
          f"highest {max(cpus):.1f}), {messages:.0f} messages a move")
    for name, row in bare.items():
        print(f"{name}: {row['cpu_ms']:.1f} ms, {row['messages']:.0f} messages")
    students = 1000 / (RUNS_PER_STUDENT_S * cpu)
    print(f"at a move every 5 s, one process at 100% of a core serves at most {students:.0f} students with every "
          f"view cached; as many elements in a bare fragment: at most "
          f"{1000 / (RUNS_PER_STUDENT_S * list(bare.values())[1]['cpu_ms']):.0f}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


@contextlib.contextmanager
def bare_process(script: str, env: dict[str, str] | None = None):
    """A bench/ script served like the app (one process, no file watcher, no per-run collection, static files
    served as the kit's chart element needs), with ``env`` added to its environment: (url, pid)."""
    port = free_port()
    env = {**os.environ, **(env or {})}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(ROOT / "bench" / script),
                             "--server.port", str(port), "--server.address", "127.0.0.1", "--server.headless", "true",
                             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
                             "--runner.postScriptGC", "false", "--server.enableStaticServing", "true"],
                            cwd=ROOT / "bench", env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(url, proc=proc)
        yield url, proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=15)


if __name__ == "__main__":
    main()
