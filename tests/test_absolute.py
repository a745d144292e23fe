import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from posenc_core.absolute import (
    EMBEDDING_INITS,
    LAYOUTS,
    VARIANTS,
    embedding_norm_balance,
    norm_ratio_doubling,
    sinusoidal_at,
    sinusoidal_base_doubling,
    sinusoidal_coverage,
    sinusoidal_frequencies,
    sinusoidal_full_circles,
    sinusoidal_shift_matrix,
    sinusoidal_variant_gap,
    sinusoidal_wavelength_step,
    sinusoidal_wavelengths,
    token_plus_position,
)
from posenc_core.measures import similarity_matrix, toeplitz_deviation
from posenc_core.why_position import (
    binary_codes,
    binary_column,
    binary_column_curve,
    binary_period,
    binary_waves,
    fraction_code_order,
    fraction_codes,
    naive_codes,
    naive_inputs,
    naive_norm_ratio,
)

# The seeds' worked 4x4 example (d_model = 4, positions 0..3).
SEED_TABLE = np.array([
    [0.0, 1.0, 0.0, 1.0],
    [0.84147098, 0.54030231, 0.00999983, 0.99995],
    [0.90929743, -0.41614684, 0.01999867, 0.99980001],
    [0.14112001, -0.9899925, 0.0299955, 0.99955003],
])


def test_seed_table_at_d4():
    np.testing.assert_allclose(pc.sinusoidal(4, 4), SEED_TABLE, atol=1e-6)
    exact = pc.sinusoidal(4, 4, dtype="float64")
    assert exact.dtype == np.float64
    np.testing.assert_allclose(exact, SEED_TABLE, atol=5e-9)  # the seed's 8-digit values


def test_interleaved_columns_follow_the_paper():
    pe = pc.sinusoidal(50, 16, base=10000.0).astype(np.float64)
    pos = np.arange(50)[:, None]
    i = np.arange(8)[None, :]
    angle = pos / 10000.0 ** (2 * i / 16)
    np.testing.assert_allclose(pe[:, 0::2], np.sin(angle), atol=2e-6)
    np.testing.assert_allclose(pe[:, 1::2], np.cos(angle), atol=2e-6)


def test_concat_is_a_column_permutation_of_interleaved():
    inter = pc.sinusoidal(33, 12, layout="interleaved")
    concat = pc.sinusoidal(33, 12, layout="concat")
    np.testing.assert_array_equal(concat[:, :6], inter[:, 0::2])
    np.testing.assert_array_equal(concat[:, 6:], inter[:, 1::2])


def test_dtype_and_shape():
    pe = pc.sinusoidal(7, 10)
    assert pe.shape == (7, 10) and pe.dtype == np.float32


@settings(max_examples=40, deadline=None)
@given(dim=st.sampled_from([2, 4, 8, 32, 128]), offset=st.integers(-200, 200),
       layout=st.sampled_from(LAYOUTS), base=st.floats(2.0, 1e5))
def test_shift_matrix_moves_every_position_by_offset(dim, offset, layout, base):
    positions = np.arange(0, 300, 7)
    pe = sinusoidal_at(positions, dim, base, layout).astype(np.float64)
    shifted = sinusoidal_at(positions + offset, dim, base, layout).astype(np.float64)
    m = sinusoidal_shift_matrix(dim, offset, base, layout)
    np.testing.assert_allclose(pe @ m.T, shifted, atol=2e-4)


@settings(max_examples=20, deadline=None)
@given(dim=st.sampled_from([4, 16, 64]), n=st.integers(2, 80))
def test_dot_product_depends_only_on_offset(dim, n):
    sim = similarity_matrix(pc.sinusoidal(n, dim), "dot")
    assert toeplitz_deviation(sim) < 5e-4
    # and it equals sum_i cos((p - q) omega_i)
    omega = sinusoidal_frequencies(dim)
    delta = np.arange(n)
    np.testing.assert_allclose(sim[0], np.cos(np.multiply.outer(delta, omega)).sum(1), atol=5e-4)


