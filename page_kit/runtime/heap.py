"""Keep full garbage collections cheap: the import-time heap is frozen out of them.

A full collection (``gc.collect(2)``) walks every object the interpreter tracks, and the libraries this app
imports (torch, plotly, streamlit, pandas) hold over 200 000 of them: on the project machine that is 120 ms,
spent holding the GIL, so every session waits. Module-level objects live as long as the process, so after each
run that imported something new we move the survivors into the permanent generation (``gc.freeze``); later
collections walk only what the runs themselves create, and still free it. Frozen objects are still freed by
reference counting when they die; only cyclic garbage among them would wait.

Streamlit's own full collection after every run (``runner.postScriptGC``) is switched off in
.streamlit/config.toml: it walks every open session's objects too, so its cost grows with the number of
students. Python's generational collector still runs full collections when the old generation has grown by a
quarter; the freeze keeps those cheap as well. Freezing more (the sessions' objects) is not an option: a
closed session's cyclic garbage would then never be freed.
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
