import math
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from posenc_core.images import (
    AXIAL_QK,
    RESIZE_MODES,
    SincosLayout,
    flattened_sincos,
    grid_neighbours,
    learned_like_grid,
    matching_cell,
    patch_similarity_maps,
    prefix_change,
    resample_sincos_error,
    resample_source_coords,
    resize_neighbour,
    resize_plan,
    resize_profile,
    resize_what_if_size,
    rope_2d_relative_check,
    rope_2d_score_maps,
    sincos_2d_at,
    sincos_layout,
    sincos_neighbours,
    sincos_resize_errors,
    vit_position_table,
)
from posenc_core.measures import similarity_matrix
from posenc_core.rope import ROPE_LAYOUTS


def test_mae_layout():
    h, w, d = 3, 5, 16
    table = pc.sincos_2d(h, w, d).astype(np.float64)
    assert table.shape == (h * w, d)
    omega = 1.0 / 10000 ** (np.arange(d // 4) / (d // 4))
    for idx in range(h * w):
        row, col = divmod(idx, w)  # raster order
        expected = np.concatenate([np.sin(col * omega), np.cos(col * omega),
                                   np.sin(row * omega), np.cos(row * omega)])
        np.testing.assert_allclose(table[idx], expected, atol=1e-6)


def test_similarity_is_translation_invariant_on_the_grid():
    table = pc.sincos_2d(6, 6, 32)
    sim = similarity_matrix(table)
    # patch (1,1)->(2,3) and (3,2)->(4,4) have the same displacement
    assert sim[1 * 6 + 1, 2 * 6 + 3] == pytest.approx(sim[3 * 6 + 2, 4 * 6 + 4], abs=1e-5)


@pytest.mark.parametrize("args, message", [((4, 4, 6), "multiple of 4"), ((0, 4, 8), "at least 1"),
                                           ((4, 4, 8, 1.0), "greater than 1")])
def test_bad_arguments(args, message):
    with pytest.raises(ValueError, match=message):
        pc.sincos_2d(*args)


def test_sincos_2d_at_integer_coordinates_is_the_table():
    np.testing.assert_allclose(sincos_2d_at(np.arange(4), np.arange(6), 32), pc.sincos_2d(4, 6, 32), atol=1e-6)


def test_flattened_code_is_the_1d_helper_on_the_raster_index():
    flat = flattened_sincos(3, 4, 16).astype(np.float64)
    omega = 1.0 / 10000 ** (np.arange(8) / 8)
    p = np.arange(12)[:, None]
    np.testing.assert_allclose(flat, np.concatenate([np.sin(p * omega), np.cos(p * omega)], axis=1), atol=1e-5)


def test_patch_similarity_maps_brute_force_and_prefix_rows_skipped():
    table = pc.sincos_2d(3, 4, 16)
    with_cls = np.vstack([np.full((2, 16), 5.0), table])
    maps = patch_similarity_maps(with_cls, 3, 4, "cosine", num_prefix_tokens=2)
    assert maps.shape == (12, 3, 4)
    a, b = table[5].astype(np.float64), table[10].astype(np.float64)
    assert maps[5, 10 // 4, 10 % 4] == pytest.approx(a @ b / np.linalg.norm(a) / np.linalg.norm(b), abs=1e-5)
    np.testing.assert_allclose(np.diagonal(maps.reshape(12, 12)), 1.0, atol=1e-5)
    # MAE's code: cosine = (2/d) [sum cos(dc w) + sum cos(dr w)]
    omega = 1.0 / 10000 ** (np.arange(4) / 4)
    dr, dc = 2 - 1, 2 - 1  # patch 5 = (1, 1), patch 10 = (2, 2)
    assert maps[5, 2, 2] == pytest.approx((np.cos(dc * omega).sum() + np.cos(dr * omega).sum()) / 8, abs=1e-5)


def test_learned_like_grid_is_seeded_smooth_and_normalised():
    a, b = learned_like_grid(8, 8, 16, seed=2), learned_like_grid(8, 8, 16, seed=2)
    np.testing.assert_array_equal(a, b)
    assert np.allclose(a.std(axis=0), 1.0, atol=1e-4)
    sim = patch_similarity_maps(a, 8, 8)
    # neighbours are more alike than far-apart patches
    assert sim[3 * 8 + 3, 3, 4] > sim[3 * 8 + 3, 7, 0]


def _timm_reference(posemb, old, new, prefix, mode, antialias):
    """timm's resample_abs_pos_embed, step by step with plain torch calls."""
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    x = torch.from_numpy(posemb)[None]  # (1, N, C)
    head, grid = x[:, :prefix], x[:, prefix:]
    grid = grid.reshape(1, old[0], old[1], -1).permute(0, 3, 1, 2)
    grid = F.interpolate(grid, size=new, mode=mode, antialias=antialias)
    grid = grid.permute(0, 2, 3, 1).reshape(1, -1, posemb.shape[1])
    return torch.cat([head, grid], dim=1)[0].numpy()


@pytest.mark.parametrize("mode, antialias", [("bicubic", True), ("bicubic", False), ("bilinear", True),
                                             ("bilinear", False)])
@pytest.mark.parametrize("new", [(24, 24), (10, 20), (7, 7)])
def test_resample_matches_timm(mode, antialias, new):
    table = np.vstack([np.arange(32, dtype=np.float32)[None], learned_like_grid(14, 14, 32, seed=0)])
    ours = pc.resample_pos_embed(table, (14, 14), new, 1, mode, antialias)
    np.testing.assert_allclose(ours, _timm_reference(table, (14, 14), new, 1, mode, antialias), atol=1e-6)
    np.testing.assert_array_equal(ours[0], table[0])  # [CLS] kept aside and put back unchanged
    assert ours.shape == (1 + new[0] * new[1], 32)


def test_nearest_and_identity_and_antialias_effect():
    pytest.importorskip("torch")
    grid = learned_like_grid(6, 6, 8, seed=0)
    np.testing.assert_allclose(pc.resample_pos_embed(grid, (6, 6), (6, 6)), grid, atol=1e-5)
    doubled = pc.resample_pos_embed(grid, (6, 6), (12, 12), mode="nearest", antialias=True).reshape(12, 12, 8)
    np.testing.assert_array_equal(doubled[::2, ::2], grid.reshape(6, 6, 8))
    np.testing.assert_array_equal(doubled[1::2, 1::2], grid.reshape(6, 6, 8))
    on = pc.resample_pos_embed(grid, (6, 6), (12, 12), antialias=True)
    off = pc.resample_pos_embed(grid, (6, 6), (12, 12), antialias=False)
    assert np.abs(on - off).max() > 1e-3  # PIL's a = -0.5 kernel vs a = -0.75, even when enlarging


def test_resized_sincos_is_close_to_exact_sincos_at_the_sampled_coordinates():
    pytest.importorskip("torch")
    np.testing.assert_allclose(resample_source_coords(14, 28)[:2], [-0.25, 0.25])
    errors = resample_sincos_error(14, 24, 32)
    assert errors.shape == (32,)
    assert errors[0] > errors[7] and errors[7] < 1e-3  # fast channel errs, slow channel nearly exact
    assert resample_sincos_error(14, 24, 32, mode="nearest")[0] > errors[0]


def test_matching_cell():
    assert matching_cell(0, 14, 24) == 0 and matching_cell(13, 14, 24) == 23
    assert matching_cell(7, 14, 24) == 12  # centre 7.5/14 of the image -> cell 12 of 24 (12.86 -> 12)


@pytest.mark.parametrize("call, message", [
    (lambda: pc.resample_pos_embed(np.zeros((10, 4)), (3, 3), (5, 5)), "prefix rows plus 3 x 3"),
    (lambda: pc.resample_pos_embed(np.zeros((9, 4)), (3, 3), (5, 5), mode="area"), "mode must be one of"),
    (lambda: pc.resample_pos_embed(np.zeros((9, 4)), (3, 3), 5), "pairs"),
    (lambda: pc.resample_pos_embed(np.zeros((9, 4)), (3, 3), (0, 5)), "at least 1"),
    (lambda: pc.resample_pos_embed(np.zeros((9, 4)), (3, 3), (4096, 4096)), "cap"),
    (lambda: patch_similarity_maps(np.zeros((5, 4)), 2, 2), "prefix rows"),
    (lambda: patch_similarity_maps(np.zeros((4, 4)), 2, 2, metric="l2"), "metric must be one of"),
    (lambda: flattened_sincos(2, 2, 5), "even"),
    (lambda: learned_like_grid(2, 2, 4, smoothness=-1), "at least 0"),
    (lambda: sincos_2d_at([0, 1], [0], 6), "multiple of 4"),
    (lambda: matching_cell(5, 4, 8), "at most 3"),
])
def test_vision_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_resample_without_torch_says_so(monkeypatch):
    import posenc_core._backend as backend

    monkeypatch.setattr(backend, "torch_installed", lambda: False)
    with pytest.raises(pc.MissingExtraError, match=r"Resizing a position grid.*needs PyTorch.*posenc-core\[torch\]"):
        pc.resample_pos_embed(np.zeros((4, 4)), (2, 2), (3, 3))


def test_vit_position_table_puts_prefix_rows_first_and_resizing_keeps_them():
    pytest.importorskip("torch")
    table = vit_position_table("sincos", 4, 16, num_prefix_tokens=2, seed=0)
    assert table.shape == (2 + 16, 16) and table.dtype == np.float32
    np.testing.assert_allclose(table[2:], pc.sincos_2d(4, 4, 16))
    resized = pc.resample_pos_embed(table, (4, 4), (6, 6), 2, "bicubic", True)
    assert prefix_change(table, resized, 2) == 0.0
    assert prefix_change(table, table + 1, 2) == pytest.approx(1.0)
    assert prefix_change(table, resized, 0) == 0.0
    with pytest.raises(ValueError, match="source"):
        vit_position_table("random", 4, 16)


# ---------------------------------------------------------------------------------------------------------
# Axial 2D RoPE

axial_dims = st.sampled_from([4, 8, 16, 64])


def test_axial_rope_by_hand_on_a_2x2_grid():
    # d = 4: each half is one pair turning at theta_0 = base^0 = 1 rad per row (first half) or column (second)
    rows, cols = [0, 0, 1, 1], [0, 1, 0, 1]
    out = pc.rope_2d_axial(np.tile([1.0, 0.0, 1.0, 0.0], (4, 1)), rows, cols, base=100.0)
    expected = [[np.cos(r), np.sin(r), np.cos(c), np.sin(c)] for r, c in zip(rows, cols, strict=True)]
    np.testing.assert_allclose(out, expected, atol=1e-7)

    maps = rope_2d_score_maps(2, 2, 4, 0, 0, base=100.0)
    c1 = math.cos(1.0)
    # all-ones q, k: every pair adds 2 cos(offset * theta); axial pairs see (drow, dcol), flat ones see
    # the raster offset with 1D frequencies (1, 100^(-1/2) = 0.1)
    np.testing.assert_allclose(maps.axial, [[4, 2 + 2 * c1], [2 + 2 * c1, 4 * c1]], atol=1e-6)
    flat = [[2 * math.cos(p) + 2 * math.cos(0.1 * p) for p in (0, 1)],
            [2 * math.cos(p) + 2 * math.cos(0.1 * p) for p in (2, 3)]]
    np.testing.assert_allclose(maps.flat, flat, atol=1e-6)
    assert maps.query_index == 0
    vertical = maps.vertical
    assert (vertical.label, vertical.row, vertical.col, vertical.raster_distance) == ("below", 1, 0, 2)
    assert (vertical.axial, vertical.flat) == pytest.approx((2 + 2 * c1, flat[1][0]))


@settings(max_examples=40, deadline=None)
@given(d=axial_dims, layout=st.sampled_from(ROPE_LAYOUTS), seed=st.integers(0, 10**6),
       positions=st.lists(st.integers(0, 200), min_size=4, max_size=4),
       shift=st.tuples(st.integers(-100, 100), st.integers(-100, 100)))
def test_axial_score_depends_only_on_the_offset(d, layout, seed, positions, shift):
    q, k = np.random.default_rng(seed).standard_normal((2, 1, d))
    r1, c1, r2, c2 = positions

    def score(rq, cq, rk, ck):
        return float(pc.rope_2d_axial(q, [rq], [cq], layout=layout)[0] @ pc.rope_2d_axial(k, [rk], [ck],
                                                                                            layout=layout)[0])

    moved = score(r1 + shift[0], c1 + shift[1], r2 + shift[0], c2 + shift[1])
    # angles are float32 (as in transformers): about 1e-7 of a 300-position angle, times |q| |k|
    assert moved == pytest.approx(score(r1, c1, r2, c2), abs=1e-4 * np.linalg.norm(q) * np.linalg.norm(k))


@settings(max_examples=30, deadline=None)
@given(d=axial_dims, layout=st.sampled_from(ROPE_LAYOUTS), seed=st.integers(0, 10**6))
def test_axial_rope_preserves_norms(d, layout, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((3, 10, d))
    out = pc.rope_2d_axial(x, rng.integers(0, 64, 10), rng.integers(0, 64, 10), layout=layout)
    np.testing.assert_allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-6)


@pytest.mark.parametrize("layout", ROPE_LAYOUTS)
def test_axial_rope_with_one_coordinate_at_zero_is_1d_rope(layout):
    x = np.random.default_rng(0).standard_normal((2, 6, 16))
    positions = np.array([0, 1, 2, 5, 9, 13])
    zeros = np.zeros(6)
    half_size, _ = pc.rope_inv_freq(8, 100.0)  # a RoPE of size d/2 = 8
    # all rows 0: the row half turns by angle 0 (untouched), the column half is 1D RoPE of size d/2
    by_col = pc.rope_2d_axial(x, zeros, positions, 100.0, layout=layout)
    np.testing.assert_array_equal(by_col[..., :8], x[..., :8])
    np.testing.assert_allclose(by_col[..., 8:], pc.apply_rope(x[..., 8:], positions, half_size, layout), atol=1e-12)
    # all columns 0: 1D RoPE of the whole head with partial rotary 1/2 (first half turns, the rest passes through)
    partial, _ = pc.rope_inv_freq(16, 100.0, partial_rotary_factor=0.5)
    np.testing.assert_array_equal(partial, half_size)
    by_row = pc.rope_2d_axial(x, positions, zeros, 100.0, layout=layout)
    np.testing.assert_allclose(by_row, pc.apply_rope(x, positions, partial, layout), atol=1e-12)


def test_axial_rope_matches_the_complex_form_with_either_half_first():
    """Brute force: each interleaved pair as a complex number times e^(i * coordinate * theta_i).
    RoPE-ViT's code puts the column half first, which is the same function with rows and cols swapped."""
    d, base = 16, 100.0
    rng = np.random.default_rng(1)
    x, rows, cols = rng.standard_normal((5, d)), rng.integers(0, 30, 5), rng.integers(0, 30, 5)
    theta = base ** (-np.arange(d // 4) * 4.0 / d)  # base^(-2i/(d/2))

    def turn(half, coords):  # (n, d/2) -> (n, d/2)
        z = (half[:, 0::2] + 1j * half[:, 1::2]) * np.exp(1j * np.outer(coords, theta))
        return np.stack([z.real, z.imag], axis=-1).reshape(half.shape)

    row_first = np.concatenate([turn(x[:, : d // 2], rows), turn(x[:, d // 2:], cols)], axis=1)
    np.testing.assert_allclose(pc.rope_2d_axial(x, rows, cols, base, layout="interleaved"), row_first, atol=1e-5)
    col_first = np.concatenate([turn(x[:, : d // 2], cols), turn(x[:, d // 2:], rows)], axis=1)
    np.testing.assert_allclose(pc.rope_2d_axial(x, cols, rows, base, layout="interleaved"), col_first, atol=1e-5)


def test_axial_rope_matches_transformers_qwen2_vl_vision_rotary_up_to_a_permutation():
    pytest.importorskip("torch")
    qwen2_vl = pytest.importorskip("transformers.models.qwen2_vl.modeling_qwen2_vl")
    if not hasattr(qwen2_vl, "Qwen2VLVisionRotaryEmbedding"):
        pytest.skip("this transformers version has no Qwen2VLVisionRotaryEmbedding(config)")
    import torch

    d, base, h, w = 16, 10000.0, 3, 5
    config = types.SimpleNamespace(rope_parameters={"rope_type": "axial", "rope_theta": base}, head_dim=d)
    rotary = qwen2_vl.Qwen2VLVisionRotaryEmbedding(config)
    rows, cols = np.divmod(np.arange(h * w), w)
    x = np.random.default_rng(2).standard_normal((h * w, 1, d)).astype(np.float32)  # (n, heads, d)
    cos, sin = rotary(torch.from_numpy(x), torch.from_numpy(np.stack([rows, cols], axis=1)))  # ids (n, 2): h, w
    theirs, _ = qwen2_vl.apply_rotary_pos_emb_vision(torch.from_numpy(x), torch.from_numpy(x), cos, sin)
    # transformers pairs j with j + d/2 over the whole head, rows on j < d/4; here each half pairs i with i + d/4
    q = d // 4
    perm = np.concatenate([np.arange(0, q), np.arange(2 * q, 3 * q), np.arange(q, 2 * q), np.arange(3 * q, 4 * q)])
    ours = pc.rope_2d_axial(x[:, 0, perm], rows, cols, base)
    np.testing.assert_allclose(ours, theirs.numpy()[:, 0, perm], atol=1e-5)


def test_axial_rope_numpy_and_torch_agree():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(3).standard_normal((2, 6, 16))
    rows, cols = [0, 0, 1, 1, 7, 7], [0, 3, 0, 3, 2, 9]
    ours = pc.rope_2d_axial(x, rows, cols)
    from_tensor = pc.rope_2d_axial(torch.from_numpy(x), rows, cols)
    asked = pc.rope_2d_axial(x, rows, cols, backend="torch", device="cpu")
    for out in (from_tensor, asked):
        assert isinstance(out, torch.Tensor) and out.dtype == torch.float64 and out.shape == x.shape
        np.testing.assert_allclose(out.numpy(), ours, atol=1e-6)


def test_all_ones_score_maps_are_d_times_the_sincos_similarity_maps():
    """With q = k = 1 every pair adds 2 cos(angle): the RoPE frequencies base^(-2i/(d/2)) are MAE's
    per-axis frequencies, so the axial map is d x the 2D sin-cos cosine map, and the flat map d x the
    flattened 1D one."""
    h, w, d, base = 5, 7, 32, 1000.0
    maps = rope_2d_score_maps(h, w, d, 3, 2, base)
    sincos = patch_similarity_maps(pc.sincos_2d(h, w, d, base), h, w)[3 * w + 2]
    flat = patch_similarity_maps(flattened_sincos(h, w, d, base), h, w)[3 * w + 2]
    np.testing.assert_allclose(maps.axial, d * sincos, atol=1e-4)
    np.testing.assert_allclose(maps.flat, d * flat, atol=1e-4)


def test_flattened_rope_treats_the_patch_below_as_far_away():
    maps = rope_2d_score_maps(14, 14, 64, 4, 9)
    below, right = maps.vertical, maps.horizontal
    assert (below.label, below.raster_distance, right.raster_distance) == ("below", 14, 1)
    assert below.axial == pytest.approx(right.axial, abs=1e-5)  # same frequencies on both axes
    assert below.flat < right.flat - 10
    shaped = rope_2d_score_maps(14, 14, 64, 4, 9, vectors="random", seed=5)  # q = k: still peaks at the query
    assert np.unravel_index(shaped.axial.argmax(), (14, 14)) == (4, 9)
    assert shaped.vertical.axial != pytest.approx(shaped.horizontal.axial, abs=1e-3)
    edge = rope_2d_score_maps(3, 4, 8, 2, 3)  # last row and column: the neighbours are above and left
    assert (edge.vertical.label, edge.horizontal.label) == ("above", "left")
    assert rope_2d_score_maps(1, 4, 8, 0, 1).vertical is None


@pytest.mark.parametrize("vectors", AXIAL_QK)
def test_relative_check_over_all_pairs(vectors):
    check = rope_2d_relative_check(6, 9, 32, 100.0, vectors=vectors, seed=4)
    assert check.axial < 1e-5 * check.scale and check.flat < 1e-4 * check.scale
    if vectors == "ones":
        assert check.scale == pytest.approx(32, abs=1e-4)


@pytest.mark.parametrize("call, message", [
    (lambda: pc.rope_2d_axial(np.zeros((3, 7)), [0, 1, 2], [0, 1, 2]), "even"),
    (lambda: pc.rope_2d_axial(np.zeros((3, 2)), [0, 1, 2], [0, 1, 2]), "at least 4"),
    (lambda: pc.rope_2d_axial(np.zeros((3, 6)), [0, 1, 2], [0, 1, 2]), "multiple of 4"),
    (lambda: rope_2d_score_maps(4, 4, 16388, 0, 0), "at most 16,384"),
    (lambda: pc.rope_2d_axial(np.zeros((3, 8)), [0, 1], [0, 1]), "one coordinate per vector"),
    (lambda: pc.rope_2d_axial(np.zeros((3, 8)), [0, 1, 2], [0, 1]), "one coordinate per vector"),
    (lambda: pc.rope_2d_axial(np.zeros((2, 8)), [0, np.nan], [0, 1]), "finite"),
    (lambda: pc.rope_2d_axial(np.zeros((2, 8)), [0, 1], [0, 1], layout="spiral"), "layout must be one of"),
    (lambda: pc.rope_2d_axial(np.zeros((2, 8)), [0, 1], [0, 1], base=1.0), "greater than 1"),
    (lambda: rope_2d_score_maps(5000, 4, 8, 0, 0), "at most 4,096"),
    (lambda: rope_2d_score_maps(4096, 4096, 8, 0, 0), "cap"),
    (lambda: rope_2d_relative_check(100, 100, 4), "cap"),
    (lambda: rope_2d_score_maps(4, 5, 8, 4, 0), "outside the 4 x 5 grid"),
    (lambda: rope_2d_score_maps(4, 5, 8, 0, -1), "outside the 4 x 5 grid"),
    (lambda: rope_2d_score_maps(4, 5, 8, 0, 0, vectors="zeros"), "vectors must be one of"),
    (lambda: rope_2d_score_maps(4, 5, 8, 0, 0, vectors="random", seed=-1), "at least 0"),
])
def test_axial_rope_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ---------------------------------------------------------------------------------------------------------
# The numbers the lessons state: neighbours, layout, resize bookkeeping and what-ifs


def test_grid_neighbours_pick_the_far_side_at_an_edge():
    grid = np.arange(12.0).reshape(3, 4)
    inside = grid_neighbours(grid, 1, 1)
    assert inside.query == 5.0
    assert (inside.side.label, inside.side.cell, inside.side.value) == ("right", (1, 2), 6.0)
    assert (inside.vertical.label, inside.vertical.value) == ("below", 9.0)
    assert inside.diagonal.value == 10.0
    corner = grid_neighbours(grid, 2, 3)
    assert (corner.side.label, corner.side.value) == ("left", 10.0)
    assert (corner.vertical.label, corner.vertical.value) == ("above", 7.0)
    assert corner.diagonal.cell == (1, 2)
    with pytest.raises(ValueError, match="at least 2 x 2"):
        grid_neighbours(np.zeros((1, 5)), 0, 0)


@given(st.integers(2, 8), st.integers(2, 8), st.sampled_from([8, 16, 32]), st.data())
@settings(max_examples=20, deadline=None)
def test_sincos_neighbours_read_the_similarity_maps(h, w, dim, data):
    row, col = data.draw(st.integers(0, h - 1)), data.draw(st.integers(0, w - 1))
    near = sincos_neighbours(h, w, dim, 100.0, row, col)
    maps = patch_similarity_maps(pc.sincos_2d(h, w, dim, 100.0), h, w, "cosine")[row * w + col]
    flat = patch_similarity_maps(flattened_sincos(h, w, dim, 100.0), h, w, "cosine")[row * w + col]
    for code, grid in ((near.grid, maps), (near.flat, flat)):
        for cell in (code.side, code.vertical, code.diagonal):
            assert cell.value == float(grid[cell.cell])
    assert near.index == row * w + col and near.raster_step == w
    # in the 2D code one step is one step either way; the diagonal differs in both halves
    assert near.grid.side.value == pytest.approx(near.grid.vertical.value, abs=1e-6)
    assert near.grid.diagonal.value < near.grid.side.value


def test_a_larger_base_makes_the_neighbour_more_similar():
    for base in (100.0, 1000.0, 10000.0, 100000.0):
        now = sincos_neighbours(14, 14, 64, base, 4, 9).grid.side.value
        assert sincos_neighbours(14, 14, 64, 10 * base, 4, 9).grid.side.value > now


def test_sincos_layout_names_the_halves():
    assert sincos_layout(3, 5, 16) == SincosLayout(patches=15, column_channels=(0, 7), row_channels=(8, 15),
                                                   frequencies=4)
    with pytest.raises(ValueError, match="multiple of 4"):
        sincos_layout(3, 5, 10)


def test_resize_plan_counts_rows_and_maps_the_cell():
    plan = resize_plan(14, 24, 1, 3, 9)
    assert plan.new_cell == (matching_cell(3, 14, 24), matching_cell(9, 14, 24))
    assert plan.index_before == 3 * 14 + 9 and plan.index_after == plan.new_cell[0] * 24 + plan.new_cell[1]
    assert (plan.rows_before, plan.rows_after) == (197, 577) and plan.stretch == 24 / 14
    assert [resize_what_if_size(n, 32) for n in (4, 16, 17, 32)] == [8, 32, 8, 16]
    with pytest.raises(ValueError, match="at most 32"):
        resize_what_if_size(40, 32)


def test_resize_neighbour_reads_the_maps_the_page_draws():
    pytest.importorskip("torch")
    result = resize_neighbour("sincos", 6, 9, 16, 1, "bicubic", True, 2, 5)  # column 5 is the last: step left
    assert result.side == "left"
    table = vit_position_table("sincos", 6, 16, 1)
    resized = pc.resample_pos_embed(table, (6, 6), (9, 9), 1, "bicubic", True)
    r, c = result.new_cell
    assert result.before == float(patch_similarity_maps(table, 6, 6, "cosine", 1)[2 * 6 + 5][2, 4])
    assert result.after == float(patch_similarity_maps(resized, 9, 9, "cosine", 1)[r * 9 + c][r, c - 1])
    nearest = resize_neighbour("sincos", 4, 8, 16, 0, "nearest", True, 1, 0)
    # nearest copies each old cell onto a 2 x 2 block: the step from the block's second cell is an old step
    assert nearest.after == pytest.approx(nearest.before, abs=1e-6)


def test_resize_profile_and_errors_agree_with_the_resize():
    pytest.importorskip("torch")
    curves = resize_profile("sincos", 6, 9, 16, 1, True, 4, 0)
    resized = pc.resample_pos_embed(vit_position_table("sincos", 6, 16, 1), (6, 6), (9, 9), 1, "bilinear", True)
    np.testing.assert_array_equal(curves.series["bilinear"], resized[1:].reshape(9, 9, 16)[4, :, 0])
    np.testing.assert_array_equal(curves.coords, resample_source_coords(6, 9))
    assert curves.exact.shape == (9,) and resize_profile("learned", 6, 9, 16, 0, True, 4, 0).exact is None
    errors = sincos_resize_errors(6, 9, 16)
    for mode in RESIZE_MODES:
        np.testing.assert_array_equal(errors.by_mode[mode], resample_sincos_error(6, 9, 16, 10000.0, mode))
        assert errors.first_channel[mode] == errors.by_mode[mode][0]
    with pytest.raises(ValueError, match="channel"):
        resize_profile("sincos", 6, 9, 16, 0, True, 4, 16)