@pytest.mark.parametrize("call, message", [
    (lambda: pc.sinusoidal(10, 3), "even"),
    (lambda: pc.sinusoidal(10, 0), "at least 2"),
    (lambda: pc.sinusoidal(0, 4), "at least 1"),
    (lambda: pc.sinusoidal(10, 4, base=1.0), "greater than 1"),
    (lambda: pc.sinusoidal(10, 4, base=float("nan")), "finite"),
    (lambda: pc.sinusoidal(10, 4, layout="zigzag"), "layout"),
    (lambda: pc.sinusoidal("ten", 4), "whole number"),
    (lambda: pc.sinusoidal(10**9, 4096), "at most"),
    (lambda: pc.sinusoidal(1 << 20, 4096), "cap"),
])
def test_bad_arguments_raise_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# --- tensor2tensor / fairseq variant, wavelengths, training-length coverage ---------------------------------

def _fairseq_reference(n, dim, base=10000.0):
    """fairseq's SinusoidalPositionalEmbedding.get_embedding, re-derived in torch (no padding row)."""
    torch = pytest.importorskip("torch")
    half = dim // 2
    step = np.log(base) / (half - 1)
    inv = torch.exp(torch.arange(half, dtype=torch.float32) * -step)
    angles = torch.arange(n, dtype=torch.float32)[:, None] * inv[None, :]
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=1).numpy()


@pytest.mark.parametrize("n, dim", [(16, 8), (100, 64), (7, 4)])
def test_tensor2tensor_variant_matches_fairseq(n, dim):
    ours = pc.sinusoidal(n, dim, layout="concat", variant="tensor2tensor")
    np.testing.assert_allclose(ours, _fairseq_reference(n, dim), atol=2e-5)


def test_variant_frequencies_known_values():
    np.testing.assert_allclose(sinusoidal_frequencies(8, 10000.0, "tensor2tensor"),
                               [1.0, 10000 ** (-1 / 3), 10000 ** (-2 / 3), 1e-4])
    np.testing.assert_allclose(sinusoidal_frequencies(8), [1.0, 0.1, 0.01, 0.001])
    assert sinusoidal_frequencies(2, 100.0, "tensor2tensor").tolist() == [1.0]  # one pair: divisor 1


@settings(max_examples=30, deadline=None)
@given(dim=st.sampled_from([4, 16, 128]), base=st.floats(2.0, 1e6), variant=st.sampled_from(VARIANTS))
def test_wavelengths_run_from_two_pi_towards_two_pi_base(dim, base, variant):
    lam = sinusoidal_wavelengths(dim, base, variant)
    assert lam[0] == pytest.approx(2 * np.pi)
    assert np.all(np.diff(lam) > 0)
    assert lam[-1] <= 2 * np.pi * base * (1 + 1e-9)
    if variant == "tensor2tensor":
        assert lam[-1] == pytest.approx(2 * np.pi * base)


def test_coverage_is_full_for_fast_pairs_and_partial_for_slow_ones():
    cov = sinusoidal_coverage(100, 16)
    omega = sinusoidal_frequencies(16)
    np.testing.assert_allclose(cov, np.minimum(1, 99 * omega / (2 * np.pi)))
    assert cov[0] == 1 and cov[-1] < 0.01
    assert np.all(np.diff(cov) <= 0)


# --- naive codes -------------------------------------------------------------------------------------------

def test_naive_codes_known_values():
    np.testing.assert_array_equal(naive_codes(4, "integer"), [0, 1, 2, 3])
    np.testing.assert_allclose(naive_codes(4, "fraction"), [0, 0.25, 0.5, 0.75])
    # the same position, two lengths, two codes; the same code, two positions
    assert naive_codes(10, "fraction")[5] == naive_codes(20, "fraction")[10] == 0.5


