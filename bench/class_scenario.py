"""bench/load.py --class N: a live class of N students on two replicas that share one Redis.

A teacher starts a room (the store's own call, what the Start button does); N protocol-level students
(Streamlit's BackMsg/ForwardMsg over /_stcore/stream, through nginx with its sticky cookie, as bench/st_client.py)
open the lesson with the join link, then each answers its predict-then-reveal question at a random moment of
the answer window. Halfway through the window one replica is stopped and started again on its port: its students'
websockets drop, and like a browser they reconnect (the proxy sends them to the replica that is up) with the
same URL (room and seat), rejoin the same seat and answer again if their answer was not saved. With --stall-store S
Redis is frozen (SIGSTOP) for S seconds from the window's middle instead: the pages keep the answers they could not
write and their poll (the fragment timer a browser runs every second, which the students here run too) writes them
once Redis is back; a student counts as done when the page says "is saved". The teacher's
count (the store's call behind the count next to the question) is read every 50 ms; the run reports when it was
complete, and checks that it ends at exactly N: none lost, none doubled.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request

import websockets
from st_client import FINISHED, RUN_TIMEOUT_S, sticky_cookie
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from deploy.local_proxy import CONTAINER_ENV, ROOT, wait_healthy
from live_class import Classroom, ClassUnreachable
from live_class.redis_store import RedisStore

PAGE, QUESTION = "order", "order_rows"  # the question beside the lesson's first figure


class ClassStudent:
    def __init__(self, url: str, code: str, seat: str, rng: random.Random):
        self.url, self.rng, self.seat = url, rng, seat  # a seat the server signed, as the join link's first run makes
        self.query = urllib.parse.urlencode({"room": code, "seat": self.seat})
        self.confirmed = False  # the page said "is saved": the store has the answer
        self.page_hash = ""     # the page st.navigation ran: a browser sends it back with every run
        self.timers: list[str] = []  # fragments a browser reruns every second: the class poll, the answer's note
        self.reconnects = 0
        self.errors: list[str] = []

    def _cookie(self) -> str:
        return sticky_cookie(f"{self.url}/{PAGE}?{self.query}")

    async def _run(self, ws, radio: dict | str | None = None, fragment: str = "") -> int:
        """One rerun (the page, or the radio's fragment with its new value); its script_finished status."""
        msg = BackMsg()
        msg.rerun_script.page_name, msg.rerun_script.query_string = PAGE, self.query
        msg.rerun_script.page_script_hash = self.page_hash
        if radio == "timer":
            msg.rerun_script.fragment_id = fragment
            widget = msg.rerun_script.widget_states.widgets.add()
            widget.id, widget.string_value = self.radio["id"], self.radio["options"][self.radio["choice"]]
        elif radio:
            msg.rerun_script.fragment_id = radio["fragment"]
            widget = msg.rerun_script.widget_states.widgets.add()
            widget.id, widget.string_value = radio["id"], radio["options"][radio["choice"]]
        await ws.send(msg.SerializeToString())
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await asyncio.wait_for(ws.recv(), RUN_TIMEOUT_S))
            kind = forward.WhichOneof("type")
            if kind == "navigation":
                self.page_hash = forward.navigation.page_script_hash
            elif kind == "auto_rerun" and forward.auto_rerun.fragment_id not in self.timers:
                self.timers.append(forward.auto_rerun.fragment_id)
            elif kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                element = forward.delta.new_element
                which = element.WhichOneof("type")
                if which == "radio" and element.radio.id.endswith(f"predict_{QUESTION}"):
                    # a redraw keeps the choice made before it
                    self.radio = {**(self.radio or {}), "id": element.radio.id,
                                  "fragment": forward.delta.fragment_id, "options": list(element.radio.options)}
                elif which == "markdown" and "is saved" in element.markdown.body:
                    self.saved = True
                elif which == "exception" or (which == "alert" and element.alert.format == element.alert.ERROR):
                    self.errors.append((element.exception.message or element.alert.body)[:100])
            elif kind == "script_finished":
                if forward.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    return forward.script_finished

    async def attend(self, answer_at: float, stop_at: float) -> None:
        """Open the join link, answer at answer_at; reconnect (same URL, same seat) after any drop."""
        while not self.confirmed and time.monotonic() < stop_at:
            try:
                cookie = await asyncio.to_thread(self._cookie)
                ws_url = self.url.replace("http", "ws", 1) + "/_stcore/stream"
                async with websockets.connect(ws_url, subprotocols=["streamlit"], max_size=None,
                                              additional_headers={"Cookie": cookie} if cookie else {}) as ws:
                    self.radio = None
                    if await self._run(ws) not in FINISHED or self.radio is None:
                        self.errors.append("the lesson's question did not load")
                        return
                    await asyncio.sleep(max(0.0, answer_at - time.monotonic()))
                    self.radio = dict(self.radio, choice=self.rng.randrange(len(self.radio["options"])))
                    self.saved = False
                    await self._run(ws, self.radio)
                    while not self.saved and time.monotonic() < stop_at:  # "saving": the poll retries it
                        await asyncio.sleep(1.0)
                        for timer in list(self.timers):  # as the browser's timers: the poll, then the note
                            await self._run(ws, "timer", timer)
                    self.confirmed = self.saved
                    await asyncio.sleep(max(0.0, min(2.0, stop_at - time.monotonic())))  # stay a moment, as in class
            except (OSError, websockets.exceptions.WebSocketException, asyncio.TimeoutError):
                self.reconnects += 1
                await asyncio.sleep(0.5 + self.rng.random())  # a browser's reconnect back-off


