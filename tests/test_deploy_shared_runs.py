"""Two replicas, one Lab: a run finished by one app process is shown by another through POSENC_SHARED_DIR."""

from __future__ import annotations

import dataclasses

import numpy as np
from streamlit.testing.v1 import AppTest

from page_kit import registry
from posenc_core.lab import LabResult, load_lab_results, select_methods, shared_runs, shipped_lab_results
from tests import apptest_pages
from tests.conftest import ROOT

SETTINGS = ("quick", 16, 100, 3, "rope,alibi", "cpu")


def _result(seconds: float) -> LabResult:
    """A real lab result (the shipped one, two methods) as a replica's run would produce it."""
    return dataclasses.replace(select_methods(shipped_lab_results(), ["rope", "alibi"]), seconds=seconds)


def test_without_a_shared_folder_nothing_is_written_or_found(monkeypatch, tmp_path):
    monkeypatch.delenv(shared_runs.SHARED_DIR_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    shared_runs.save(SETTINGS, _result(12.0))
    assert shared_runs.stored_paths(SETTINGS) is None
    assert list(tmp_path.iterdir()) == []


def test_a_run_saved_by_one_process_is_found_whole_by_another(monkeypatch, tmp_path):
    monkeypatch.setenv(shared_runs.SHARED_DIR_ENV, str(tmp_path))
    assert shared_runs.stored_paths(SETTINGS) is None
    shared_runs.save(SETTINGS, _result(12.0))
    json_path, npz_path, _ = shared_runs.stored_paths(SETTINGS)
    loaded = load_lab_results(json_path, npz_path)
    assert loaded.seconds == 12.0 and set(loaded.methods) == {"rope", "alibi"}
    original = _result(12.0).attention["rope"].at_T
    np.testing.assert_allclose(loaded.attention["rope"].at_T, original, atol=1e-3)  # stored as float16
    assert not [p for p in (tmp_path / "lab_runs").iterdir() if ".tmp" in p.name]  # renamed into place
    assert shared_runs.stored_paths(SETTINGS[:-1] + ("cuda",)) is None  # other settings, other run


def test_a_second_save_replaces_the_first_atomically(monkeypatch, tmp_path):
    monkeypatch.setenv(shared_runs.SHARED_DIR_ENV, str(tmp_path))
    shared_runs.save(SETTINGS, _result(12.0))
    shared_runs.save(SETTINGS, _result(30.0))
    json_path, npz_path, _ = shared_runs.stored_paths(SETTINGS)
    assert load_lab_results(json_path, npz_path).seconds == 30.0
    assert len(list((tmp_path / "lab_runs").iterdir())) == 2  # one .json, one .npz


def test_the_lab_page_shows_a_run_another_replica_finished(monkeypatch, tmp_path):
    monkeypatch.setenv(shared_runs.SHARED_DIR_ENV, str(tmp_path))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    lab = next(p for p in registry.all_pages() if p.url_path == "lab")
    at.switch_page(lab.path).run()
    assert not any("someone made before" in s.value for s in at.success)
    apptest_pages.move_drag_slider(at, "drag_T", "16")
    apptest_pages.move_drag_slider(at, "drag_steps", "100")
    at.segmented_control(key="preset").set_value("quick")
    at.number_input(key="seed").set_value(3)
    at.multiselect(key="methods").set_value(["rope", "alibi"])
    shared_runs.save(SETTINGS, _result(12.0))  # what the replica where someone pressed Run wrote
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.exception] + [e.value for e in at.error]
    assert [s.value for s in at.success if "someone made before" in s.value], [s.value for s in at.success]