@settings(max_examples=20, deadline=None)
@given(n=st.integers(2, 500), dim=st.sampled_from([2, 8, 64, 512]))
def test_naive_norm_ratio(n, dim):
    np.testing.assert_allclose(naive_norm_ratio(n, "integer", dim), np.arange(n))
    np.testing.assert_allclose(naive_norm_ratio(n, "sinusoidal", dim), np.full(n, 2 ** -0.5), rtol=1e-12)
    assert naive_norm_ratio(n, "fraction", dim).max() < 1


def test_naive_inputs_add_the_code_to_every_channel():
    parts = naive_inputs(6, 5, "integer")
    np.testing.assert_allclose(parts.sum - parts.token, np.arange(6)[:, None] * np.ones((1, 5)))
    assert abs(parts.token.std() - 1) < 0.5


def _token_embeddings_before(tokens, dim, std=1.0):
    """token_embeddings as it was before it kept each token's seeded state: a generator seeded per row."""
    from posenc_core._tokens import token_seed

    out = np.empty((len(tokens), dim))  # (n, d)
    for row, token in enumerate(tokens):
        out[row] = np.random.default_rng(token_seed(token, "embedding")).standard_normal(dim)
    return out * std


@settings(max_examples=40, deadline=None)
@given(words=st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=20),
       dim=st.integers(1, 300), std=st.sampled_from([1.0, 0.02, 1 / 3, 7.5]))
def test_token_embeddings_match_a_generator_seeded_per_row(words, dim, std):
    """Restoring a token's seeded state gives the draws seeding gives, repeated tokens and later calls included."""
    from posenc_core import _tokens

    _tokens._seeded_state.cache_clear()
    old = _token_embeddings_before(words, dim, std)
    for _ in range(2):  # the first call seeds, the second reads the kept states
        new = _tokens.token_embeddings(words, dim, std)
        assert new.dtype == old.dtype and new.tobytes() == old.tobytes()


def _naive_inputs_before(num_positions, dim, kind="integer"):
    """naive_inputs as it was before it kept the words' seeded generators: token_embeddings on every call."""
    from posenc_core._checks import MAX_DIM, as_int, check_size
    token_embeddings = _token_embeddings_before

    n = as_int("the number of positions", num_positions, minimum=1, maximum=4096)
    dim = as_int("dim", dim, minimum=1, maximum=MAX_DIM)
    check_size(n * dim, "The inputs")
    token = token_embeddings([f"w{p}" for p in range(n)], dim)
    code = np.repeat(naive_codes(n, kind)[:, None], dim, axis=1)
    return {"token": token, "code": code, "sum": token + code}


@pytest.mark.parametrize("n, dim, kind", [(2048, 256, "integer"), (2048, 256, "fraction"), (2048, 64, "integer"),
                                          (4096, 1, "fraction"), (1, 16384, "integer"), (7, 3, "fraction"),
                                          (300, 256, "integer"), (2, 2, "integer")])
def test_naive_inputs_match_their_former_code_bit_for_bit(n, dim, kind):
    """The same seeds and standard_normal(dim) calls as token_embeddings, before and after the seeded states are
    kept (twice: the second call reads them back): the same bits."""
    from posenc_core import _tokens

    old = _naive_inputs_before(n, dim, kind)
    _tokens._seeded_state.cache_clear()  # the first call seeds, the second reads the kept states
    for _ in range(2):
        new = naive_inputs(n, dim, kind)
        assert [f.name for f in dataclasses.fields(new)] == list(old)
        for key in old:
            part = getattr(new, key)
            assert part.dtype == old[key].dtype and part.shape == old[key].shape
            assert part.tobytes() == old[key].tobytes(), key


@pytest.mark.parametrize("args", [(0, 4), (5000, 4), (4, 0), (4, 20000), (4, 4, "log"), ("4", 4), (4096, 16384)])
def test_naive_inputs_refuse_as_their_former_code(args):
    with pytest.raises(ValueError) as expected:
        _naive_inputs_before(*args)
    with pytest.raises(ValueError) as raised:
        naive_inputs(*args)
    assert str(raised.value) == str(expected.value)