@contextlib.asynccontextmanager
async def stalled(server, at: float, seconds: float, log: list[str]):
    """Freeze the Redis server (deploy.local_redis.RedisProcess) at `at` for `seconds`, as a stalled host does."""
    async def cycle() -> None:
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        server.pause()
        await asyncio.sleep(seconds)
        server.resume()
        log.append(f"Redis frozen (SIGSTOP) for {seconds:.0f} s from the window's middle")

    task = asyncio.create_task(cycle())
    try:
        yield
    finally:
        await task


@contextlib.asynccontextmanager
async def restarted(replica_url: str, pid: int, at: float, log: list[str]):
    """Stop the replica `pid` at `at` (SIGTERM, as Kubernetes does) and start it again on its port."""
    async def cycle() -> subprocess.Popen:
        await asyncio.sleep(max(0.0, at - time.monotonic()))
        os.kill(pid, signal.SIGTERM)
        stopped = time.monotonic()
        while os.path.exists(f"/proc/{pid}") and time.monotonic() - stopped < 15:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
            await asyncio.sleep(0.1)
        port = replica_url.rsplit(":", 1)[1]
        proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", port,
                                 "--server.address", "127.0.0.1"], cwd=ROOT, env={**os.environ, **CONTAINER_ENV},
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        await asyncio.to_thread(wait_healthy, replica_url, 120, proc)
        log.append(f"replica {replica_url} stopped {stopped - at:.1f} s after the window's middle (SIGTERM), "
                   f"healthy again {time.monotonic() - stopped:.1f} s later")
        return proc

    task = asyncio.create_task(cycle())
    try:
        yield
    finally:
        proc = await task
        proc.terminate()
        proc.wait(timeout=15)


async def run_class(url: str, redis, replicas: list[tuple[str, int]], n: int, window_s: float,
                    seed: int, stall_s: float = 0.0) -> dict:
    """``redis``: the RedisProcess every replica shares; ``stall_s`` > 0 freezes it instead of restarting a replica."""
    room = Classroom(RedisStore(redis.url, 3600))
    code, _key = room.start()
    rng = random.Random(seed)
    start = time.monotonic() + 2.0 + n / 20  # arrivals first (a join link opened by everyone in the room)
    window_end = start + window_s
    students = [ClassStudent(url, code, room.new_seat(), random.Random(rng.random())) for _ in range(n)]
    complete_at, log = None, []

    async def teacher() -> None:
        nonlocal complete_at
        while time.monotonic() < window_end + 60:
            with contextlib.suppress(ClassUnreachable):  # the teacher's count waits out a frozen Redis too
                if sum(room.counts(code, QUESTION, 3)) >= n and complete_at is None:
                    complete_at = time.monotonic()
                    return
            await asyncio.sleep(0.05)

    disrupt = (stalled(redis, start + window_s / 2, stall_s, log) if stall_s
               else restarted(*replicas[1], at=start + window_s / 2, log=log))
    async with disrupt:
        watcher = asyncio.create_task(teacher())
        await asyncio.gather(*(s.attend(start + rng.uniform(0, window_s), window_end + 60) for s in students))
        await asyncio.wait_for(watcher, 65)
    counts = room.counts(code, QUESTION, 3)
    return {"n": n, "counted": sum(counts), "seats": room.room(code).seats, "counts": counts,
            "complete_s": None if complete_at is None else complete_at - start,
            "after_window_s": None if complete_at is None else complete_at - window_end,
            "confirmed": sum(s.confirmed for s in students), "reconnects": sum(s.reconnects for s in students),
            "students_reconnected": sum(s.reconnects > 0 for s in students),
            "errors": [e for s in students for e in s.errors], "log": log}


def report(row: dict, window_s: float) -> None:
    ok = row["counted"] == row["n"] == row["seats"]
    print(f"| {row['n']} | {window_s:.0f} s | {row['counted']} ({', '.join(map(str, row['counts']))}) | "
          f"{row['seats']} | {'-' if row['complete_s'] is None else format(row['complete_s'], '.1f')} s | "
          f"{'-' if row['after_window_s'] is None else format(row['after_window_s'], '+.1f')} s | "
          f"{row['students_reconnected']} ({row['reconnects']}) | {len(row['errors'])} | "
          f"{'none lost, none doubled' if ok else 'MISMATCH'} |", flush=True)
    for line in row["log"]:
        print(f"    {line}")
    for error in sorted(set(row["errors"]))[:5]:
        print(f"    error: {error}")


HEADER = ("| students | answer window | answers counted (per option) | seats | teacher's count complete, from the "
          "window's start | after the window's end | students who reconnected (reconnects) | errors | result |\n"
          "|---|---|---|---|---|---|---|---|---|")
