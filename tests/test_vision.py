import numpy as np
import pytest

import posenc_core as pc


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
    sim = pc.similarity_matrix(table)
    # patch (1,1)->(2,3) and (3,2)->(4,4) have the same displacement
    assert sim[1 * 6 + 1, 2 * 6 + 3] == pytest.approx(sim[3 * 6 + 2, 4 * 6 + 4], abs=1e-5)


@pytest.mark.parametrize("args, message", [((4, 4, 6), "multiple of 4"), ((0, 4, 8), "at least 1"),
                                           ((4, 4, 8, 1.0), "greater than 1")])
def test_bad_arguments(args, message):
    with pytest.raises(ValueError, match=message):
        pc.sincos_2d(*args)


def test_sincos_2d_at_integer_coordinates_is_the_table():
    np.testing.assert_allclose(pc.sincos_2d_at(np.arange(4), np.arange(6), 32), pc.sincos_2d(4, 6, 32), atol=1e-6)


def test_flattened_code_is_the_1d_helper_on_the_raster_index():
    flat = pc.flattened_sincos(3, 4, 16).astype(np.float64)
    omega = 1.0 / 10000 ** (np.arange(8) / 8)
    p = np.arange(12)[:, None]
    np.testing.assert_allclose(flat, np.concatenate([np.sin(p * omega), np.cos(p * omega)], axis=1), atol=1e-5)