# --- binary analogy ----------------------------------------------------------------------------------------

def test_binary_codes_known_values():
    np.testing.assert_array_equal(binary_codes(6, 3), [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 1],
                                                          [1, 0, 1]])
    assert binary_codes(4, 1).tolist() == [[0], [1], [0], [1]]


@settings(max_examples=20, deadline=None)
@given(bits=st.integers(1, 10))
def test_rounding_the_wave_gives_the_bit_back(bits):
    n = 2 ** bits + 37
    waves = binary_waves(np.arange(n), bits)
    np.testing.assert_array_equal(np.sign(waves), 1 - 2 * binary_codes(n, bits))
    # column k has period 2^(k+1), and fractional positions are fine
    for k in range(bits):
        np.testing.assert_allclose(binary_waves([0.3 + 2 ** (k + 1)], bits)[0, k],
                                   binary_waves([0.3], bits)[0, k], atol=1e-9)


# --- token + position --------------------------------------------------------------------------------------

def test_token_plus_position_adds_rows_and_norms():
    parts = token_plus_position(["my", "kid", "my"], 16, "normal(0, 1/sqrt(d))", True)
    np.testing.assert_allclose(parts.input, parts.token + parts.position)
    np.testing.assert_allclose(parts.position_norm, np.sqrt(8))
    np.testing.assert_array_equal(parts.token[0], parts.token[2])  # same word, same token row
    np.testing.assert_allclose(parts.position, pc.sinusoidal(3, 16, dtype="float64"))


@pytest.mark.parametrize("init, scale, expected", [
    ("normal(0, 1/sqrt(d))", True, 2 ** -0.5),
    ("normal(0, 1)", False, 2 ** -0.5),
    ("normal(0, 0.02)", False, 1 / (0.02 * np.sqrt(2))),
])
def test_norm_balance_matches_its_expectation(init, scale, expected):
    balance = embedding_norm_balance([64, 256, 1024], init, scale)
    np.testing.assert_allclose(balance.expected, expected)
    np.testing.assert_allclose(balance.measured, expected, rtol=0.05)  # chi distribution, 256 words


def _norm_balance_before(dims, init="normal(0, 1/sqrt(d))", scale=True, samples=256):
    """embedding_norm_balance as it was before it seeded each word once: token_embeddings at every width."""
    from posenc_core._checks import as_even_dim, as_int, check_size
    token_embeddings = _token_embeddings_before
    from posenc_core.absolute.token_position import _init_std

    dims = [as_even_dim("dim", d) for d in dims]
    samples = as_int("samples", samples, minimum=1, maximum=4096)
    check_size(samples * sum(dims), "The norm balance")
    measured, expected, stds = [], [], []
    words = [f"w{i}" for i in range(samples)]
    for d in dims:
        std = _init_std(init, d) * (np.sqrt(d) if scale else 1.0)
        token_norm = np.linalg.norm(token_embeddings(words, d, std), axis=1)
        measured.append(float(np.mean(np.sqrt(d / 2) / token_norm)))
        expected.append(1 / (std * np.sqrt(2)))
        stds.append(std)
    return {"dim": np.asarray(dims), "measured": np.asarray(measured), "expected": np.asarray(expected),
            "std": np.asarray(stds)}


@pytest.mark.parametrize("dims, samples", [
    ([8, 16, 32, 64, 128, 256, 512, 1024], 256), ([8, 16, 32, 64, 128, 256, 512, 1024, 96], 256),
    ([1024, 8, 1024], 256), ([2], 1), ([16384], 3), ([64, 128], 4096), ([], 256), ([6, 10], 17),
])
@pytest.mark.parametrize("init", list(EMBEDDING_INITS))
@pytest.mark.parametrize("scale", [True, False])
def test_norm_balance_matches_its_former_code_bit_for_bit(dims, samples, init, scale):
    """The same words, seeds and standard_normal(d) draws as token_embeddings at each width: the same bits."""
    new, old = embedding_norm_balance(dims, init, scale, samples), _norm_balance_before(dims, init, scale, samples)
    assert [f.name for f in dataclasses.fields(new)] == list(old)
    for key in old:
        part = getattr(new, key)
        assert part.dtype == old[key].dtype and part.shape == old[key].shape
        assert part.tobytes() == old[key].tobytes(), key


