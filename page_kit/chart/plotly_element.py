"""The chart element: one Plotly instance per chart, updated in place (``Plotly.react``), never remounted.

``st.plotly_chart`` remounts its React element whenever the figure changes and Plotly then draws twice;
that was most of the browser's share of a slider move. This element is a Streamlit custom component (v2)
with a stable key, so Streamlit keeps it mounted and hands it each new figure; its JavaScript calls
``Plotly.react`` once. plotly.js is the ``plotly`` package's own ``plotly.min.js``, served by Streamlit's
static route (``server.enableStaticServing``) and cached by the browser, never inlined into messages.

Where the static copy cannot be made (a read-only install), ``available()`` is False and the kit falls
back to ``st.plotly_chart``.
"""

from __future__ import annotations

import filecmp
import functools
import shutil
from pathlib import Path

import plotly
import streamlit as st

from page_kit.i18n import _
from page_kit.runtime import element_data

APP_STATIC = Path(__file__).resolve().parents[2] / "static"  # Streamlit serves <app dir>/static at /app/static
PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"


@functools.cache
def available() -> bool:
    """Copy plotly.min.js next to the app once per process (only when missing or different)."""
    target = APP_STATIC / PLOTLY_JS.name
    try:
        if not (target.is_file() and filecmp.cmp(PLOTLY_JS, target, shallow=False)):
            APP_STATIC.mkdir(exist_ok=True)
            partial = target.with_suffix(f".{id(target)}.tmp")
            shutil.copyfile(PLOTLY_JS, partial)
            partial.replace(target)  # atomic: two replicas starting together never serve half a file
    except OSError:
        return False
    return bool(st.get_option("server.enableStaticServing"))


_component = st.components.v2.component(
    # figure_fit.js (fitting a figure to the width it is drawn at) goes first: plotly_element.js calls it
    "posenc_plotly", js="\n".join([element_data.JS] + [Path(__file__).with_name(name).read_text(encoding="utf-8")
                                                     for name in ("figure_fit.js", "plotly_element.js")]),
    css=".pe-frames{display:flex;align-items:center;gap:.75rem;margin-top:.35rem}"
        ".pe-range{flex:1;accent-color:#0072B2}"
        ".pe-play{font:inherit;padding:.2rem .8rem;border-radius:.5rem;border:1px solid rgba(128,128,128,.5);"
        "background:transparent;color:inherit;cursor:pointer}"
        ".pe-label{min-width:9rem;font-variant-numeric:tabular-nums}"
        # a figure that is a control says so under the pointer (figure_control)
        ".pe-control .nsewdrag{cursor:pointer !important}"
        ".pe-scroll-cue{margin:0;height:28px;line-height:24px;font-size:.85rem;opacity:.8;position:sticky;left:0;"
        "white-space:nowrap}",
    isolate_styles=False)


def plotly_element(figure_json: str, *, height: int, key: str, alt: str, config: dict, digest: str = "",
                   frames: dict | None = None, control: dict | None = None, on_hand=None,
                   ahead: dict | None = None) -> None:
    """``figure_json`` is the figure as plotly JSON (render.show builds it once per view: figures.cache),
    ``height`` its layout height in px and ``digest`` a digest of the JSON (a figure already drawn is not
    drawn again). ``ahead`` (page_kit.chart.hero_frames.payload) carries a hero figure's frames for the drag slider
    under the hand.

    ``control`` (figure_control.browser_spec) makes the figure a control: the browser reports a click or a
    drag as the state value "hand" ({kind, handle, x, y, n}: n counts events, so each one is a change) and
    ``on_hand`` runs before the rerun that follows, as a slider's on_change would."""
    data = {"chart": key, "digest": digest, "config": {**config, "responsive": True}, "alt": alt,
            "cue": _("The diagram is wider than the screen: scroll it sideways →")}  # figure_fit.js, on a phone
    texts = [(("figure",), figure_json)]  # JSON already: sent as it is (element_data)
    if ahead is not None:
        data["ahead"] = {**ahead, "new": {}}
        texts += [(("ahead", "new", frame), json) for frame, json in ahead["new"].items()]
    if frames is not None:
        data["frames"] = frames
        height += 44
    if control is None:
        _component(key=key, data=element_data.pack(data, texts), height=int(height))
        return
    # the number of the hand event this run answers: a release that snaps to the figure already drawn must
    # still reach the chart, which then draws the exact figure over the arrow the hand left between steps
    last = hand_event(key)
    data["control"] = {**control, "answered": last.get("n") if isinstance(last, dict) else None}
    _component(key=key, data=element_data.pack(data, texts), height=int(height), default={"hand": None},
               on_hand_change=on_hand)


def hand_event(key: str):
    """The last click or drag the chart with this key reported (its state value "hand"), or None."""
    state = st.session_state.get(key)
    return state.get("hand") if isinstance(state, dict) else None
