"""Lab runs finished by any app process, kept in a folder every replica can read.

Streamlit's caches live in one process's memory, so with two replicas a run trained on one would be unknown
to the other and a student sent there would train it again (a minute or more of a core). When the environment
variable POSENC_SHARED_DIR names a folder that all replicas mount (deploy/compose.yaml does), each finished
run is written there and any replica shows it. Without it (one process, `streamlit run`) nothing is written.
Files are written under a temporary name and renamed into place, so a reader never sees half a run, and the
.npz is moved before the .json, whose presence marks a complete run.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .results import save_lab_results
from .train import LabResult

__all__ = ["SHARED_DIR_ENV", "save", "stored_paths"]

SHARED_DIR_ENV = "POSENC_SHARED_DIR"


def _folder() -> Path | None:
    root = os.environ.get(SHARED_DIR_ENV)
    return Path(root) / "lab_runs" if root else None


def _stem(settings: tuple) -> str:
    return hashlib.sha256(json.dumps(list(settings)).encode()).hexdigest()[:32]


def stored_paths(settings: tuple) -> tuple[str, str, float] | None:
    """(json path, npz path, modification time) of a finished run with these settings, or None."""
    folder = _folder()
    if folder is None:
        return None
    json_path = folder / f"{_stem(settings)}.json"
    try:
        return str(json_path), str(json_path.with_suffix(".npz")), json_path.stat().st_mtime
    except OSError:
        return None


def save(settings: tuple, result: LabResult) -> None:
    """Write a finished run for every replica (no-op without POSENC_SHARED_DIR)."""
    folder = _folder()
    if folder is None:
        return
    folder.mkdir(parents=True, exist_ok=True)
    stem, tag = _stem(settings), f"{os.getpid()}.tmp"
    json_tmp, npz_tmp = folder / f"{stem}.{tag}.json", folder / f"{stem}.{tag}.npz"
    save_lab_results(result, json_tmp, npz_tmp)
    if npz_tmp.exists():
        os.replace(npz_tmp, folder / f"{stem}.npz")
    os.replace(json_tmp, folder / f"{stem}.json")
