"""Positions read from content: FoX, stick-breaking and PaTH against their papers' equations, small cases worked
by hand, the reductions (ALiBi, geometric decay, RoPE), and flash-linear-attention's pure-PyTorch references."""

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from posenc_core.todays_models import (
    ORDER_EXACT,
    fewer_frequencies,
    fox_attention,
    fox_bias,
    fox_gate_logit_for_slope,
    fox_sentence,
    order_test,
    path_householder,
    path_rope_transform,
    path_scores,
    path_sentence,
    path_transform_scores,
    path_two_reflections,
    sink_attention_map,
    stick_breaking_constant,
    stick_breaking_sentence,
    stick_breaking_weights,
    streaming_eviction,
)
from posenc_core.todays_models._toy_inputs import toy_weight

TEXT = "the cat sat on the mat because it was warm"


def _fla_reference(package: str, function: str):
    """A naive reference from fla-core, loaded from its file: fla's own __init__ imports triton, a GPU compiler."""
    spec = importlib.util.find_spec("fla")
    if spec is None or importlib.util.find_spec("einops") is None:
        pytest.skip("fla-core (requirements-dev.txt) is not installed")
    path = Path(spec.submodule_search_locations[0]) / "ops" / package / "naive.py"
    module_spec = importlib.util.spec_from_file_location(f"_fla_naive_{package}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return getattr(module, function)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# ---------------------------------------------------------------------------------------------- FoX

def test_fox_bias_by_hand():
    log_f = np.log([0.5, 0.25, 0.8])
    bias = fox_bias(log_f)
    # D_ij = sum of log f over the tokens after j up to i
    expected = np.array([[0, -np.inf, -np.inf],
                         [np.log(0.25), 0, -np.inf],
                         [np.log(0.25 * 0.8), np.log(0.8), 0]])
    np.testing.assert_allclose(bias, expected, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(length=st.integers(1, 12), seed=st.integers(0, 10**6))
def test_fox_bias_is_the_log_of_the_gate_product(length, seed):
    gates = np.random.default_rng(seed).uniform(0.05, 1.0, length)
    bias = fox_bias(np.log(gates))
    for i in range(length):
        for j in range(i + 1):
            assert bias[i, j] == pytest.approx(math.log(np.prod(gates[j + 1:i + 1])), abs=1e-9)


@pytest.mark.parametrize("n_heads", [1, 6, 8, 12])
def test_fox_with_a_constant_gate_is_alibi(n_heads):
    length = 20
    slopes = pc.alibi_slopes(n_heads).astype(np.float64)
    for h, slope in enumerate(slopes):
        gate = _sigmoid(fox_gate_logit_for_slope(slope))
        assert gate == pytest.approx(math.exp(-slope), rel=1e-12)
        fox = fox_bias(np.full(length, np.log(gate)))
        alibi = pc.alibi_bias(n_heads, length)[h].astype(np.float64)
        np.testing.assert_array_equal(np.isinf(fox), np.isinf(alibi))
        np.testing.assert_allclose(fox[np.isfinite(fox)], alibi[np.isfinite(alibi)], rtol=1e-6, atol=1e-6)


def test_fox_sentence_without_dependence_is_alibi_and_with_it_is_not():
    still = fox_sentence(TEXT, 8, 3, dependence=0.0)
    finite = np.isfinite(still.alibi)
    np.testing.assert_allclose(still.fox[finite], still.alibi[finite], atol=1e-5)
    assert still.effective_slope == pytest.approx(still.slope, rel=1e-9)
    assert still.alibi_gap < 1e-5
    moved = fox_sentence(TEXT, 8, 3, dependence=2.0)
    assert np.ptp(moved.local_slope) > 0.1  # the words now set different slopes
    # the total bias from the last word to the first is -(L - 1) times the effective slope
    assert moved.fox[-1, 0] == pytest.approx(-(len(moved.tokens) - 1) * moved.effective_slope)
    assert moved.fox_attention.sum() == pytest.approx(1.0)


def test_fox_matches_flash_linear_attention_reference():
    torch = pytest.importorskip("torch")
    naive = _fla_reference("forgetting_attn", "naive_forgetting_attn")
    rng = np.random.default_rng(0)
    length, heads, dim = 9, 2, 4
    q, k, v = (rng.standard_normal((1, length, heads, dim)) for _ in range(3))
    log_f = np.log(rng.uniform(0.3, 1.0, (1, length, heads)))
    ref = naive(*(torch.tensor(a) for a in (q, k, v, log_f))).double().numpy()  # (1, L, H, D), float32 inside
    for h in range(heads):
        logits = q[0, :, h] @ k[0, :, h].T / math.sqrt(dim)
        ours = fox_attention(logits, log_f[0, :, h]) @ v[0, :, h]
        np.testing.assert_allclose(ours, ref[0, :, h], atol=2e-5)


def test_fox_errors_name_the_field():
    with pytest.raises(ValueError, match="log_forget"):
        fox_bias([0.1, -0.2])
    with pytest.raises(ValueError, match="head"):
        fox_sentence(TEXT, 4, 5)
    with pytest.raises(ValueError, match="sentence"):
        fox_sentence("   ")


# ----------------------------------------------------------------------------------- stick-breaking

def _stick_by_recursion(logits, attend_current):
    """The paper's story as a loop: walk back from the query, each key takes beta of what is left."""
    length = logits.shape[0]
    weights, rest = np.zeros((length, length)), np.ones(length)
    for i in range(length):
        for j in range(i if attend_current else i - 1, -1, -1):
            beta = _sigmoid(logits[i, j])
            weights[i, j] = beta * rest[i]
            rest[i] *= 1 - beta
    return weights, rest


def test_stick_breaking_by_hand():
    # beta = 1/2 for every key: the nearest takes 1/2, the next 1/4, then 1/8; 1/8 is left
    out = stick_breaking_weights(np.zeros((4, 4)))
    np.testing.assert_allclose(out.weights[3], [0.125, 0.25, 0.5, 0.0])
    np.testing.assert_allclose(out.remainder, [1.0, 0.5, 0.25, 0.125])


@settings(max_examples=30, deadline=None)
@given(length=st.integers(1, 10), seed=st.integers(0, 10**6), attend_current=st.booleans())
def test_stick_breaking_follows_the_recursion_and_sums_to_at_most_one(length, seed, attend_current):
    logits = np.random.default_rng(seed).normal(0, 3, (length, length))
    out = stick_breaking_weights(logits, attend_current)
    weights, rest = _stick_by_recursion(logits, attend_current)
    np.testing.assert_allclose(out.weights, weights, atol=1e-12)
    np.testing.assert_allclose(out.remainder, rest, atol=1e-12)
    sums = out.weights.sum(-1)
    assert (sums <= 1 + 1e-12).all()
    np.testing.assert_allclose(sums + out.remainder, 1.0, atol=1e-12)


@pytest.mark.parametrize("logit", [-2.0, 0.0, 1.5])
def test_constant_logit_gives_a_geometric_decay_like_alibi(logit):
    out = stick_breaking_constant(logit, 12)
    t = out.distance
    np.testing.assert_allclose(out.weights, _sigmoid(logit) * _sigmoid(-logit) ** (t - 1), rtol=1e-12)
    # the same shape as softmax + ALiBi with slope softplus(z): proportional, only the normalisation differs
    assert out.slope == pytest.approx(math.log1p(math.exp(logit)))
    ratio = out.weights / out.alibi
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-10)
    assert out.weights.sum() + out.remainder == pytest.approx(1.0)
    assert out.ratio == pytest.approx(_sigmoid(-logit))


@pytest.mark.parametrize("attend_current", [False, True])
def test_stick_breaking_matches_flash_linear_attention_reference(attend_current):
    torch = pytest.importorskip("torch")
    naive = _fla_reference("stickbreaking_attn", "naive_stickbreaking_attn")
    rng = np.random.default_rng(1)
    length, heads, dim = 8, 2, 4
    q, k, v = (rng.standard_normal((1, length, heads, dim)) * 2 for _ in range(3))
    out, rem = naive(*(torch.tensor(a) for a in (q, k, v)), attend_current=attend_current)  # float64 inside
    for h in range(heads):
        got = stick_breaking_weights(q[0, :, h] @ k[0, :, h].T / math.sqrt(dim), attend_current)
        np.testing.assert_allclose(got.weights @ v[0, :, h], out[0, :, h].numpy(), atol=1e-10)
        np.testing.assert_allclose(got.remainder, rem[0, :, h].numpy(), atol=1e-10)


def test_stick_breaking_sentence_rows():
    out = stick_breaking_sentence(TEXT, level=1.0)
    np.testing.assert_allclose(out.alibi.sum(-1), 1.0)
    np.testing.assert_allclose(out.stick.sum(-1) + out.remainder, 1.0)
    assert out.stick[0].sum() == 0.0  # the first word sees no earlier key
    # a higher level lets the nearest keys take the stick: the mean distance falls
    far = stick_breaking_sentence(TEXT, level=-3.0).mean_distance["stick_breaking"]
    assert out.mean_distance["stick_breaking"] < far
    with pytest.raises(ValueError, match="logits"):
        stick_breaking_weights(np.zeros((2, 3)))


# ---------------------------------------------------------------------------------------------- PaTH

def test_path_by_hand_in_two_dimensions():
    q = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    w = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    beta = np.array([2.0, 1.0, 0.5])
    s = path_scores(q, k, w, beta)
    # s_10 = q_1 H_1 k_0 with H_1 = diag(0, 1): (1,0) . (0,0) = 0
    assert s[1, 0] == pytest.approx(0.0)
    # s_21 = q_2 H_2 k_1 with H_2 = diag(1, 0.5): (0,1) . (0, 0.5) = 0.5
    assert s[2, 1] == pytest.approx(0.5)
    # s_20 = q_2 H_2 H_1 k_0 = (0, 0.5) . (0, 0) = 0; the diagonal is q_i . k_i
    assert s[2, 0] == pytest.approx(0.0)
    np.testing.assert_allclose(np.diag(s), [1.0, 0.0, 1.0])
    assert np.isneginf(s[0, 1])


@settings(max_examples=20, deadline=None)
@given(length=st.integers(1, 7), dim=st.sampled_from([2, 4, 6]), seed=st.integers(0, 10**6))
def test_path_is_the_product_of_householder_matrices(length, dim, seed):
    rng = np.random.default_rng(seed)
    q, k, w = (rng.standard_normal((length, dim)) for _ in range(3))
    beta = rng.uniform(0, 2, length)
    h = path_householder(w, beta)  # (L, d, d)
    s = path_scores(q, k, w, beta)
    for i in range(length):
        for j in range(i + 1):
            product = np.eye(dim)
            for t in range(i, j, -1):  # H_i H_{i-1} ... H_{j+1}
                product = product @ h[t]
            assert s[i, j] == pytest.approx(q[i] @ product @ k[j], abs=1e-9)
    np.testing.assert_allclose(path_transform_scores(q, k, h), s, atol=1e-10)


def test_path_matches_flash_linear_attention_reference():
    torch = pytest.importorskip("torch")
    naive = _fla_reference("path_attn", "naive_path_attn")
    rng = np.random.default_rng(2)
    length, dim = 10, 4
    q, k, v, w = (rng.standard_normal((1, length, 1, dim)) for _ in range(4))
    w /= np.linalg.norm(w, axis=-1, keepdims=True)  # the layer l2-normalises w before the kernel
    beta = rng.uniform(0, 2, (1, length, 1))
    zero_gate = np.zeros((1, length, 1))
    scale = 1 / math.sqrt(dim)
    ref = naive(*(torch.tensor(a, dtype=torch.float32) for a in (q, k, v, w, beta, zero_gate)), scale=scale,
                chunk_size=4).double().numpy()[0, :, 0]  # two chunks and a padded one: the chunked algorithm
    scores = path_scores(q[0, :, 0], k[0, :, 0], w[0, :, 0], beta[0, :, 0]) * scale
    att = np.exp(scores - scores.max(-1, keepdims=True))
    np.testing.assert_allclose((att / att.sum(-1, keepdims=True)) @ v[0, :, 0], ref, atol=1e-4)


@pytest.mark.parametrize("dim,base", [(2, 10000.0), (8, 10000.0), (8, 100.0), (16, 500000.0)])
def test_fixed_rotations_are_rope(dim, base):
    rng = np.random.default_rng(dim)
    length = 12
    q, k = rng.standard_normal((length, dim)), rng.standard_normal((length, dim))
    step = path_rope_transform(dim, base)
    np.testing.assert_allclose(step.T @ step, np.eye(dim), atol=1e-12)  # a rotation
    inv_freq, _ = pc.rope_inv_freq(dim, base, ideal=True)
    theta = np.arange(length)
    # the app's RoPE in float64 (float64 arrays keep float64 rotations): (R^i q_i) . (R^j k_j)
    rq = pc.apply_rope(q, theta, inv_freq)
    rk = pc.apply_rope(k, theta, inv_freq)
    rope = rq @ rk.T
    path = path_transform_scores(q, k, np.broadcast_to(step, (length, dim, dim)))
    lower = np.tril(np.ones((length, length), bool))
    np.testing.assert_allclose(path[lower], rope[lower], atol=1e-4)  # RoPE's angles are float32


def test_fixed_transforms_depend_on_the_offset_only():
    out = path_sentence(TEXT, dim=8)
    assert np.allclose(out.spread["rope"], 0.0, atol=1e-9)
    # one fixed Householder step for every word (data-independent) is also a function of the offset
    spread = [np.ptp(np.diagonal(out.wordless, -t)) for t in range(len(out.tokens))]
    np.testing.assert_allclose(spread, 0.0, atol=1e-9)
    np.testing.assert_allclose(out.spread["fixed"], spread)
    # the words' own transforms break it
    assert out.spread["path"][1:-1].max() > 0.5
    assert ((out.beta > 0) & (out.beta < 2)).all()


def _path_scores_loop(q, k, w, beta):
    """path_scores before it took every query's step at once: one Python step per (i, j)."""
    w = w / np.linalg.norm(w, axis=-1, keepdims=True)
    scores = np.full((len(q), len(q)), -np.inf)
    for i in range(len(q)):
        v = q[i].copy()
        for j in range(i, -1, -1):
            scores[i, j] = v @ k[j]
            v -= beta[j] * (w[j] @ v) * w[j]
    return scores


def _path_transform_scores_loop(q, k, m):
    scores = np.full((len(q), len(q)), -np.inf)
    for i in range(len(q)):
        row = q[i].copy()
        for j in range(i, -1, -1):
            scores[i, j] = row @ k[j]
            row = row @ m[j]
    return scores


@settings(max_examples=30, deadline=None)
@given(length=st.integers(1, 40), dim=st.sampled_from([2, 4, 8, 16, 64]), seed=st.integers(0, 10**6),
       fortran=st.booleans())
def test_path_scores_match_the_per_pair_loop_bit_for_bit(length, dim, seed, fortran):
    rng = np.random.default_rng(seed)
    q, k, w = (rng.standard_normal((length, dim)) * rng.uniform(0.1, 100) for _ in range(3))
    if fortran:  # strided rows: the dots leave BLAS in both
        q, k, w = np.asfortranarray(q), np.asfortranarray(k), np.asfortranarray(w)
    beta = rng.uniform(0, 2, length)
    m = path_householder(w, beta)  # (L, d, d)
    assert np.array_equal(path_scores(q, k, w, beta), _path_scores_loop(q, k, w, beta))
    assert np.array_equal(path_transform_scores(q, k, m), _path_transform_scores_loop(q, k, m))
    step = np.broadcast_to(path_rope_transform(dim), (length, dim, dim))
    assert np.array_equal(path_transform_scores(q, k, step), _path_transform_scores_loop(q, k, step))


@settings(max_examples=15, deadline=None)
@given(words=st.integers(1, 64), dim=st.sampled_from([2, 4, 8, 16]), seed=st.integers(0, 9),
       base=st.sampled_from([10.0, 100.0, 1000.0, 10000.0]), sharp=st.sampled_from([0.0, 1.0, 4.0]))
def test_path_sentence_matches_the_per_pair_loop_bit_for_bit(words, dim, seed, base, sharp):
    text = " ".join(TEXT.split()[i % 10] + str(i % 7) for i in range(words))
    out = path_sentence(text, dim, seed, base, sharp)
    length = len(out.tokens)
    q = np.tile(toy_weight("path-probe-q", seed, dim) * np.sqrt(dim), (length, 1))
    k = np.tile(toy_weight("path-probe-k", seed, dim) * np.sqrt(dim), (length, 1))
    step = np.broadcast_to(path_rope_transform(dim, base), (length, dim, dim))
    grids = {"rope": _path_transform_scores_loop(q, k, step),
             "path": _path_scores_loop(q, k, out.w, out.beta),
             "fixed": _path_scores_loop(q, k, np.tile(out.w[:1], (length, 1)), np.full(length, out.beta[0]))}
    assert np.array_equal(out.rope, grids["rope"]) and np.array_equal(out.path, grids["path"])
    assert np.array_equal(out.wordless, grids["fixed"])
    for name, grid in grids.items():
        spread = np.array([np.ptp(np.diagonal(grid, -t)) for t in range(length)])
        assert np.array_equal(out.spread[name], spread)
        assert out.largest_spread[name] == float(spread.max())
    assert out.widest_offset == int(np.argmax(out.spread["path"]))


@pytest.mark.parametrize("theta", [0.3, 1.0, -2.0, math.pi])
def test_a_rotation_is_two_reflections(theta):
    out = path_two_reflections(theta)
    np.testing.assert_allclose(out.rotation, out.target, atol=1e-12)


def test_path_errors_name_the_field():
    with pytest.raises(ValueError, match="q and k"):
        path_scores(np.zeros((3, 2)), np.zeros((2, 2)), np.ones((3, 2)), np.ones(3))
    with pytest.raises(ValueError, match="direction w"):
        path_householder(np.zeros(3), 1.0)
    with pytest.raises(ValueError, match="dim must be even"):
        path_sentence(TEXT, dim=5)


# --- the summary numbers the lessons state, read from the same results as the figures -------------------------

def test_sentence_summaries_match_their_arrays():
    fox = fox_sentence(TEXT, 8, 3, dependence=2.0)
    assert fox.slope_range == (fox.local_slope.min(), fox.local_slope.max())
    path = path_sentence(TEXT, 8, 0, 100.0, 1.0)
    assert path.largest_spread["path"] == path.spread["path"].max()
    assert path.widest_offset == int(np.argmax(path.spread["path"]))
    assert path.beta_range == (path.beta.min(), path.beta.max())
    stick = stick_breaking_sentence(TEXT, level=1.0)
    assert stick.last_taken == pytest.approx(1 - stick.remainder[-1])


def test_order_test_names_the_blind_mixer_and_the_changed_runs():
    result = order_test(24, 16, "swap", i=3, j=10, seed=0)
    assert result.largest == {k: float(e.max()) for k, e in result.errors.items()}
    for name, runs in result.changed_runs.items():
        hit = [t for a, b in runs for t in range(a, b + 1)]
        assert hit == list(np.flatnonzero(result.errors[name] > ORDER_EXACT))
    assert result.blind == [n for n, e in result.errors.items() if e.max() <= ORDER_EXACT]
    assert len(result.blind) == 1


def test_sink_map_kept_is_what_the_sink_leaves():
    result = sink_attention_map(32, 8, 0.0)
    assert np.allclose(result.kept, np.nansum(result.probs, axis=1))
    assert np.allclose(result.kept + result.sink, 1.0)


def test_fewer_frequencies_slowest_omega_is_the_longest_wavelengths():
    info = fewer_frequencies("p-RoPE", 64, 10000.0, 0.5)
    assert 2 * math.pi / info.slowest_omega == pytest.approx(info.longest_wavelength)


def test_streaming_eviction_growth_stays_under_its_bound():
    result = streaming_eviction(128, 2.0, 6.0)
    first = result.first_token
    assert first.growth_bound == pytest.approx(1 / (1 - first.before.parking))
    assert first.growth <= first.growth_bound * (1 + 1e-9)