@pytest.mark.parametrize("args", [([7],), ([8, 9],), ([0],), ([8], "xavier"), ([], "xavier"), (["8"],), ([16384] * 40,),
                                  ([8], "normal(0, 1)", True, 0), ([8], "normal(0, 1)", True, 5000)])
def test_norm_balance_refuses_as_its_former_code(args):
    try:
        old = _norm_balance_before(*args)
    except ValueError as error:
        with pytest.raises(ValueError) as raised:
            embedding_norm_balance(*args)
        assert str(raised.value) == str(error)
        return
    new = embedding_norm_balance(*args)
    assert all(getattr(new, k).tobytes() == old[k].tobytes() for k in old)


def test_unscaled_small_init_grows_with_width():
    balance = embedding_norm_balance([16, 1024], "normal(0, 1/sqrt(d))", False)
    np.testing.assert_allclose(balance.expected, np.sqrt([16, 1024]) / np.sqrt(2))


@pytest.mark.parametrize("call, message", [
    (lambda: pc.sinusoidal(10, 4, variant="fairseq"), "variant"),
    (lambda: sinusoidal_coverage(0, 8), "at least 1"),
    (lambda: naive_codes(0), "at least 1"),
    (lambda: naive_codes(4, "log"), "kind"),
    (lambda: naive_norm_ratio(4, "integer", 3), "even"),
    (lambda: naive_inputs(5000, 4), "at most"),
    (lambda: binary_codes(8, 0), "at least 1"),
    (lambda: binary_codes(8, 99), "at most"),
    (lambda: binary_codes(1 << 22, 24), "cap"),
    (lambda: token_plus_position(["a"], 8, "xavier"), "init"),
    (lambda: token_plus_position([], 8), "non-empty"),
    (lambda: embedding_norm_balance([7]), "even"),
])
def test_new_bad_arguments_raise_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_fraction_codes_by_length():
    table = fraction_codes([2, 4])
    np.testing.assert_allclose(table[1], [0, 0.25, 0.5, 0.75])
    np.testing.assert_allclose(table[0, :2], [0, 0.5])
    assert np.isnan(table[0, 2:]).all()
    with pytest.raises(ValueError, match="at least one"):
        fraction_codes([])
    with pytest.raises(ValueError, match="at least 1"):
        fraction_codes([0])


@pytest.mark.parametrize("init, scale, change", [("normal(0, 1)", False, "same"), ("normal(0, 0.02)", True, "shrinks"),
                                                  ("normal(0, 1/sqrt(d))", True, "same"),
                                                  ("normal(0, 1/sqrt(d))", False, "grows")])
def test_norm_ratio_doubling(init, scale, change):
    assert norm_ratio_doubling(64, init, scale) == change
    before, after = embedding_norm_balance([64, 128], init, scale).expected
    assert after / before == pytest.approx({"same": 1, "grows": 2 ** 0.5, "shrinks": 2 ** -0.5}[change])


def test_fraction_code_order():
    assert fraction_code_order(10, 20, 5) == "shorter"  # 0.5 against 0.25
    assert fraction_code_order(20, 10, 5) == "shorter"  # the same pair, named the other way round
    assert fraction_code_order(10, 10, 3) == "same"
    assert fraction_code_order(10, 20, 0) == "same"  # 0 / L is 0 for every length
    assert fraction_code_order(4, 20, 6) == "missing"


