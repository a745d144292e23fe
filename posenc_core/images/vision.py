"""Positions on an image grid: the 2D sin-cos embedding of MAE / ViT, patch similarity maps, and
resizing a grid of position embeddings the way timm does when a ViT is fine-tuned at a new resolution."""

from __future__ import annotations

import numpy as np

from .._backend import require_torch, to_backend, to_numpy
from .._checks import MAX_POSITIONS, as_base, as_choice, as_even_dim, as_float, as_int, check_size
from ..rope import ROPE_LAYOUTS, apply_rope
from ..rope.frequencies import rope_inv_freq
from ..rope.rotation import _is_torch

__all__ = [
    "AXIAL_QK",
    "RESIZE_MODES",
    "flattened_sincos",
    "learned_like_grid",
    "matching_cell",
    "patch_similarity_maps",
    "prefix_change",
    "resample_pos_embed",
    "resample_sincos_error",
    "resample_source_coords",
    "rope_2d_axial",
    "rope_2d_relative_check",
    "rope_2d_score_maps",
    "sincos_2d",
    "sincos_2d_at",
    "vit_position_table",
]

RESIZE_MODES = ("bicubic", "bilinear", "nearest")
MAX_GRID = 4096


def _sincos_1d(dim: int, coords: np.ndarray, base: float) -> np.ndarray:
    """MAE's 1D helper: sines then cosines, omega_i = base^(-i/(dim/2)). (n,) -> (n, dim)."""
    # The frequencies of base_inv_freq(base, dim), in MAE's own op order (i / (dim/2), then 1 / pow), so the
    # table keeps MAE's bits.
    omega = 1.0 / base ** (np.arange(dim // 2, dtype=np.float64) / (dim / 2.0))  # (dim/2,)
    angles = np.multiply.outer(coords.reshape(-1).astype(np.float64), omega)  # (n, dim/2)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)


def sincos_2d(grid_h, grid_w, dim, base=10000.0, *, backend="numpy", device=None):
    """2D sin-cos position embedding in MAE's convention.

    Patches are in raster order (row by row). The first dim/2 channels encode the column
    coordinate and the last dim/2 the row coordinate; each half is sines then cosines.

    Returns:
        Array of shape (grid_h * grid_w, dim), float32.
    """
    h = as_int("grid_h", grid_h, minimum=1, maximum=4096)
    w = as_int("grid_w", grid_w, minimum=1, maximum=4096)
    dim = as_int("dim", dim, minimum=4, maximum=16384)
    if dim % 4:
        raise ValueError(f"dim must be a multiple of 4 (two axes, each with sin and cos halves); got {dim}.")
    base = as_base(base)
    check_size(h * w * dim, "The 2D embedding")
    rows, cols = np.meshgrid(np.arange(h), np.arange(w), indexing="ij")  # (h, w) each
    table = np.concatenate([_sincos_1d(dim // 2, cols, base), _sincos_1d(dim // 2, rows, base)], axis=1)
    return to_backend(table.astype(np.float32), backend, device)


def sincos_2d_at(rows, cols, dim, base=10000.0) -> np.ndarray:
    """MAE's 2D sin-cos at arbitrary (fractional) grid coordinates.

    Args:
        rows, cols: 1D arrays of row and column coordinates; the grid is every (row, col) pair, in
            raster order (rows outer).
    Returns:
        (len(rows) * len(cols), dim) float64; for integer 0..h-1, 0..w-1 it equals ``sincos_2d``.
    """
    r = np.asarray(rows, dtype=np.float64).reshape(-1)
    c = np.asarray(cols, dtype=np.float64).reshape(-1)
    dim = as_int("dim", dim, minimum=4, maximum=16384)
    if dim % 4:
        raise ValueError(f"dim must be a multiple of 4 (two axes, each with sin and cos halves); got {dim}.")
    base = as_base(base)
    check_size(r.size * c.size * dim, "The 2D embedding")
    rr, cc = np.meshgrid(r, c, indexing="ij")  # (h, w) each
    return np.concatenate([_sincos_1d(dim // 2, cc, base), _sincos_1d(dim // 2, rr, base)], axis=1)


def flattened_sincos(grid_h, grid_w, dim, base=10000.0) -> np.ndarray:
    """A 1D sin-cos code of each patch's raster index r * grid_w + c, with the same helper and dim as
    ``sincos_2d``: the only difference is that the grid was flattened first. Shape (h * w, dim), float32."""
    h = as_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID)
    w = as_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID)
    dim = as_int("dim", dim, minimum=4, maximum=16384)
    if dim % 2:
        raise ValueError(f"dim must be even (sine and cosine halves); got {dim}.")
    base = as_base(base)
    check_size(h * w * dim, "The flattened embedding")
    return _sincos_1d(dim, np.arange(h * w), base).astype(np.float32)


def learned_like_grid(grid_h, grid_w, dim, seed=0, smoothness=1.5) -> np.ndarray:
    """A seeded stand-in for a trained ViT's position embeddings: smooth random fields on the grid.

    Each channel is white noise blurred with a Gaussian of ``smoothness`` patches (separable, edges
    renormalised) and scaled to unit standard deviation, so neighbouring patches get similar vectors,
    as they do in trained ViTs, without any sine structure.

    Returns:
        (grid_h * grid_w, dim) float32, raster order.
    """
    h = as_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID)
    w = as_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID)
    dim = as_int("dim", dim, minimum=1, maximum=16384)
    seed = as_int("seed", seed, minimum=0, maximum=2**32 - 1)
    smoothness = as_float("smoothness", smoothness, minimum=0.0, maximum=64.0)
    check_size(h * w * dim, "The learned-like grid")
    noise = np.random.default_rng(seed).standard_normal((h, w, dim))

    def blur(n: int) -> np.ndarray:  # (n, n) row-normalised Gaussian weights
        if smoothness == 0:
            return np.eye(n)
        d = np.subtract.outer(np.arange(n), np.arange(n))
        k = np.exp(-0.5 * (d / smoothness) ** 2)
        return k / k.sum(axis=1, keepdims=True)

    field = np.einsum("ri,ijc->rjc", blur(h), noise)  # blur along rows: (h, w, dim)
    field = np.einsum("jk,rkc->rjc", blur(w), field)  # blur columns
    field = (field - field.mean(axis=(0, 1))) / np.maximum(field.std(axis=(0, 1)), 1e-12)
    return field.reshape(h * w, dim).astype(np.float32)


def patch_similarity_maps(table, grid_h, grid_w, metric="cosine", num_prefix_tokens=0) -> np.ndarray:
    """For every patch, its similarity to every patch, laid out on the grid.

    Args:
        table: (num_prefix_tokens + grid_h * grid_w, C) embeddings in raster order; prefix rows
            ([CLS] and the like) are skipped.
        metric: "cosine" (as in the ViT paper's figure) or "dot".
    Returns:
        (grid_h * grid_w, grid_h, grid_w) float32: maps[q] is patch q's similarity map.
    """
    h = as_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID)
    w = as_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID)
    prefix = as_int("num_prefix_tokens", num_prefix_tokens, minimum=0, maximum=64)
    metric = as_choice("metric", metric, ("dot", "cosine"))
    rows = np.asarray(to_numpy(table), dtype=np.float64)
    if rows.ndim != 2 or rows.shape[0] != prefix + h * w:
        raise ValueError(f"The table must have {prefix} prefix rows plus {h} x {w} = {h * w} patch rows, "
                         f"but has shape {rows.shape}.")
    check_size((h * w) ** 2, "The similarity maps")
    patches = rows[prefix:]
    if metric == "cosine":
        norms = np.linalg.norm(patches, axis=1, keepdims=True)
        patches = patches / np.where(norms == 0, 1, norms)
    return (patches @ patches.T).reshape(h * w, h, w).astype(np.float32)


def resample_source_coords(old_size, new_size) -> np.ndarray:
    """Where each new grid cell samples the old grid, with align_corners=False (timm's default):
    x_old = (i + 0.5) * old / new - 0.5 for i < new. Shape (new,), float64."""
    old = as_int("old grid size", old_size, minimum=1, maximum=MAX_GRID)
    new = as_int("new grid size", new_size, minimum=1, maximum=MAX_GRID)
    return (np.arange(new) + 0.5) * old / new - 0.5


def resample_pos_embed(table, old_size, new_size, num_prefix_tokens=0, mode="bicubic",
                       antialias=True) -> np.ndarray:
    """Resize a grid of absolute position embeddings, following timm's ``resample_abs_pos_embed``.

    The prefix rows ([CLS], register or distillation tokens) are set aside; the patch rows are
    reshaped (H*W, C) -> (1, C, H, W), resized with ``torch.nn.functional.interpolate`` (float32,
    align_corners=False), flattened back in raster order, and the prefix rows re-attached in front.
    timm's defaults are mode="bicubic", antialias=True. torch's antialiased bicubic uses PIL's kernel
    (a = -0.5) while the plain one uses a = -0.75, so the switch changes the result even when upsampling.
    "nearest" ignores ``antialias`` (torch only antialiases bilinear and bicubic).

    Args:
        table: (num_prefix_tokens + H * W, C) array or tensor of any floating dtype (bfloat16 included).
        old_size, new_size: (H, W) and (H', W') grid sizes.
    Returns:
        (num_prefix_tokens + H' * W', C) float32 numpy array: timm's result, computed in float32 and rounded
        to the table's dtype as timm does (a bfloat16 table gives bfloat16 values), held exactly in float32.
    """
    mode = as_choice("mode", mode, RESIZE_MODES)
    prefix = as_int("num_prefix_tokens", num_prefix_tokens, minimum=0, maximum=64)
    try:
        old_h, old_w = (as_int("old grid size", v, minimum=1, maximum=MAX_GRID) for v in old_size)
        new_h, new_w = (as_int("new grid size", v, minimum=1, maximum=MAX_GRID) for v in new_size)
    except TypeError:
        raise ValueError("Grid sizes must be (height, width) pairs of whole numbers.") from None
    try:
        torch = require_torch()
    except ValueError:
        raise ValueError("Resizing a position grid uses torch's interpolate (as timm does); install torch "
                         "with `pip install torch`.") from None
    import torch.nn.functional as F

    if isinstance(table, torch.Tensor):
        source = table.detach().cpu()
    else:
        array = np.asarray(table)
        source = torch.from_numpy(np.array(array if array.dtype.kind == "f" else array.astype(np.float32)))
    if not source.is_floating_point():
        source = source.float()
    if source.ndim != 2 or source.shape[0] != prefix + old_h * old_w:
        raise ValueError(f"The table must have {prefix} prefix rows plus {old_h} x {old_w} = {old_h * old_w} "
                         f"patch rows, but has shape {tuple(source.shape)}.")
    check_size((prefix + new_h * new_w) * source.shape[1], "The resized grid")
    # timm: interpolate in float32 (posemb.float()), then cast back to the table's own dtype (.to(orig_dtype)).
    prefix_rows, grid = source[:prefix], source[prefix:].float()
    grid = grid.reshape(1, old_h, old_w, -1).permute(0, 3, 1, 2)  # (1, C, H, W)
    options = {} if mode == "nearest" else {"align_corners": False, "antialias": bool(antialias)}
    grid = F.interpolate(grid, size=(new_h, new_w), mode=mode, **options)  # (1, C, H', W')
    grid = grid.permute(0, 2, 3, 1).reshape(new_h * new_w, -1).to(source.dtype)  # (H'W', C)
    # Every patch value timm returns, in any floating dtype, is a float32 value, so float32 numpy holds it
    # exactly (the prefix rows, untouched by timm, are rounded to float32 here as before).
    return torch.cat([prefix_rows, grid], dim=0).float().numpy()


def matching_cell(index, old_size, new_size) -> int:
    """The cell of a resized axis whose centre lies closest to the centre of cell ``index`` of the
    old axis (align_corners=False geometry: cell i covers [i, i + 1) / size of the image)."""
    old = as_int("old grid size", old_size, minimum=1, maximum=MAX_GRID)
    new = as_int("new grid size", new_size, minimum=1, maximum=MAX_GRID)
    index = as_int("cell index", index, minimum=0, maximum=old - 1)
    return int(min(new - 1, max(0, np.floor((index + 0.5) * new / old))))


def resample_sincos_error(old_size, new_size, dim, base=10000.0, mode="bicubic", antialias=True) -> np.ndarray:
    """Per channel, the largest gap between a resized sin-cos grid and the exact sin-cos at the
    coordinates the new cells sample (``resample_source_coords``): what interpolation gets wrong.

    Returns:
        (dim,) float64, channels in MAE order (x sines, x cosines, y sines, y cosines).
    """
    old = as_int("old grid size", old_size, minimum=2, maximum=MAX_GRID)
    new = as_int("new grid size", new_size, minimum=1, maximum=MAX_GRID)
    table = sincos_2d(old, old, dim, base)
    resized = resample_pos_embed(table, (old, old), (new, new), 0, mode, antialias).astype(np.float64)
    coords = resample_source_coords(old, new)
    exact = sincos_2d_at(coords, coords, dim, base)
    return np.abs(resized - exact).max(axis=0)


def vit_position_table(source, grid_size, dim, num_prefix_tokens=0, seed=0) -> np.ndarray:
    """A ViT-style position table: ``num_prefix_tokens`` rows for [CLS]-like tokens, then the grid's rows.

    ``source`` is "sincos" (MAE's 2D sin-cos) or "learned" (a seeded, smooth learned-like grid). The prefix
    rows are seeded random stand-ins: resizing must set them aside and put them back unchanged.

    Returns:
        Array of shape (num_prefix_tokens + grid_size**2, dim), float32.
    """
    source = as_choice("source", source, ("sincos", "learned"))
    prefix = as_int("num_prefix_tokens", num_prefix_tokens, minimum=0, maximum=64)
    grid = sincos_2d(grid_size, grid_size, dim) if source == "sincos" else learned_like_grid(grid_size, grid_size,
                                                                                              dim, seed=seed)
    cls = np.random.default_rng(seed + 1).standard_normal((prefix, grid.shape[1])).astype(np.float32)  # (p, dim)
    return np.concatenate([cls, np.asarray(grid, dtype=np.float32)], axis=0)


def prefix_change(before, after, num_prefix_tokens) -> float:
    """Largest absolute change of the prefix rows between two tables (0 when there are none)."""
    prefix = as_int("num_prefix_tokens", num_prefix_tokens, minimum=0)
    if prefix == 0:
        return 0.0
    return float(np.abs(np.asarray(after)[:prefix] - np.asarray(before)[:prefix]).max())


# ---------------------------------------------------------------------------------------------------------
# Axial 2D RoPE: rotary position embedding on a grid of patches.

AXIAL_QK = ("ones", "random")


def _axial_head_dim(head_dim) -> int:
    d = as_even_dim("head_dim", head_dim, minimum=4)  # at least one rotation pair for the row, one for the column
    if d % 4:
        raise ValueError(f"head_dim must be a multiple of 4 for axial 2D RoPE: it is cut into a row half and a "
                         f"column half, and each half is made of pairs; got {d}.")
    return d


def _coordinates(name, values) -> np.ndarray:
    coords = np.asarray(to_numpy(values), dtype=np.float64).reshape(-1)
    if not np.all(np.isfinite(coords)) or np.abs(coords).max(initial=0.0) > MAX_POSITIONS:
        raise ValueError(f"{name} must be finite grid coordinates no larger than {MAX_POSITIONS:,} in size.")
    return coords


def rope_2d_axial(x, rows, cols, base=10000.0, *, layout="half", backend=None, device=None):
    """Axial 2D RoPE: turn the first half of each vector by its patch's row, the second half by its column.

    This is the axial form of 2D RoPE (EVA-02; RoPE-Axial in "Rotary Position Embedding for Vision
    Transformer", Heo et al. 2024). Each half is an ordinary RoPE of size d/2, turned by ``apply_rope``
    with the frequencies of a d/2-dimensional head, theta_i = base^(-2i/(d/2)) for i < d/4. A score
    between two patches is then a row-RoPE score plus a column-RoPE score, so it depends only on
    (Δrow, Δcol).

    Convention: row (y) half first, as EVA-02 and the Qwen2-VL vision encoder in transformers do;
    RoPE-ViT's code puts the column (x) half first. Inside each half the pairs follow ``layout``:
    EVA-02 and RoPE-ViT pair neighbouring dimensions (``"interleaved"``), the Qwen2-VL vision encoder
    pairs dimension j with j + d/2 across the whole head. These choices are the same rotation up to a
    fixed permutation of the dimensions. Qwen2-VL's M-RoPE in the language model (``mrope_section`` in
    transformers) is a related but different split: it cuts the frequencies of one head into temporal,
    height and width sections, so each axis turns a band of the frequencies instead of a full set.

    Args:
        x: (..., n, head_dim) array or tensor; head_dim a multiple of 4.
        rows, cols: (n,) row (y) and column (x) coordinates of the n vectors.
        layout: pair layout inside each half, "half" or "interleaved" (as in ``apply_rope``).
        backend: "numpy" or "torch"; by default the type of x decides.

    Returns:
        The rotated x: same shape, type and dtype (torch tensors stay on their device).
    """
    layout = as_choice("layout", layout, ROPE_LAYOUTS)
    if not _is_torch(x):
        x = np.asarray(x)
    d = _axial_head_dim(x.shape[-1])
    rows, cols = _coordinates("rows", rows), _coordinates("cols", cols)
    if rows.shape != cols.shape or (x.ndim >= 2 and rows.shape[0] != x.shape[-2]):
        raise ValueError(f"rows and cols need one coordinate per vector: x has {x.shape[-2] if x.ndim >= 2 else 0} "
                         f"vectors, rows has {rows.shape[0]} and cols has {cols.shape[0]}.")
    inv_freq, _ = rope_inv_freq(d // 2, base)  # (d/4,): a d/2-dimensional RoPE for each axis
    by_row = apply_rope(x[..., : d // 2], rows, inv_freq, layout, backend=backend, device=device)  # (..., n, d/2)
    by_col = apply_rope(x[..., d // 2:], cols, inv_freq, layout, backend=backend, device=device)  # (..., n, d/2)
    if _is_torch(by_row):
        return require_torch().cat((by_row, by_col), dim=-1)
    return np.concatenate((by_row, by_col), axis=-1)


def _axial_setup(grid_h, grid_w, head_dim, vectors, seed):
    """Validated sizes, raster coordinates and the fixed q, k content shared by every patch."""
    h = as_int("grid_h", grid_h, minimum=1, maximum=MAX_GRID)
    w = as_int("grid_w", grid_w, minimum=1, maximum=MAX_GRID)
    d = _axial_head_dim(head_dim)
    check_size(h * w * d, "The rotated keys of the grid")
    vectors = as_choice("vectors", vectors, AXIAL_QK)
    if vectors == "ones":
        q, k = np.ones(d), np.ones(d)
    else:
        q = k = np.random.default_rng(as_int("seed", seed, minimum=0, maximum=2**32 - 1)).standard_normal(d)
    rows, cols = np.divmod(np.arange(h * w), w)  # raster order, (h*w,) each
    return h, w, d, rows, cols, q, k


def _score_with_all(q, k, query_pos, key_pos, rotate):
    """(rotate(q at query_pos)) . (rotate(k at each key_pos)); rotate(x, pos) turns (n, d) rows."""
    keys = rotate(np.tile(k, (len(key_pos[0]), 1)), *key_pos)  # (n, d)
    return keys @ rotate(q[None, :], *query_pos)[0]  # (n,)


def rope_2d_score_maps(grid_h, grid_w, head_dim, query_row, query_col, base=10000.0, *, vectors="ones", seed=0,
                       layout="half") -> dict:
    """One query patch's RoPE score with every patch of the grid: axial 2D RoPE against 1D RoPE on the
    raster index r * grid_w + c (the grid flattened row by row), with the same head_dim and base.

    Every patch holds the same content, so the maps show position alone. ``vectors="ones"`` makes q and k
    all ones: each pair then adds 2 cos(angle), so the map reads as "how close does RoPE think this patch
    is", the same for rows and columns. ``"random"`` uses one seeded standard-normal vector as both q and k
    (a query meeting its own content): pair i adds |z_i|^2 cos(angle), so the map still peaks at the query,
    but the content weighs the frequencies, and the row and column halves, unequally.

    Returns:
        dict with ``axial`` and ``flat`` (grid_h, grid_w) float64 score maps, ``query_index`` (the raster
        index), and ``vertical`` / ``horizontal``: the nearest patch below (above on the last row) and to
        the right (left on the last column) as dicts with ``label``, ``row``, ``col``, ``axial``, ``flat``
        and ``raster_distance``, or None when the grid has a single row / column.
    """
    h, w, d, rows, cols, q, k = _axial_setup(grid_h, grid_w, head_dim, vectors, seed)
    row, col = as_int("query_row", query_row), as_int("query_col", query_col)
    if not (0 <= row < h and 0 <= col < w):
        raise ValueError(f"The query patch (row {row}, column {col}) is outside the {h} x {w} grid: rows run "
                         f"from 0 to {h - 1} and columns from 0 to {w - 1}.")
    index = row * w + col
    inv_freq_1d, _ = rope_inv_freq(d, base)  # (d/2,)

    def axial_rotate(x, r, c):
        return rope_2d_axial(x, r, c, base, layout=layout)

    def flat_rotate(x, p):
        return apply_rope(x, p, inv_freq_1d, layout)

    axial = _score_with_all(q, k, ([row], [col]), (rows, cols), axial_rotate).reshape(h, w)
    flat = _score_with_all(q, k, ([index],), (rows * w + cols,), flat_rotate).reshape(h, w)

    def neighbour(dr, dc, label, other_label):
        r, c = row + dr, col + dc
        if not (0 <= r < h and 0 <= c < w):
            r, c, label = row - dr, col - dc, other_label
        if not (0 <= r < h and 0 <= c < w):
            return None
        return {"label": label, "row": r, "col": c, "axial": float(axial[r, c]), "flat": float(flat[r, c]),
                "raster_distance": abs((r * w + c) - index)}

    return {"axial": axial, "flat": flat, "query_index": index,
            "vertical": neighbour(1, 0, "below", "above"), "horizontal": neighbour(0, 1, "right", "left")}


def rope_2d_relative_check(grid_h, grid_w, head_dim, base=10000.0, *, vectors="ones", seed=0,
                           layout="half") -> dict:
    """How far each patch-pair score is from a function of the offset alone, over all (h*w)^2 pairs.

    For patches p and j the score (R_p q) . (R_j k) should equal q . (R_{j-p} k): the key turned by the
    offset alone, with the query left in place. For axial 2D RoPE the offset is (Δrow, Δcol); for 1D RoPE
    on the raster index it is Δindex = Δrow * grid_w + Δcol, also fixed by (Δrow, Δcol). So both are
    "relative" on the grid; what differs is which offsets they treat as close. What remains is
    float32 rounding of the angles, which the RoPE code shares with transformers.

    Returns:
        dict with ``axial`` and ``flat`` (largest absolute deviation), and ``scale`` (largest |score|, d for
        all-ones vectors) to read them against.
    """
    h, w, d, rows, cols, q, k = _axial_setup(grid_h, grid_w, head_dim, vectors, seed)
    n = h * w
    check_size(n * n, "The all-pairs check")
    inv_freq_1d, _ = rope_inv_freq(d, base)  # (d/2,)
    q_all, k_all = np.tile(q, (n, 1)), np.tile(k, (n, 1))  # (n, d) each
    axial = rope_2d_axial(q_all, rows, cols, base, layout=layout) @ rope_2d_axial(k_all, rows, cols, base,
                                                                                  layout=layout).T  # (n, n)
    index = np.arange(n)
    flat = apply_rope(q_all, index, inv_freq_1d, layout) @ apply_rope(k_all, index, inv_freq_1d, layout).T

    dr, dc = np.subtract.outer(rows, rows).T, np.subtract.outer(cols, cols).T  # [p, j] = coordinate of j - of p
    offsets_r, offsets_c = np.divmod(np.arange((2 * h - 1) * (2 * w - 1)), 2 * w - 1)
    by_offset = rope_2d_axial(np.tile(k, (offsets_r.size, 1)), offsets_r - (h - 1), offsets_c - (w - 1), base,
                              layout=layout) @ q  # ((2h-1)(2w-1),)
    axial_reference = by_offset[(dr + h - 1) * (2 * w - 1) + (dc + w - 1)]  # (n, n)
    shifts = np.arange(-(n - 1), n)
    flat_by_offset = apply_rope(np.tile(k, (shifts.size, 1)), shifts, inv_freq_1d, layout) @ q  # (2n-1,)
    flat_reference = flat_by_offset[np.subtract.outer(index, index).T + n - 1]  # (n, n)
    return {"axial": float(np.abs(axial - axial_reference).max()),
            "flat": float(np.abs(flat - flat_reference).max()),
            "scale": float(max(np.abs(axial).max(), np.abs(flat).max()))}
