"""page_kit.runtime.heap: the import-time heap is frozen once, so Streamlit's full collection after each run is
cheap."""

import gc
import sys

from page_kit.runtime import heap


def test_freezes_again_only_after_new_imports(monkeypatch):
    calls = []
    monkeypatch.setattr(heap, "_modules_when_frozen", 0)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    heap.freeze_import_heap()
    heap.freeze_import_heap()
    assert calls == ["freeze"]
    monkeypatch.setitem(sys.modules, "posenc_fake_module", object())  # a page imported something new
    heap.freeze_import_heap()
    assert calls == ["freeze", "freeze"]


def test_app_run_leaves_the_heap_frozen():
    from streamlit.testing.v1 import AppTest

    from tests.conftest import ROOT

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception
    assert gc.get_freeze_count() > 0