def test_binary_column_at_fractional_positions():
    col = binary_column([0, 1.5, 2, 3.9, 4], 1)
    np.testing.assert_array_equal(col.bit, [0, 0, 1, 1, 0])
    np.testing.assert_array_equal(col.signed, [1, 1, -1, -1, 1])
    np.testing.assert_allclose(col.wave, np.cos(np.pi * (np.array([0, 1.5, 2, 3.9, 4]) - 0.5) / 2))
    with pytest.raises(ValueError, match="at most 23"):
        binary_column([0], 24)


def test_binary_column_curve_covers_whole_periods():
    xs, col = binary_column_curve(2, periods=3, samples=49)
    assert xs[0] == 0 and xs[-1] == 24 and col.wave.shape == (49,)
    with pytest.raises(ValueError, match="periods"):
        binary_column_curve(1, periods=0)


# --- the tables models hold: bit-identical with transformers' own code --------------------------------------

@pytest.mark.parametrize("n, dim", [(512, 768), (64, 10), (3000, 512), (100, 2), (40, 1024)])
def test_paper_table_is_bit_identical_to_distilbert_and_marian(n, dim):
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers.models.distilbert.modeling_distilbert import _create_sinusoidal_embeddings
    from transformers.models.marian.modeling_marian import MarianSinusoidalPositionalEmbedding

    distilbert = torch.empty(n, dim)
    _create_sinusoidal_embeddings(n, dim, distilbert)
    np.testing.assert_array_equal(pc.sinusoidal(n, dim), distilbert.numpy())
    marian = MarianSinusoidalPositionalEmbedding(n, dim).create_weight()  # the same values, sines first
    np.testing.assert_array_equal(pc.sinusoidal(n, dim, layout="concat"), marian.numpy())


@pytest.mark.parametrize("n, dim", [(512, 768), (64, 10), (4000, 1024), (7, 4)])
def test_tensor2tensor_table_is_bit_identical_to_m2m100(n, dim):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from transformers.models.m2m_100.modeling_m2m_100 import M2M100SinusoidalPositionalEmbedding

    expected = M2M100SinusoidalPositionalEmbedding.get_embedding(n, dim).numpy()
    np.testing.assert_array_equal(pc.sinusoidal(n, dim, layout="concat", variant="tensor2tensor"), expected)


def test_model_table_is_within_float32_rounding_of_the_exact_one():
    for variant in VARIANTS:
        model = pc.sinusoidal(2500, 256, variant=variant).astype(np.float64)
        exact = pc.sinusoidal(2500, 256, variant=variant, dtype="float64")
        # paper: float64 angles rounded once (half an ulp of values <= 1); tensor2tensor: float32 angles near
        # position 2,500 carry up to 2,500 * 2^-24 rad of error
        bound = 2 ** -24 if variant == "paper" else 2500 * 2 ** -23
        assert np.abs(model - exact).max() <= bound


def test_fractional_positions_follow_the_same_arithmetic():
    rows = sinusoidal_at([0.5, 17.25, -3.0], 32)
    exact = sinusoidal_at([0.5, 17.25, -3.0], 32, dtype="float64")
    np.testing.assert_array_equal(rows, exact.astype(np.float32))  # float64 angles, one rounding


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 3000), half=st.integers(1, 300), base=st.sampled_from([2.0, 10.0, 10000.0, 5e5, 1e6]),
       layout=st.sampled_from(["interleaved", "concat"]))
def test_the_whole_table_has_the_bits_of_the_model_arithmetic_row_by_row(n, half, base, layout):
    """sinusoidal() builds 0 .. n-1 by angle addition; every value must be the model's float64 sin / cos rounded."""
    from posenc_core.absolute.sinusoidal import _paper_model_block

    table = pc.sinusoidal(n, 2 * half, base, layout)
    sin, cos = _paper_model_block(np.arange(n, dtype=np.float64), 2 * half, base)  # the model's arithmetic
    sin_cols, cos_cols = (table[:, 0::2], table[:, 1::2]) if layout == "interleaved" else (table[:, :half],
                                                                                          table[:, half:])
    np.testing.assert_array_equal(sin_cols.view(np.uint32), sin.view(np.uint32))
    np.testing.assert_array_equal(cos_cols.view(np.uint32), cos.view(np.uint32))


