"""One browser tab at Streamlit's protocol level, synchronous: for tests that act as a hostile client would.

A browser holds one websocket, /_stcore/stream: it sends ``BackMsg`` rerun requests (the page, its address's
query string, every widget's state, and a fragment id for a fragment's own run) and reads ``ForwardMsg``s (the
elements, the address the script set, the fragments' timers, then ``script_finished``). ``Tab`` does the same
with nothing a browser adds: no JavaScript, no cookies unless given, any header it likes. What a run drew is
kept as ``Run.elements`` (kind, text, widget id), enough to find a question's radio, read an alert or click a
button by its key.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import connect

FINISHED = {ForwardMsg.FINISHED_SUCCESSFULLY, ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}
_TEXT = {"alert": "body", "markdown": "body", "html": "body", "exception": "message"}


@dataclass(frozen=True)
class Element:
    kind: str          # the element's proto field: "alert", "markdown", "radio", "button", "exception", ...
    text: str          # its body, message or label
    id: str = ""       # a widget's id
    fragment: str = ""  # the fragment that drew it ("" for the page's own run)
    options: tuple[str, ...] = ()
    alert: str = ""    # an alert's format: "ERROR", "WARNING", "INFO", "SUCCESS"


@dataclass
class Run:
    status: int = -1
    elements: list[Element] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status in FINISHED

    def texts(self, kind: str | None = None) -> list[str]:
        return [e.text for e in self.elements if kind is None or e.kind == kind]

    def errors(self) -> list[str]:
        """Exception boxes and error alerts: what a student must never see."""
        return [e.text for e in self.elements if e.kind == "exception" or e.alert == "ERROR"]

    def widget(self, key: str) -> Element | None:
        """The widget whose user key is ``key`` (Streamlit puts it at the end of the widget's id)."""
        return next((e for e in self.elements if e.id and e.id.endswith(f"-{key}")), None)


def _element(delta, fragment: str) -> Element | None:
    element = delta.new_element
    kind = element.WhichOneof("type")
    if kind is None:
        return None
    proto = getattr(element, kind)
    if kind in _TEXT:
        return Element(kind, getattr(proto, _TEXT[kind]), fragment=fragment,
                       alert=Alert.Format.Name(proto.format) if kind == "alert" else "")
    return Element(kind, getattr(proto, "label", ""), getattr(proto, "id", ""), fragment,
                   tuple(getattr(proto, "options", ())))


class Tab:
    """One tab of an app at ``base_url``, on ``page`` with ``query`` in its address."""

    def __init__(self, base_url: str, page: str = "", query: str = "", headers: dict[str, str] | None = None,
                 timeout_s: float = 60.0):
        self.page, self.query, self.timeout_s = page, query, timeout_s
        self.page_hash = ""  # the page's script hash, from the server's first reply: a browser sends it back
        self.widgets: dict[str, object] = {}  # id -> WidgetState, sent with every run as a browser does
        self.timers: dict[str, float] = {}    # fragment id -> seconds between its automatic runs
        self._connection = connect(base_url.replace("http", "ws", 1) + "/_stcore/stream", subprotocols=["streamlit"],
                                   additional_headers=headers or {}, max_size=None, open_timeout=timeout_s)
        self.ws = self._connection.__enter__()

    def close(self) -> None:
        self._connection.__exit__(None, None, None)

    def __enter__(self) -> Tab:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _state(self, widget_id: str):
        state = BackMsg().rerun_script.widget_states.widgets.add()
        state.id = widget_id
        return state

    def set(self, widget_id: str, **value) -> None:
        """Keep a widget's state (``string_value=...``, ``bool_value=...``) for every later run."""
        state = self._state(widget_id)
        for name, v in value.items():
            setattr(state, name, v)
        self.widgets[widget_id] = state

    def run(self, fragment: str = "", trigger: str = "") -> Run:
        """One run (the page's, or a fragment's), with a button ``trigger`` pressed; follows the script's own
        reruns (st.rerun) to the run that finishes."""
        msg = BackMsg()
        rerun = msg.rerun_script
        rerun.page_name, rerun.query_string, rerun.fragment_id = self.page, self.query, fragment
        rerun.page_script_hash = self.page_hash
        for state in self.widgets.values():
            rerun.widget_states.widgets.add().CopyFrom(state)
        if trigger:
            rerun.widget_states.widgets.add().CopyFrom(self._state(trigger))
            rerun.widget_states.widgets[-1].trigger_value = True
        self.ws.send(msg.SerializeToString())
        return self._read(fragment)

    def _read(self, fragment: str) -> Run:
        run = Run()
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(self.ws.recv(timeout=self.timeout_s))
            kind = forward.WhichOneof("type")
            if kind == "delta" and forward.delta.WhichOneof("type") == "new_element":
                element = _element(forward.delta, forward.delta.fragment_id)
                if element is not None:
                    run.elements.append(element)
            elif kind == "navigation":  # st.navigation names the page it ran: reruns ask for that page again
                self.page_hash = forward.navigation.page_script_hash
            elif kind == "page_info_changed":
                self.query = forward.page_info_changed.query_string  # the address the script set
            elif kind == "auto_rerun":
                self.timers[forward.auto_rerun.fragment_id] = forward.auto_rerun.interval
            elif kind == "script_finished" and forward.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                run.status = forward.script_finished
                return run

    def tick(self) -> list[Run]:
        """One tick of every timed fragment (the class's poll, a teacher's count), as the browser's timers do."""
        return [self.run(fragment=f) for f in list(self.timers)]
