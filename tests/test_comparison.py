import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from lessons.attention_bias.compare_views import CURVE_LABELS, METHOD_WORDS, comparison_table
from posenc_core.absolute import sinusoidal_at
from posenc_core.attention_bias import (
    CURVES,
    METHODS,
    parameter_counts,
    score_curves,
    t5_bucket_layout,
    t5_bucket_values,
)
from posenc_core.rope import rope_decay_bound


def test_table_has_one_row_per_method_and_every_cell_filled():
    table = comparison_table(parameter_counts())
    names = table["method"]
    assert names == [METHOD_WORDS[m.key].name for m in METHODS]
    assert {"Sinusoidal", "Learned absolute", "RoPE", "ALiBi", "T5 buckets", "Shaw relative", "NoPE"} == set(names)
    for column, cells in table.items():
        assert len(cells) == len(names), column
        assert all(str(c).strip() for c in cells), column
    assert table["count for this model"] == list(parameter_counts().values())


def test_every_code_has_its_words():
    assert list(METHOD_WORDS) == [m.key for m in METHODS] == list(parameter_counts())
    assert list(CURVE_LABELS) == list(CURVES) == list(score_curves(4)[1])


def test_parameter_counts_for_a_known_shape():
    counts = parameter_counts(d_model=768, n_heads=12, n_layers=12, max_len=1024, num_buckets=32, max_rel=16)
    assert counts["learned"] == 1024 * 768  # GPT-2 small's wpe
    assert counts["t5"] == 32 * 12
    assert counts["shaw"] == 2 * 33 * 64 * 12
    assert counts["sinusoidal"] == counts["rope"] == counts["alibi"] == counts["nope"] == 0


def test_raw_curves_match_their_formulas():
    r, curves = score_curves(max_r=300, dim=32, base=10000.0, alibi_heads=8, alibi_head=3, num_buckets=32,
                                max_distance=128, seed=5)
    omega = 10000.0 ** (-np.arange(0, 32, 2) / 32)
    np.testing.assert_allclose(curves["sinusoidal"], np.cos(np.outer(r, omega)).sum(axis=1),
                               atol=1e-9)
    np.testing.assert_allclose(curves["rope"], rope_decay_bound(32, r), rtol=1e-6)
    np.testing.assert_allclose(curves["alibi"], -r / 8)
    values = t5_bucket_values(32, False, 5)
    t5 = curves["t5"]
    assert t5[0] == values[0] and t5[5] == values[5]  # exact region: bucket = distance
    assert np.all(t5[t5_bucket_layout(False, 32, 128).last_bucket_from:] == values[31])  # saturated


@settings(max_examples=20, deadline=None)
@given(max_r=st.integers(1, 400), dim=st.sampled_from([2, 8, 64]), head=st.integers(1, 8), seed=st.integers(0, 9))
def test_relative_scale_starts_at_zero_and_peaks_at_one(max_r, dim, head, seed):
    _, curves = score_curves(max_r=max_r, dim=dim, alibi_head=head, seed=seed, scale="relative",
                                num_buckets=16, max_distance=64)
    for name, values in curves.items():
        assert values[0] == 0, name
        assert np.abs(values).max() == pytest.approx(1.0) or np.all(values == 0), name


@pytest.mark.parametrize("call, message", [
    (lambda: parameter_counts(d_model=100, n_heads=8), "split evenly"),
    (lambda: parameter_counts(n_layers=0), "at least 1"),
    (lambda: score_curves(max_r=0), "at least 1"),
    (lambda: score_curves(dim=7), "even"),
    (lambda: score_curves(alibi_heads=4, alibi_head=5), "at most 4"),
    (lambda: score_curves(scale="log"), "scale"),
    (lambda: score_curves(base=1.0), "greater than 1"),
    (lambda: score_curves(max_r=1 << 20, dim=1024), "cap"),
])
def test_bad_arguments_raise_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def _score_curves_reference(max_r, dim, base, alibi_head, seed, scale):
    """score_curves as it was before the sinusoidal curve skipped its sines: the whole float64 table."""
    r = np.arange(max_r + 1, dtype=np.float64)
    origin = sinusoidal_at([0], dim, base, dtype="float64")[0]
    curves = {"sinusoidal": sinusoidal_at(r, dim, base, dtype="float64") @ origin,
              "rope": rope_decay_bound(dim, r, base).astype(np.float64),
              "alibi": 0.0 - float(pc.alibi_slopes(8)[alibi_head - 1]) * r,
              "t5": t5_bucket_values(32, False, seed).astype(np.float64)[
                  pc.t5_relative_position_bucket(-r, False, 32, 128)]}
    if scale == "relative":
        for name, values in curves.items():
            change = values - values[0]
            peak = float(np.abs(change).max())
            curves[name] = change / peak if peak > 0 else change
    return r, curves


@settings(max_examples=25, deadline=None)
@given(max_r=st.sampled_from([1, 2, 31, 257, 1000, 4096]), dim=st.sampled_from([2, 16, 64, 256]),
       base=st.sampled_from([10000.0, 500000.0, 1.5]), head=st.integers(1, 8), seed=st.integers(0, 9),
       scale=st.sampled_from(["raw", "relative"]))
def test_score_curves_match_the_full_table_bit_for_bit(max_r, dim, base, head, seed, scale):
    r, curves = score_curves(max_r, dim, base, 8, head, 32, 128, seed, scale)
    ref_r, ref = _score_curves_reference(max_r, dim, base, head, seed, scale)
    assert np.array_equal(r, ref_r) and list(curves) == list(ref)
    for name in ref:
        assert np.array_equal(curves[name], ref[name]), name
