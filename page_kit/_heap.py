"""Keep Streamlit's garbage collection after each run cheap.

Streamlit calls ``gc.collect(2)`` after every script run (the ``runner.postScriptGC`` option). A full
collection walks every object the interpreter tracks, and the libraries this app imports (torch, plotly,
streamlit, pandas) hold about 220 000 of them: on the project machine that is 120 ms per slider move, spent
holding the GIL, so the browser waits for the run's last message. Those objects live as long as the
process, so once they are loaded we move them into the permanent generation (``gc.freeze``); later
collections walk only what the runs themselves create and still free it.
"""

from __future__ import annotations

import gc

_frozen = False


def freeze_import_heap() -> None:
    """Once per process, after the heavy imports: collect, then exempt the survivors from future collections."""
    global _frozen
    if _frozen:
        return
    gc.collect()
    gc.freeze()
    _frozen = True
