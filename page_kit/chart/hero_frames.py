"""A lesson's hero figure, with the frames a hand walking one of its drag sliders asks for next.

Without frames, a key press on a drag slider waits for the whole round trip (browser -> server run -> browser)
before the figure moves. A hero figure also carries frames for the drag slider the hand is on: the figure at the stop
the hand came from (the one drawn before) and, once the hand has moved that slider twice in a row, the figure
at the next stop the way it moves, built by the same builder, so the same core call: the frame the student
sees is the figure the server would send for that value. The slider tells the chart element its new value as
it moves (drag_slider.js), the element draws the frame it holds for that value at once, and the server run
that follows updates the text, the numbers and the URL; when its figure is the one already drawn, the
element does not draw it again. A page visit, or a first move, builds no frame.

Frames are the figure cache's JSON (page_kit.figures.cache), so a class that walks a slider builds each frame
once. The browser keeps what it was sent per chart (bounded: MAX_KEPT frames, MAX_KEPT_BYTES), and this module
keeps, per session, which frames those are, so a frame goes over the wire once. A frame larger than
MAX_FRAME_BYTES is not sent: such a figure waits for the round trip.

    chart = hero(lambda n, d, base: table_chart(n, d, base), n=n, d=dim, base=base)
    show(chart)

The names in ``view`` are the URL keys of the controls the figure depends on; ``build`` gets them as keyword
arguments, and returns the chart exactly as the page shows it (its kit steps and figure control included)
without writing to the page. A view without a drag slider gets no frames. tests/test_hero_frames.py moves
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

from page_kit.controls import drag_slider
from page_kit.figures import Chart, cache

# POSENC_HERO_FRAMES=off sends no frames (bench/load.py --no-hero-frames): what they cost the server
ENABLED = os.environ.get("POSENC_HERO_FRAMES", "on").lower() not in ("off", "0", "false", "no")
WALK = 2  # moves in a row of one slider after which the next stop is built ahead of the hand
MAX_FRAME_BYTES = 1_500_000  # a frame's JSON; larger figures are not worth the bytes ahead of the hand
MAX_KEPT = 12  # frames the browser keeps per chart (the current figure, its neighbours, where the hand was)
MAX_KEPT_BYTES = 8_000_000
_log = logging.getLogger("posenc_explorer.hero_frames")
SENT_KEY = "_hero_sent"  # session state: chart name -> OrderedDict(digest -> bytes) the browser holds
SHOWN_KEY = "_hero_shown"  # session state: chart name -> the View this chart showed last, and its digest


@dataclass(frozen=True)
class View:
    """What a hero chart shows: its builder, each control's value (by digest) and the drag sliders' URL texts."""

    recipe: str | None  # the builder and what it closes over (None: not describable, so no frame from memory)
    items: tuple[tuple[str, str | None], ...]  # (URL key, digest of its value), in the view's order
    texts: tuple[tuple[str, str], ...]  # (URL key, URL text) of the view's drag sliders drawn in this run

    def differs_only_in(self, other: View, key: str) -> bool:
        """True when ``other`` shows this figure with only the slider ``key`` elsewhere."""
        if self.recipe is None or self.recipe != other.recipe or len(self.items) != len(other.items):
            return False
        changed = {name for (name, a), (_, b) in zip(self.items, other.items, strict=True) if a != b or a is None}
        return changed == {key} and dict(self.texts).get(key) != dict(other.texts).get(key)


@dataclass(frozen=True)
class Ahead:
    """What a hero chart needs to build its frames when it is shown."""

    view: View
    key: str | None  # the URL key of the drag slider the hand is on (None: no hand yet)
    builds: tuple[tuple[str, Callable[[], Chart]], ...]  # (URL text, build) for the stop ahead of the hand


def hero(build: Callable[..., Chart], **view) -> Chart:
    """``build(**view)``, with frames for the drag slider the hand is on.

    Frames follow a hand that walks a slider: the stop it came from is the figure drawn before (payload), and
    once a drag slider in ``view`` has moved twice in a row, the next stop the way it moves is built too. So a
    walk costs one frame per move, the one its next step asks for, and a page visit or a single move none: a
    frame nobody asks for is a core call and a figure the server would have made for nothing."""
    chart = build(**view)
    if not ENABLED:
        return chart
    texts = tuple((name, drag_slider.standing(name).text) for name in view if drag_slider.standing(name))
    shown = View(cache.digest(*cache.recipe_of(build)), tuple((n, cache.digest(v)) for n, v in view.items()),
                 texts)
    key, builds = None, ()
    moving = drag_slider.hand()
    if moving is not None and moving[0] in view and drag_slider.beside(moving[0], view[moving[0]]) \
            and not any(_displaced(name) for name in view if name != moving[0]):
        # (a slider that a range pulled along would move back with it: no frame could show that)
        key, step, moves = moving
        rest = {name: value for name, value in view.items() if name != key}
        builds = tuple((text, functools.partial(build, **{**rest, key: value}))
                       for value, text, side in drag_slider.beside(key, view[key]) if moves >= WALK and side == step)
    chart.ahead = Ahead(shown, key, builds)
    return chart


def _displaced(key: str) -> bool:
    standing = drag_slider.standing(key)
    return standing is not None and standing.displaced


def payload(chart: Chart, template: str, current: tuple[str, int, str]) -> dict | None:
    """The chart element's ``ahead`` data: which frame to draw for which value, and the frames it lacks.

    ``current`` is the chart's own figure as sent (``cache.spec``: json, height, digest). Frames whose build
    fails (a value the page refuses) are left out: that move takes its round trip and shows the page's message;
    any other failure is logged and left out too."""
    ahead: Ahead | None = chart.ahead
    if ahead is None:
        return None  # not a hero figure: the browser keeps only the figure it shows
    sent = st.session_state.setdefault(SENT_KEY, {}).setdefault(chart.name, OrderedDict())
    shown = st.session_state.setdefault(SHOWN_KEY, {})
    before, shown[chart.name] = shown.get(chart.name), (ahead.view, template, current[2])
    here = dict(ahead.view.texts).get(ahead.key)
    frames, new = ({here: current[2]} if here else {}), {}
    # a chart with a scrub bar switches its own frames; a figure too large to send ahead has no frames
    if ahead.key is not None and chart.frames is None and len(current[0]) <= MAX_FRAME_BYTES:
        if before is not None and before[1] == template and before[2] in sent \
                and ahead.view.differs_only_in(before[0], ahead.key):
            frames[dict(before[0].texts)[ahead.key]] = before[2]  # where the hand came from: in the browser
        for text, build in ahead.builds:
            made = _frame(chart, ahead.key, text, build, template)
            if made is not None:
                frames[text] = made[1]
                if made[1] not in sent:
                    new[made[1]] = made[0]
                _keep(sent, made[1], len(made[0]))
    _keep(sent, current[2], len(current[0]))  # the browser stores the figure it is sent
    # only this run's frames are drawn: one kept from an earlier view may depend on something that has changed
    return {"key": ahead.key if frames else None, "current": here, "frames": frames,
            "new": {d: j for d, j in new.items() if d in sent}, "keep": list(sent)}


def _frame(chart: Chart, key: str, text: str, build, template: str) -> tuple[str, str] | None:
    """(JSON, digest) of one frame, or None when it cannot be built or is too large to send ahead."""
    try:
        neighbour = build()
    except ValueError:  # a value the page refuses: that move takes its round trip and shows the message
        return None
    except Exception:  # noqa: BLE001 (a frame is a guess ahead of the hand: it never breaks the view shown)
        _log.warning("hero frame %s=%s of %s could not be built", key, text, chart.name, exc_info=True)
        return None
    json, _, digest = cache.spec(neighbour, template)
    return None if len(json) > MAX_FRAME_BYTES else (json, digest)


def _keep(sent: OrderedDict, digest: str, size: int) -> None:
    """Note that the browser holds this frame (newest last) and drop the oldest beyond the bounds."""
    sent.pop(digest, None)
    sent[digest] = size
    while len(sent) > MAX_KEPT or (len(sent) > 1 and sum(sent.values()) > MAX_KEPT_BYTES):
        sent.popitem(last=False)
