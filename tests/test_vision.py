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
