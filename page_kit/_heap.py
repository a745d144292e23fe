"""Keep Streamlit's garbage collection after each run cheap.

Streamlit calls ``gc.collect(2)`` after every script run (the ``runner.postScriptGC`` option). A full
collection walks every object the interpreter tracks, and the libraries this app imports (torch, plotly,
streamlit, pandas) hold over 200 000 of them: on the project machine that is 120 ms per slider move, spent
holding the GIL, so the browser waits for the run's last message. Module-level objects live as long as the
process, so after each run that imported something new we move the survivors into the permanent generation
(``gc.freeze``); later collections walk only what the runs themselves create, and still free it. Frozen
objects are still freed by reference counting when they die; only cyclic garbage among them would wait.
"""

from __future__ import annotations

import gc
import sys

_modules_when_frozen = 0


def freeze_import_heap() -> None:
    """After a run that imported new modules (a page's first visit): collect once, then freeze the survivors."""
    global _modules_when_frozen
    if len(sys.modules) == _modules_when_frozen:
        return
    gc.collect()
    gc.freeze()
    _modules_when_frozen = len(sys.modules)
