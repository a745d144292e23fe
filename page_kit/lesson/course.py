"""A learner's progress on the page: read from their browser once per session, kept up to date, written back.

The browser keeps it in a cookie (``progress.to_cookie``), read when the page opens (``st.context.cookies``) and
written by a line of script whenever a lesson is opened or a question answered. The script merges what it writes
into what another tab of the same browser may have written since, so two open tabs never undo each other. The
server keeps nothing. A link with ``?progress=<code>`` (or a code pasted on the home page) adds a copied progress
to this browser's; *Clear* empties it.
"""

from __future__ import annotations

import json

import streamlit as st

from page_kit import live
from page_kit.lesson import course_map
from page_kit.navigation import progress as pg
from page_kit.navigation import registry
from page_kit.navigation.progress import Progress

COOKIE = "posenc_progress"
CODE_PARAM = "progress"  # ?progress=<code>: a copied progress, added to this browser's and taken off the address
MAX_PASTE = 600  # characters a pasted link may have: a code's longest, and the app's address before it
KEEP_DAYS = 400  # the longest a browser keeps a cookie (Chrome caps Max-Age there)
_STATE = "_course_progress"  # session state: this tab's Progress
_WRITTEN = "_course_written"  # session state: the cookie text this tab last read or wrote
_CLEAR = "_course_clear"  # session state: the cookie is to be removed on this run
_RESTORED = "_course_restored"  # session state: a message about a code from the address, shown once

_MERGE = """(() => {
  const name = %(name)s, mine = %(value)s.split("."), parts = location.pathname.split("/");
  parts.pop();
  const kept = document.cookie.split("; ").find(c => c.startsWith(name + "="));
  const theirs = kept ? decodeURIComponent(kept.slice(name.length + 1)).split(".") : [];
  let digits = mine[2];
  if (theirs.length === 3 && theirs[0] === mine[0] && /^[012]*$/.test(theirs[2])) {
    const n = Math.max(digits.length, theirs[2].length);
    digits = Array.from({length: n}, (_, i) => String(Math.max(+(digits[i] || 0), +(theirs[2][i] || 0))))
      .join("").replace(/0+$/, "");
  }
  const value = %(clear)s ? "" : [mine[0], mine[1] || (theirs[1] || ""), digits].join(".");
  document.cookie = name + "=" + value + "; path=" + (parts.join("/") || "/") + "; max-age=" + %(age)s
    + "; SameSite=Lax" + (location.protocol === "https:" ? "; Secure" : "");
})();"""


def _load() -> Progress:
    text = st.context.cookies.get(COOKIE)
    kept = pg.from_cookie(text if isinstance(text, str) else None)  # no request at all under AppTest
    st.session_state[_WRITTEN] = pg.to_cookie(kept)
    code = st.query_params.get(CODE_PARAM)
    if code is not None:
        del st.query_params[CODE_PARAM]
        try:
            kept = kept.merged(pg.from_code(code))
            announce_later("success", "Your progress from the link was added to this browser's.")
        except ValueError as error:
            announce_later("error", f"The progress link was not used: {error}")
    return kept


def progress() -> Progress:
    """This learner's progress (read from the browser on the session's first run)."""
    if _STATE not in st.session_state:
        st.session_state[_STATE] = _load()
    return st.session_state[_STATE]


def _set(new: Progress) -> None:
    st.session_state[_STATE] = new


def arrive(url_path: str) -> None:
    """A lesson was opened (the home page and the checkpoint page are no lessons)."""
    stop = course_map.stop_of(url_path)
    if stop is not None and not stop.is_checkpoint:
        _set(progress().opened(url_path))


def answered(key: str, right: bool) -> None:
    """Question ``key`` (a lesson's or a checkpoint's) was answered; its first answer is the one kept. Written to
    the browser at once: a question inside a fragment reruns only the fragment, not the app's closing save."""
    item = pg.item_for(key)
    if item is not None and not progress().mark(item):
        _set(progress().answered(item, right))
        save()


def code() -> str:
    """This learner's progress as the short code they copy."""
    return pg.to_code(progress())


def link(text: str) -> str:
    """The address that adds progress ``text`` (a code) to the browser that opens it: the app's address as another
    device reaches it, as the class's join link."""
    return f"{live.base_url()[0]}?{CODE_PARAM}={text}"


def restore(text: str) -> Progress:
    """Add a copied code (or a progress link) to this browser's progress; the progress it carried. Raises
    ValueError naming what is wrong with the code."""
    if len(text) > MAX_PASTE:
        raise ValueError(f"The progress code is {len(text):,} characters long; a code or link is at most "
                         f"{MAX_PASTE}.")
    text = text.strip()
    if f"{CODE_PARAM}=" in text:  # a whole link: its code is the value of ?progress=
        text = text.split(f"{CODE_PARAM}=", 1)[1].split("&", 1)[0]
    added = pg.from_code(text)
    _set(progress().merged(added))
    return added


def clear() -> None:
    """Forget this learner's progress, in this tab and in the browser."""
    _set(Progress())
    st.session_state[_CLEAR] = True


def save() -> None:
    """Write the progress to the browser if it changed since this tab last read or wrote it."""
    text, clearing = pg.to_cookie(progress()), st.session_state.pop(_CLEAR, False)
    st.session_state[live.COURSE_STATE] = text  # what a seated student's page reports to the class
    if text == st.session_state.get(_WRITTEN) and not clearing:
        return
    st.session_state[_WRITTEN] = text
    script = _MERGE % {"name": json.dumps(COOKIE), "value": json.dumps(text), "clear": json.dumps(clearing),
                       "age": 0 if clearing else KEEP_DAYS * 86400}
    with st.container(key=f"course_store_{abs(hash(text)) % 10**8}"):  # hidden: see settings.GLOBAL_CSS
        st.html(f"<script>{script}</script>", unsafe_allow_javascript=True)


def announce_later(kind: str, text: str) -> None:
    """A message ("success" | "error", sentence) for the next run to show once (``restored_message``)."""
    st.session_state[_RESTORED] = (kind, text)


def restored_message() -> tuple[str, str] | None:
    """("success" | "error", sentence) about a progress link or code this browser tab took, shown once."""
    return st.session_state.pop(_RESTORED, None)


def page_of(stop: course_map.Stop) -> tuple[str, dict[str, str]]:
    """(page file, query parameters) that open a stop."""
    if stop.is_checkpoint:
        return registry.CHECKPOINT.path, {"section": stop.section}
    info = registry.page(stop.url_path)
    assert info is not None
    return info.path, {}
