import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_core.why_position import (
    POOLINGS,
    demo_image,
    order_experiment,
    patch_experiment,
    permutation,
    pool,
    self_attention,
    shuffle_patches,
    token_embeddings,
    tokenize,
)

SENTENCE = "my kid likes the movie"


def test_tokens_and_embeddings_are_deterministic():
    assert tokenize("  My kid\tlikes the MOVIE ") == ["my", "kid", "likes", "the", "movie"]
    a = token_embeddings(["movie", "kid"], 8)
    b = token_embeddings(["kid", "movie"], 8)
    np.testing.assert_array_equal(a, b[::-1])
    assert a.shape == (2, 8) and not np.allclose(a[0], a[1])


def test_self_attention_matches_torch_reference():
    torch = pytest.importorskip("torch")
    x = token_embeddings(tokenize(SENTENCE), 12)
    out, weights = self_attention(x)
    from posenc_core.why_position.order import _matrix
    wq, wk, wv = (torch.from_numpy(_matrix(f"layer/{n}", 12, 12)) for n in ("W_q", "W_k", "W_v"))
    xt = torch.from_numpy(x)
    q, k, v = xt @ wq, xt @ wk, xt @ wv
    ref = torch.nn.functional.scaled_dot_product_attention(q[None], k[None], v[None])[0]
    np.testing.assert_allclose(out, ref.numpy(), atol=1e-12)
    np.testing.assert_allclose(weights.sum(1), 1.0)


def test_the_movie_likes_my_kid_cannot_be_told_apart():
    result = order_experiment(SENTENCE, 16, "custom", order="3,4,2,0,1")
    assert result.reordered == ["the", "movie", "likes", "my", "kid"]
    assert result.equivariance_gap < 1e-12
    assert result.pooled_gap < 1e-12
    np.testing.assert_allclose(result.weights_reordered,
                               result.weights[np.ix_(result.perm, result.perm)], atol=1e-12)


def test_positions_break_the_equality():
    result = order_experiment(SENTENCE, 16, "custom", order="3,4,2,0,1", positions=True)
    assert result.equivariance_gap > 1e-2 and result.pooled_gap > 1e-2
    # the bars' difference series and the grids' shared colour range are the same numbers the gaps come from
    np.testing.assert_array_equal(result.pooled_difference, result.pooled - result.pooled_reordered)
    assert np.abs(result.pooled_difference).max() == result.pooled_gap
    assert result.output_bound == max(np.abs(result.out).max(), np.abs(result.out_reordered).max())


@settings(max_examples=30, deadline=None)
@given(words=st.lists(st.sampled_from(["a", "cat", "sat", "on", "the", "mat", "dog"]), min_size=1, max_size=9),
       seed=st.integers(0, 1000), pooling=st.sampled_from(POOLINGS), dim=st.sampled_from([2, 8, 32]))
def test_permutation_equivariance_and_pooled_invariance(words, seed, pooling, dim):
    result = order_experiment(" ".join(words), dim, "shuffle", seed=seed, pooling=pooling)
    assert result.equivariance_gap < 1e-9
    assert result.pooled_gap < 1e-9
    assert sorted(result.perm.tolist()) == list(range(len(words)))


def test_permutation_kinds():
    assert permutation(4, "reverse").tolist() == [3, 2, 1, 0]
    assert permutation(4, "swap", i=0, j=2).tolist() == [2, 1, 0, 3]
    assert permutation(4, "custom", order="2").tolist() == [2, 0, 1, 3]
    assert permutation(3, "custom", order=[1, 0]).tolist() == [1, 0, 2]
    assert permutation(5, "shuffle", seed=3).tolist() == permutation(5, "shuffle", seed=3).tolist()


def test_image_patches_shuffle_back_and_forth():
    image = demo_image(32)
    assert image.shape == (32, 32) and 0 <= image.min() and image.max() <= 1
    shuffled, perm = shuffle_patches(image, 8, seed=1)
    assert sorted(shuffled.ravel()) == pytest.approx(sorted(image.ravel()))
    # tile k of the result is tile perm[k] of the input
    tile = lambda img, t: img[(t // 4) * 8:(t // 4) * 8 + 8, (t % 4) * 8:(t % 4) * 8 + 8]  # noqa: E731
    for k in range(16):
        np.testing.assert_array_equal(tile(shuffled, k), tile(image, perm[k]))


def test_bag_of_patches():
    assert patch_experiment(48, 8, seed=2).pooled_gap < 1e-9
    assert patch_experiment(48, 8, seed=2, positions=True).pooled_gap > 1e-2


@pytest.mark.parametrize("call, message", [
    (lambda: tokenize("   "), "at least one word"),
    (lambda: tokenize(" ".join(["w"] * 65)), "at most 64"),
    (lambda: tokenize("x" * 41), "at most 40"),
    (lambda: tokenize(5), "text"),
    (lambda: token_embeddings(["a"], 0), "at least 1"),
    (lambda: token_embeddings([], 4), "non-empty"),
    (lambda: self_attention(np.zeros(4)), "matrix"),
    (lambda: pool(np.zeros((2, 2)), "median"), "pooling"),
    (lambda: permutation(3, "rotate"), "reordering"),
    (lambda: permutation(3, "swap", i=0, j=3), "at most 2"),
    (lambda: permutation(3, "custom", order="0,0"), "only once"),
    (lambda: permutation(3, "custom", order="a,b"), "commas"),
    (lambda: order_experiment(SENTENCE, 1), "at least 2"),
    (lambda: demo_image(4), "at least 8"),
    (lambda: demo_image(1000), "at most"),
    (lambda: shuffle_patches(np.zeros((4, 6)), 2), "square"),
    (lambda: patch_experiment(48, 5), "divide"),
])
def test_bad_arguments_raise_clear_value_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
