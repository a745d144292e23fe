"""A lesson's hero figure, with its frames one stop either side of the slider under the hand.

A key press on a live slider used to wait for the whole round trip (browser -> server run -> browser) before
the figure moved. A hero figure also carries, for the live slider the hand is on, the same figure built for
the stop just below and just above (by the same builder, so the same core call: the frame the student sees
is the figure the server would send for that value). The slider tells the chart element its new value as it
moves (live_slider.js), the element draws the frame it holds for that value at once, and the server run
that follows updates the text, the numbers and the URL; when its figure is the one already drawn, the
element does not draw it again.

Frames are the figure cache's JSON (figure_cache), so a class that walks a slider builds each frame once.
The browser keeps what it was sent per chart (bounded: MAX_KEPT frames, MAX_KEPT_BYTES), and this module
keeps, per session, which frames those are, so a frame goes over the wire once. A frame larger than
MAX_FRAME_BYTES is not sent: such a figure takes its round trip as before.

    chart = hero(lambda n, d, base: table_chart(n, d, base), n=n, d=dim, base=base)
    show(chart)

The names in ``view`` are the URL keys of the controls the figure depends on; ``build`` gets them as keyword
arguments, and returns the chart exactly as the page shows it (its kit steps and figure control included)
without writing to the page. A view without a live slider gets no frames. tests/test_hero_frames.py moves
every page's slider onto each frame's value and checks that the server then sends that frame, byte for byte.
"""

from __future__ import annotations

import functools
import logging
import os
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from . import figure_cache, live_slider
from .figures import Chart

# POSENC_HERO_FRAMES=off sends no frames (bench/load.py --no-hero-frames): what they cost the server
ENABLED = os.environ.get("POSENC_HERO_FRAMES", "on").lower() not in ("off", "0", "false", "no")
MAX_FRAME_BYTES = 1_500_000  # a frame's JSON; larger figures are not worth the bytes ahead of the hand
MAX_KEPT = 12  # frames the browser keeps per chart (the current figure, its neighbours, where the hand was)
MAX_KEPT_BYTES = 8_000_000
_log = logging.getLogger("posenc_explorer.hero_frames")
SENT_KEY = "_hero_sent"  # session state: chart name -> OrderedDict(digest -> bytes) the browser holds
SHOWN_KEY = "_hero_shown"  # session state: chart name -> ((slider key, rest of the view, theme), URL text, digest)


@dataclass(frozen=True)
class Ahead:
    """What a hero chart needs to build its frames when it is shown."""

    key: str  # the live slider's URL key
    current: str  # its URL text now
    rest: str | None  # a digest of the rest of the view: the figure drawn before is a frame only if it matches
    builds: tuple[tuple[str, Callable[[], Chart]], ...]  # (URL text, build) for the stops ahead of the hand


def hero(build: Callable[..., Chart], **view) -> Chart:
    """``build(**view)``, with frames for the stops beside the live slider the hand is on.

    The slider is the one in ``view`` that moved last, else the first live slider in ``view``. After a move
    one way, only the next stop that way is built: the stop the hand came from is the figure drawn before
    (payload), so a walk along a slider costs one frame per move, the one its next step asks for."""
    chart = build(**view)
    if not ENABLED:
        return chart
    key, step = _hand(view)
    if key is None or any(_displaced(name) for name in view if name != key):
        return chart  # a slider pulled along by a range would move back with it: a frame could not show that
    rest = {name: value for name, value in view.items() if name != key}
    builds = tuple((text, functools.partial(build, **{**rest, key: value}))
                   for value, text, side in live_slider.beside(key, view[key]) if step in (0, side))
    chart.ahead = Ahead(key, live_slider.standing(key).text, figure_cache.digest(*_recipe(build), key, rest), builds)
    return chart


def _recipe(build) -> tuple:
    """What ``build`` is, for telling views apart: its name, and the values it closes over (a closure over
    something the key cannot describe gives no digest, and so no frame from memory)."""
    cells = [cell.cell_contents for cell in (getattr(build, "__closure__", None) or ())]
    return (getattr(build, "__module__", None), getattr(build, "__qualname__", None), cells,
            getattr(build, "__defaults__", None), getattr(build, "__kwdefaults__", None))


def _hand(view: dict) -> tuple[str | None, int]:
    """The view's live slider the hand is on, and the way it last moved (0: not known)."""
    moving = live_slider.hand()
    if moving is not None and moving[0] in view and live_slider.beside(moving[0], view[moving[0]]):
        return moving
    return next(((name, 0) for name, value in view.items() if live_slider.beside(name, value)), (None, 0))


def _displaced(key: str) -> bool:
    standing = live_slider.standing(key)
    return standing is not None and standing.displaced


def payload(chart: Chart, template: str, serialised, current: tuple[str, int, str]) -> dict | None:
    """The chart element's ``ahead`` data: which frame to draw for which value, and the frames it lacks.

    ``serialised(figure, template)`` makes (json, height, digest) as render.show does; ``current`` is the
    chart's own. Frames whose build fails (a value the page refuses) are left out: that move takes its
    round trip and shows the page's message; any other failure is logged and left out too."""
    ahead: Ahead | None = chart.ahead
    if ahead is None or chart.frames is not None:  # a chart with a scrub bar switches its own frames
        return None
    if len(current[0]) > MAX_FRAME_BYTES:  # its neighbours would be as large: not built only to be dropped
        return None
    sent = st.session_state.setdefault(SENT_KEY, {}).setdefault(chart.name, OrderedDict())
    frames, new = {ahead.current: current[2]}, {}
    shown = st.session_state.setdefault(SHOWN_KEY, {})
    view = (ahead.key, ahead.rest, template)
    before = shown.get(chart.name)  # (view, URL text, digest) of the figure this chart showed last
    if ahead.rest is not None and before is not None and before[0] == view and before[1] != ahead.current \
            and before[2] in sent:
        frames[before[1]] = before[2]  # where the hand came from: that figure is in the browser already
    shown[chart.name] = (view, ahead.current, current[2])
    _keep(sent, current[2], len(current[0]))  # the browser stores the figure it is sent
    for text, build in ahead.builds:
        try:
            neighbour = build()
        except ValueError:  # a value the page refuses: that move takes its round trip and shows the message
            continue
        except Exception:  # noqa: BLE001 (a frame is a guess ahead of the hand: it never breaks the view shown)
            _log.warning("hero frame %s=%s of %s could not be built", ahead.key, text, chart.name, exc_info=True)
            continue
        json, _, digest = figure_cache.spec(neighbour, template, serialised)
        if len(json) > MAX_FRAME_BYTES:
            continue
        frames[text] = digest
        if digest not in sent:
            new[digest] = json
        _keep(sent, digest, len(json))
    # only this run's frames are drawn: one kept from an earlier view may depend on something that has changed
    return {"key": ahead.key, "current": ahead.current, "frames": frames,
            "new": {d: j for d, j in new.items() if d in sent}, "keep": list(sent)}


def _keep(sent: OrderedDict, digest: str, size: int) -> None:
    """Note that the browser holds this frame (newest last) and drop the oldest beyond the bounds."""
    sent.pop(digest, None)
    sent[digest] = size
    while len(sent) > MAX_KEPT or (len(sent) > 1 and sum(sent.values()) > MAX_KEPT_BYTES):
        sent.popitem(last=False)
