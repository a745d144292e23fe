"""A simulated student at Streamlit's protocol level, for bench/load.py.

A browser talks to the server over one websocket, /_stcore/stream: it sends `BackMsg` protobufs (a rerun
request with the page and the widget values) and receives `ForwardMsg` protobufs (the page's elements, then
`script_finished`). This client sends and reads the same messages, so the server does exactly the work a
browser's session costs it, while the client itself costs a few per cent of a core for a whole class
(a headless Chromium per student would need the two cores for itself).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import urllib.request
import zlib
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider

from page_kit.runtime import element_data  # the scripts that import this module put the project root on sys.path

STICKY_COOKIE = "posenc_replica"  # set by deploy/nginx/default.conf.template


def sticky_cookie(page_url: str) -> str:
    """What the page request would leave in the browser: the proxy's sticky cookie (none without a proxy)."""
    with urllib.request.urlopen(page_url, timeout=30) as response:
        response.read()
        for header in response.headers.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            if name.strip() == STICKY_COOKIE:
                return f"{STICKY_COOKIE}={rest.split(';')[0]}"
    return ""
FINISHED = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
RUN_TIMEOUT_S = 30.0  # a run that takes longer counts as an error: a student would have given up


@dataclass
class Tally:
    """What one level of the load test observed, summed over its students."""
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"move": [], "visit": [], "first": []})
    errors: dict[str, int] = field(default_factory=dict)
    drops: int = 0
    bytes_in: int = 0
    messages: int = 0  # ForwardMsgs received (elements, blocks, the run's own messages)
    requested: int = 0  # moves and page visits sent (first loads not counted)
    bytes_deflated: int = 0  # with --compression: what permessage-deflate puts on the wire (estimated here)
    runs: list[tuple[str, str, float]] = field(default_factory=list)  # (page, move or visit, seconds) per run

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


@dataclass
class SliderState:
    id: str
    fragment_id: str
    low: float
    high: float
    step: float
    values: list[float]  # a select_slider's values are indices into its options
    options: list[str]   # a select_slider's formatted options (its widget state is these strings)

    @property
    def movable(self) -> bool:
        return self.high > self.low

    def state_into(self, widget) -> None:
        widget.id = self.id
        if self.options:
            widget.string_array_value.data.extend(self.options[int(v)] for v in self.values)
        else:
            widget.double_array_value.data.extend(self.values)


@dataclass
class DragSliderState:
    """A drag slider (page_kit/controls/drag_slider.py): a custom component whose state is {"value": <URL text>}."""
    id: str
    fragment_id: str
    texts: list[str]
    index: int

    @property
    def movable(self) -> bool:
        return len(self.texts) > 1

    def step(self, rng: random.Random) -> None:
        index = self.index + rng.choice((-1, 1))
        self.index = index if 0 <= index < len(self.texts) else self.index - (index - self.index)  # bounce

    def state_into(self, widget) -> None:
        widget.id = self.id
        widget.json_value = json.dumps({"value": self.texts[self.index]})


def _drag_slider(element, fragment_id: str) -> DragSliderState | None:
    if element.component_name != "posenc_drag_slider":
        return None
    data = element_data.unwrap(element)
    return DragSliderState(element.id, fragment_id, list(data["url"]), int(data["index"]))


def _slider(element: Slider, fragment_id: str) -> SliderState | None:
    if element.data_type not in (Slider.INT, Slider.FLOAT) or element.disabled:
        return None
    values = list(element.value) if element.set_value else list(element.default)
    if not values:  # a value held only in session state: the browser has nothing to step from either
        return None
    options = list(element.options) if element.type == Slider.SELECT_SLIDER else []
    return SliderState(element.id, fragment_id, element.min, element.max, element.step or 1.0, values, options)


