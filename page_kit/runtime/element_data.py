"""The data the kit's own elements (drag_slider, plotly_element) carry: one bytes payload.

A dict handed to a Streamlit component costs, on every run: a dataframe check of each top-level value (a scan
of every list: a drag slider's few hundred labels, about 1 ms a slider), a JSON dump for the browser, a second,
key-sorted dump and an MD5 of it for the element's identity, and the escaping of every figure's JSON text as a
string inside that JSON (which the browser then parses twice). As bytes it is dumped once, and hashed as is.

The payload is one line of JSON, ``{"data": ..., "texts": [[path, length in bytes], ...]}``, then the texts
(JSON already: a figure, a hero frame) one after another, UTF-8, as they are; each goes back into the data at
its path (a list of keys) as a string. ``JS`` below unpacks it in the browser; ``unwrap`` here (tests,
bench).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

JS = """
// page_kit/runtime/element_data.py: the element's data as one bytes payload: a JSON header line, then the JSON texts
// (a figure, a hero frame) as they are, each put back into the data at its path as a string.
const ELEMENT_TEXT = new TextDecoder();
function unpackElementData(bytes) {
  const end = bytes.indexOf(10);
  const head = JSON.parse(ELEMENT_TEXT.decode(bytes.subarray(0, end)));
  let at = end + 1;
  for (const [path, length] of head.texts) {
    let node = head.data;
    for (const name of path.slice(0, -1)) node = node[name];
    node[path[path.length - 1]] = ELEMENT_TEXT.decode(bytes.subarray(at, at + length));
    at += length;
  }
  return head.data;
}
"""


def pack(data: dict, texts: Sequence[tuple[Sequence[str], str]] = ()) -> bytes:
    """``data`` (without the texts) and each (path, JSON text): the text goes to ``data[path[0]]...[path[-1]]``."""
    encoded = [(list(path), text.encode("utf-8")) for path, text in texts]
    head = json.dumps({"data": data, "texts": [[path, len(raw)] for path, raw in encoded]}, separators=(",", ":"))
    return b"\n".join([head.encode("utf-8"), b"".join(raw for _, raw in encoded)])


def unwrap(proto) -> dict:
    """An element's data, from its BidiComponent protobuf, as the browser unpacks it."""
    payload = bytes(proto.bytes)
    end = payload.index(b"\n")
    head = json.loads(payload[:end])
    at = end + 1
    for path, length in head["texts"]:
        node = head["data"]
        for name in path[:-1]:
            node = node[name]
        node[path[-1]] = payload[at:at + length].decode("utf-8")
        at += length
    return head["data"]