def test_patch_similarity_maps_brute_force_and_prefix_rows_skipped():
    table = pc.sincos_2d(3, 4, 16)
    with_cls = np.vstack([np.full((2, 16), 5.0), table])
    maps = pc.patch_similarity_maps(with_cls, 3, 4, "cosine", num_prefix_tokens=2)
    assert maps.shape == (12, 3, 4)
    a, b = table[5].astype(np.float64), table[10].astype(np.float64)
    assert maps[5, 10 // 4, 10 % 4] == pytest.approx(a @ b / np.linalg.norm(a) / np.linalg.norm(b), abs=1e-5)
    np.testing.assert_allclose(np.diagonal(maps.reshape(12, 12)), 1.0, atol=1e-5)
    # MAE's code: cosine = (2/d) [sum cos(dc w) + sum cos(dr w)]
    omega = 1.0 / 10000 ** (np.arange(4) / 4)
    dr, dc = 2 - 1, 2 - 1  # patch 5 = (1, 1), patch 10 = (2, 2)
    assert maps[5, 2, 2] == pytest.approx((np.cos(dc * omega).sum() + np.cos(dr * omega).sum()) / 8, abs=1e-5)


def test_learned_like_grid_is_seeded_smooth_and_normalised():
    a, b = pc.learned_like_grid(8, 8, 16, seed=2), pc.learned_like_grid(8, 8, 16, seed=2)
    np.testing.assert_array_equal(a, b)
    assert np.allclose(a.std(axis=0), 1.0, atol=1e-4)
    sim = pc.patch_similarity_maps(a, 8, 8)
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
    table = np.vstack([np.arange(32, dtype=np.float32)[None], pc.learned_like_grid(14, 14, 32, seed=0)])
    ours = pc.resample_pos_embed(table, (14, 14), new, 1, mode, antialias)
    np.testing.assert_allclose(ours, _timm_reference(table, (14, 14), new, 1, mode, antialias), atol=1e-6)
    np.testing.assert_array_equal(ours[0], table[0])  # [CLS] kept aside and put back unchanged
    assert ours.shape == (1 + new[0] * new[1], 32)


def test_nearest_and_identity_and_antialias_effect():
    pytest.importorskip("torch")
    grid = pc.learned_like_grid(6, 6, 8, seed=0)
    np.testing.assert_allclose(pc.resample_pos_embed(grid, (6, 6), (6, 6)), grid, atol=1e-5)
    doubled = pc.resample_pos_embed(grid, (6, 6), (12, 12), mode="nearest", antialias=True).reshape(12, 12, 8)
    np.testing.assert_array_equal(doubled[::2, ::2], grid.reshape(6, 6, 8))
    np.testing.assert_array_equal(doubled[1::2, 1::2], grid.reshape(6, 6, 8))
    on = pc.resample_pos_embed(grid, (6, 6), (12, 12), antialias=True)
    off = pc.resample_pos_embed(grid, (6, 6), (12, 12), antialias=False)
    assert np.abs(on - off).max() > 1e-3  # PIL's a = -0.5 kernel vs a = -0.75, even when enlarging


def test_resized_sincos_is_close_to_exact_sincos_at_the_sampled_coordinates():
    pytest.importorskip("torch")
    np.testing.assert_allclose(pc.resample_source_coords(14, 28)[:2], [-0.25, 0.25])
    errors = pc.resample_sincos_error(14, 24, 32)
    assert errors.shape == (32,)
    assert errors[0] > errors[7] and errors[7] < 1e-3  # fast channel errs, slow channel nearly exact
    assert pc.resample_sincos_error(14, 24, 32, mode="nearest")[0] > errors[0]


def test_matching_cell():
    assert pc.matching_cell(0, 14, 24) == 0 and pc.matching_cell(13, 14, 24) == 23
    assert pc.matching_cell(7, 14, 24) == 12  # centre 7.5/14 of the image -> cell 12 of 24 (12.86 -> 12)


@pytest.mark.parametrize("call, message", [
    (lambda: pc.resample_pos_embed(np.zeros((10, 4)), (3, 3), (5, 5)), "prefix rows plus 3 x 3"),
    (lambda: pc.resample_pos_embed(np.zeros((9, 4)), (3, 3), (5, 5), mode="area"), "mode must be one of"),
    (lambda: pc.resample_pos_embed(np.zeros((9, 4)), (3, 3), 5), "pairs"),
    (lambda: pc.resample_pos_embed(np.zeros((9, 4)), (3, 3), (0, 5)), "at least 1"),
    (lambda: pc.resample_pos_embed(np.zeros((9, 4)), (3, 3), (4096, 4096)), "cap"),
    (lambda: pc.patch_similarity_maps(np.zeros((5, 4)), 2, 2), "prefix rows"),
    (lambda: pc.patch_similarity_maps(np.zeros((4, 4)), 2, 2, metric="l2"), "metric must be one of"),
    (lambda: pc.flattened_sincos(2, 2, 5), "even"),
    (lambda: pc.learned_like_grid(2, 2, 4, smoothness=-1), "at least 0"),
    (lambda: pc.sincos_2d_at([0, 1], [0], 6), "multiple of 4"),
    (lambda: pc.matching_cell(5, 4, 8), "at most 3"),
])
def test_vision_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_resample_without_torch_says_so(monkeypatch):
    import posenc_core.vision as vision

    def missing():
        raise ValueError("no torch")

    monkeypatch.setattr(vision, "require_torch", missing)
    with pytest.raises(ValueError, match="install torch"):
        pc.resample_pos_embed(np.zeros((4, 4)), (2, 2), (3, 3))


def test_vit_position_table_puts_prefix_rows_first_and_resizing_keeps_them():
    pytest.importorskip("torch")
    table = pc.vit_position_table("sincos", 4, 16, num_prefix_tokens=2, seed=0)
    assert table.shape == (2 + 16, 16) and table.dtype == np.float32
    np.testing.assert_allclose(table[2:], pc.sincos_2d(4, 4, 16))
    resized = pc.resample_pos_embed(table, (4, 4), (6, 6), 2, "bicubic", True)
    assert pc.prefix_change(table, resized, 2) == 0.0
    assert pc.prefix_change(table, table + 1, 2) == pytest.approx(1.0)
    assert pc.prefix_change(table, resized, 0) == 0.0
    with pytest.raises(ValueError, match="source"):
        pc.vit_position_table("random", 4, 16)