def test_a_large_table_has_the_bits_of_the_model_arithmetic():
    from posenc_core.absolute.sinusoidal import _paper_model_block

    table = pc.sinusoidal(8192, 1024)
    sin, cos = _paper_model_block(np.arange(8192, dtype=np.float64), 1024, 10000.0)
    np.testing.assert_array_equal(table[:, 0::2].view(np.uint32), sin.view(np.uint32))
    np.testing.assert_array_equal(table[:, 1::2].view(np.uint32), cos.view(np.uint32))


def test_sinusoidal_numbers_the_lesson_states():
    assert sinusoidal_full_circles(32, 64, 10000) == int((sinusoidal_coverage(32, 64, 10000) >= 1).sum())
    assert sinusoidal_full_circles(1, 64) == 0
    doubling = sinusoidal_base_doubling(64, 10000)
    assert doubling.ratio == pytest.approx(2 ** (62 / 64))
    assert doubling.now == pytest.approx(2 * np.pi * 10000 ** (62 / 64))
    t2t = pc.sinusoidal(40, 16, 100.0, "concat", variant="tensor2tensor")
    assert sinusoidal_variant_gap(40, 16, 100.0) == float(np.abs(t2t - pc.sinusoidal(40, 16, 100.0, "concat")).max())
    assert sinusoidal_wavelength_step(8, 10000) == pytest.approx(10.0)
    assert binary_period(5) == 32 == len(binary_codes(33, 5)) - 1
    assert (binary_codes(33, 5)[32] == binary_codes(1, 5)[0]).all()  # the pattern starts over


@pytest.mark.parametrize("call", [lambda: sinusoidal_wavelength_step(2), lambda: binary_period(0),
                                  lambda: sinusoidal_full_circles(0, 8), lambda: sinusoidal_base_doubling(7)])
def test_sinusoidal_numbers_reject_bad_input(call):
    with pytest.raises(ValueError):
        call()


def _toeplitz_deviation_before(matrix):
    """toeplitz_deviation as it was: a loop over the diagonals, float64."""
    m = np.asarray(matrix, dtype=np.float64)
    finite = np.where(np.isfinite(m), m, np.nan)
    worst = 0.0
    for k in range(-m.shape[0] + 1, m.shape[1]):
        diag = np.diagonal(finite, offset=k)
        diag = diag[~np.isnan(diag)]
        if diag.size > 1:
            worst = max(worst, float(diag.max() - diag.min()))
    return worst


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(1, 40), cols=st.integers(1, 40), dtype=st.sampled_from([np.float32, np.float64, np.int64]),
       holes=st.floats(0.0, 0.5), seed=st.integers(0, 2**32 - 1))
def test_toeplitz_deviation_equals_the_loop_over_diagonals(rows, cols, dtype, holes, seed):
    """Row-wise fmax / fmin give every diagonal's spread bit for bit, NaN and infinities left out."""
    rng = np.random.default_rng(seed)
    matrix = (rng.standard_normal((rows, cols)) * 100).astype(dtype)  # (rows, cols)
    if dtype != np.int64:
        matrix[rng.random((rows, cols)) < holes] = np.nan
        matrix[rng.random((rows, cols)) < holes / 2] = np.inf
    assert toeplitz_deviation(matrix) == _toeplitz_deviation_before(matrix)


def test_toeplitz_deviation_of_the_lessons_largest_table():
    similarity = similarity_matrix(pc.sinusoidal(2048, 1024))  # (2048, 2048) float32
    assert toeplitz_deviation(similarity) == _toeplitz_deviation_before(similarity)


def test_every_embedding_init_has_its_words():
    from lessons.absolute.words import INIT_USERS

    assert list(INIT_USERS) == list(EMBEDDING_INITS)
