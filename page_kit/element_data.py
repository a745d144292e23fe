"""The data the kit's own elements (live_slider, plotly_element) carry, sent as a one-item list.

Streamlit checks every top-level value of a component's data dict for a dataframe on every run: a dozen protocol
checks per value and a scan of every list (a live slider's few hundred labels cost about 1 ms a slider a run,
against 0.15 ms as a list). A list goes straight to JSON. The elements' JavaScript takes the dict back out
(``data[0]``); tests and the bench read it with ``unwrap``.
"""

from __future__ import annotations

import json


def wrap(data: dict) -> list:
    return [data]


def unwrap(element_json: str) -> dict:
    """An element's data dict, from its protobuf's ``json`` text."""
    return json.loads(element_json)[0]
