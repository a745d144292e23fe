import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_core.todays_models import (
    cope_attention,
    cope_counting_example,
    cope_interpolate,
    cope_positions,
    cope_tokens,
)

TEXT = "The cat sat. Then it slept on the warm mat. Birds sang outside the window. Everyone listened quietly."


def _brute_positions(gate_logits):
    length = gate_logits.shape[0]
    gates = 1 / (1 + np.exp(-gate_logits))
    p = np.zeros((length, length))
    for i in range(length):
        for j in range(i + 1):
            p[i, j] = sum(gates[i, t] for t in range(j, i + 1))
    return p


@settings(max_examples=40, deadline=None)
@given(length=st.integers(1, 12), seed=st.integers(0, 10**6))
def test_positions_match_the_papers_sum(length, seed):
    logits = np.random.default_rng(seed).normal(0, 3, (length, length))
    gates, positions = cope_positions(logits)
    np.testing.assert_allclose(positions, _brute_positions(logits), atol=1e-9)
    assert (np.triu(gates, 1) == 0).all()
    # a key further back never has a smaller position: every gate adds a non-negative amount
    assert (np.diff(np.tril(positions), axis=1)[np.tril(np.ones((length, length - 1)), -1) > 0] <= 1e-12).all()


@settings(max_examples=30, deadline=None)
@given(length=st.integers(1, 20))
def test_all_gates_one_gives_ordinary_relative_positions(length):
    _, positions = cope_positions(np.full((length, length), 60.0))  # sigmoid(60) == 1.0 in float64
    i, j = np.indices((length, length))
    np.testing.assert_array_equal(np.tril(positions), np.tril(i - j + 1.0))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_interpolation_hits_the_table_at_integers_and_is_linear_between(seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=(3, 6))
    ints = rng.integers(0, 6, size=(3, 3)).astype(float)
    np.testing.assert_allclose(cope_interpolate(z, ints), np.take_along_axis(z, ints.astype(int), -1))
    frac = rng.uniform(0, 5, size=(3, 3))
    lo, hi = np.floor(frac).astype(int), np.ceil(frac).astype(int)
    expected = (frac - lo) * np.take_along_axis(z, hi, -1) + (1 - frac + lo) * np.take_along_axis(z, lo, -1)
    np.testing.assert_allclose(cope_interpolate(z, frac), expected)


def test_attention_rows_sum_to_one_and_are_causal():
    rng = np.random.default_rng(0)
    out = cope_attention(rng.normal(size=(5, 5)), rng.normal(size=(5, 5)), rng.normal(size=(5, 8)))
    np.testing.assert_allclose(out.attention.sum(-1), 1.0)
    assert (np.triu(out.attention, 1) == 0).all()


def test_counting_units_change_which_tokens_are_three_back():
    tokens = cope_counting_example(TEXT, "tokens", 3, 30.0)
    assert np.flatnonzero(tokens.at_target).tolist() == [tokens.query - 2]
    sentences = cope_counting_example(TEXT, "sentences", 3, 30.0)
    picked = [t for t, hit in zip(sentences.tokens, sentences.at_target, strict=True) if hit]
    assert "".join(picked) == "Thenitslepton" "thewarmmat."  # the sentence two before the query's own
    assert sentences.target_mass > 0.99
    words = cope_counting_example(TEXT, "words", 3, 30.0)
    picked = [t for t, hit in zip(words.tokens, words.at_target, strict=True) if hit]
    assert picked == ["list", "ened"]  # one word of two pieces


def test_tokenizer_splits_long_words_and_marks_ends():
    toks = cope_tokens("Everyone listened.")
    assert toks.tokens == ["Ever", "yone", "list", "ened", "."]
    assert toks.word_end.tolist() == [False, True, False, True, True]
    assert toks.sentence_end.tolist() == [False, False, False, False, True]


def test_errors_are_sentences():
    with pytest.raises(ValueError, match="square"):
        cope_positions(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="p_max"):
        cope_interpolate(np.zeros((2, 3)), np.full((2, 2), 5.0))
    with pytest.raises(ValueError, match="Type a few"):
        cope_tokens("   ")
    with pytest.raises(ValueError, match="unit"):
        cope_counting_example(TEXT, "paragraphs")
    with pytest.raises(ValueError, match="at most"):
        cope_counting_example(TEXT, "tokens", target=40, p_max=16)
    long = cope_tokens("word " * 300)  # the query is the last token: a long text loses its start
    assert len(long.tokens) == 256 and long.dropped == 44


def test_counting_example_counts_its_keys_and_open_gates():
    ex = cope_counting_example("the cat sat. the dog ran.", "words", 2, 8.0)
    assert ex.found == int(ex.at_target.sum())
    assert ex.open_gates == int(np.sum(ex.gates > 0.5))