class Student:
    """One browser tab: opens a page, then moves a slider one step every few seconds, sometimes changes page."""

    def __init__(self, base_url: str, pages: list[str], rng: random.Random, tally: Tally,
                 think_s: tuple[float, float] = (3.0, 7.0), visit_share: float = 0.1, compression: bool = False):
        self.base_url, self.pages, self.rng, self.tally = base_url, pages, rng, tally
        self.think_s, self.visit_share, self.compression = think_s, visit_share, compression
        self.page = rng.choice(pages)
        self.sliders: dict[str, SliderState] = {}
        self.finished: asyncio.Future | None = None
        self.replica_cookie = ""
        self.last = "(first load)"  # what the student did last: said with any error it saw
        # permessage-deflate as uvicorn sets it up (websockets' ServerPerMessageDeflateFactory, defaults): one
        # zlib stream per connection, context kept between messages, each message ending in a sync flush
        self.deflate = zlib.compressobj(wbits=-15) if compression else None

    def _cookie(self) -> str:
        return sticky_cookie(f"{self.base_url}/{self.page}")

    async def run(self, stop_at: float, active: bool = True) -> None:
        """Open the page and, if active, move sliders until stop_at; an idle student only holds the session."""
        self.replica_cookie = await asyncio.to_thread(self._cookie)
        ws_url = self.base_url.replace("http", "ws", 1) + "/_stcore/stream"
        headers = {"Cookie": self.replica_cookie} if self.replica_cookie else {}
        try:
            async with websockets.connect(ws_url, subprotocols=["streamlit"], additional_headers=headers,
                                          max_size=None, open_timeout=RUN_TIMEOUT_S,
                                          compression="deflate" if self.compression else None) as ws:
                reader = asyncio.create_task(self._read(ws))
                try:
                    await self._rerun(ws, "first")
                    while time.monotonic() < stop_at:
                        await asyncio.sleep(min(self.rng.uniform(*self.think_s), max(0.0, stop_at - time.monotonic())))
                        if time.monotonic() >= stop_at or reader.done():
                            break
                        if active:
                            await self._act(ws)
                finally:
                    reader.cancel()
        except (OSError, websockets.exceptions.WebSocketException, asyncio.TimeoutError):
            self.tally.drops += 1

    async def _act(self, ws) -> None:
        movable = [s for s in self.sliders.values() if s.movable]
        if not movable or self.rng.random() < self.visit_share:
            self.last = f"(opened from {self.page})"
            self.page = self.rng.choice(self.pages)
            self.sliders.clear()
            await self._rerun(ws, "visit")
            return
        slider = self.rng.choice(movable)
        if isinstance(slider, DragSliderState):
            slider.step(self.rng)
            self.last = f"(after {slider.id.split('-', 2)[-1]} -> {slider.texts[slider.index]})"
            await self._rerun(ws, "move", slider)
            return
        value = slider.values[0] + self.rng.choice((-1, 1)) * slider.step
        if not slider.low <= value <= slider.high or (len(slider.values) == 2 and value > slider.values[1]):
            value = slider.values[0] - (value - slider.values[0])  # bounce off the end
        slider.values[0] = min(max(value, slider.low), slider.high)
        self.last = f"(after {slider.id.split('-', 2)[-1]} -> {slider.values[0]:g})"
        await self._rerun(ws, "move", slider)

    async def _rerun(self, ws, kind: str, moved: SliderState | DragSliderState | None = None) -> None:
        msg = BackMsg()
        state = msg.rerun_script
        state.page_name = self.page
        if moved is not None:
            state.fragment_id = moved.fragment_id  # as the browser does for a widget inside an @st.fragment
            for slider in self.sliders.values():
                slider.state_into(state.widget_states.widgets.add())
        self.finished = asyncio.get_running_loop().create_future()
        self.tally.requested += kind != "first"
        start = time.perf_counter()
        await ws.send(msg.SerializeToString())
        try:
            status = await asyncio.wait_for(self.finished, RUN_TIMEOUT_S)
        except asyncio.TimeoutError:
            self.tally.error(f"{kind}: no script_finished within {RUN_TIMEOUT_S:.0f} s")
            return
        if status in FINISHED:
            self.tally.latencies[kind].append(time.perf_counter() - start)
            if kind != "first":
                self.tally.runs.append((self.page, kind, self.tally.latencies[kind][-1]))
        elif status != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
            self.tally.error(f"{kind}: script finished with {ForwardMsg.ScriptFinishedStatus.Name(status)}")

    async def _read(self, ws) -> None:
        try:
            async for raw in ws:
                self.tally.bytes_in += len(raw)
                self.tally.messages += 1
                if self.deflate is not None:
                    self.tally.bytes_deflated += len(self.deflate.compress(raw) + self.deflate.flush(zlib.Z_SYNC_FLUSH))
                msg = ForwardMsg()
                msg.ParseFromString(raw)
                kind = msg.WhichOneof("type")
                if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                    element = msg.delta.new_element
                    which = element.WhichOneof("type")
                    if which in ("slider", "bidi_component"):
                        slider = (_slider(element.slider, msg.delta.fragment_id) if which == "slider" else
                                  _drag_slider(element.bidi_component, msg.delta.fragment_id))
                        if slider is not None:
                            # One state per widget key, as a browser holds: a slider whose range changed has a
                            # new element id, and the old id's value must not be sent again
                            self.sliders[slider.id.split("-", 2)[-1]] = slider
                    elif which == "exception":
                        self.tally.error(f"exception on {self.page} {self.last}: {element.exception.message[:80]}")
                    elif which == "alert" and element.alert.format == element.alert.ERROR:
                        self.tally.error(f"error box on {self.page} {self.last}: {element.alert.body[:80]}")
                elif kind == "page_not_found":
                    self.tally.error(f"page not found: {self.page}")
                elif kind == "script_finished" and self.finished is not None and not self.finished.done():
                    self.finished.set_result(msg.script_finished)
        except websockets.exceptions.ConnectionClosedError:
            self.tally.drops += 1
