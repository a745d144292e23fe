"""Encoders: DeBERTa v2/v3, ModernBERT and Transformer-XL / XLNet against transformers 5.23's own code.

Every module is a real instance built from a small config, with the core's seeded weights copied in; the
comparisons are bit for bit (np.array_equal), because the core runs the same torch ops in the same order.
The Transformer-XL terms are also checked against the paper's equation written out cell by cell, and on a
case small enough to compute by hand.
"""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from page_kit.lesson.config_words import fact_sentence, layer_table
from posenc_core.configs import layer_facts
from posenc_core.encoders import (
    DebertaTableFacts,
    XlExample,
    deberta_bucket,
    deberta_bucket_curve,
    deberta_example,
    deberta_query,
    deberta_relative_positions,
    deberta_span,
    deberta_table_facts,
    deberta_terms,
    modernbert_attention_cost,
    modernbert_frequencies,
    modernbert_keys_seen,
    modernbert_masks,
    modernbert_pairs,
    modernbert_reading,
    xl_distance_bias,
    xl_example,
    xl_relative_sinusoid,
    xl_strongest_score,
    xl_terms,
)

BUCKET_CONFIGS = [(256, 512), (256, 1024), (16, 64), (4, 10), (0, 32)]


@pytest.mark.parametrize(("buckets", "top"), BUCKET_CONFIGS)
def test_deberta_bucket_is_transformers(buckets, top):
    from transformers.models.deberta_v2.modeling_deberta_v2 import make_log_bucket_position
    rel = torch.arange(-3000, 3001)
    ref = make_log_bucket_position(rel, buckets, top).long().numpy() if buckets else rel.numpy()
    assert np.array_equal(deberta_bucket(rel.numpy(), buckets, top), ref)


def test_deberta_relative_positions_are_build_relative_position():
    from transformers.models.deberta_v2.modeling_deberta_v2 import build_relative_position
    h = torch.zeros(1, 300, 4)
    ref = build_relative_position(h, h, bucket_size=256, max_position=512)[0].numpy()
    assert np.array_equal(deberta_relative_positions(300, 256, 512), ref)


def test_deberta_v3_buckets_known_values():
    curve = deberta_bucket_curve(2000, 256, 512)
    bucket = dict(zip(curve.distance.tolist(), curve.bucket.tolist(), strict=True))
    assert [bucket[d] for d in (0, 1, -1, 127, 128, -128)] == [0, 1, -1, 127, 128, -128]  # exact up to mid = 128
    # log stretch: ceil(log(d / 128) / log(511 / 128) · 127) + 128, by hand; 131 and 132 are the first to share
    assert bucket[132] == math.ceil(math.log(132 / 128) / math.log(511 / 128) * 127) + 128 == 131 == bucket[131]
    assert curve.first_shared == 132
    assert bucket[511] == 255 and bucket[-511] == -255 and bucket[-512] == -256
    assert bucket[2000] > 255  # the function does not saturate; the table clamp does
    row = dict(zip(curve.distance.tolist(), curve.row.tolist(), strict=True))
    assert row[2000] == 511 and row[-2000] == 0 and row[0] == 256


@settings(max_examples=25, deadline=None)
@given(st.integers(4, 64), st.integers(0, 400), st.integers(1, 3000))
def test_deberta_bucket_is_odd_and_monotone(buckets, extra, top):
    top = max(top, buckets // 2 + 2 + extra)
    d = np.arange(0, 2000)
    b = deberta_bucket(d, buckets, top)
    assert np.array_equal(deberta_bucket(-d, buckets, top), -b)
    assert np.all(np.diff(b) >= 0)


def _deberta_module(example, hidden, heads):
    from transformers import DebertaV2Config
    from transformers.models.deberta_v2.modeling_deberta_v2 import DisentangledSelfAttention
    config = DebertaV2Config(hidden_size=hidden, num_attention_heads=heads, intermediate_size=2 * hidden,
                             relative_attention=True, position_buckets=example.position_buckets,
                             max_relative_positions=example.max_relative_positions, share_att_key=True,
                             pos_att_type=["p2c", "c2p"], hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                             max_position_embeddings=example.max_position_embeddings)
    module = DisentangledSelfAttention(config).eval()
    with torch.no_grad():
        for proj, w, b in ((module.query_proj, "w_q", "b_q"), (module.key_proj, "w_k", "b_k")):
            proj.weight.copy_(torch.from_numpy(getattr(example, w)))
            proj.bias.copy_(torch.from_numpy(getattr(example, b)))
    return module


@pytest.mark.parametrize(("n", "hidden", "heads", "buckets", "top"), [(12, 16, 2, 4, 10), (40, 32, 4, 16, 64),
                                                                      (9, 24, 3, 0, 6), (20, 16, 2, -1, -1),
                                                                      (20, 16, 2, 16, -1)])
def test_deberta_terms_are_disentangled_self_attention(n, hidden, heads, buckets, top):
    """The -1s are DebertaV2Config's defaults: no buckets, and max_position_embeddings for the distance."""
    encoder = pytest.importorskip("transformers.models.deberta_v2.modeling_deberta_v2")
    example = deberta_example(n, hidden, heads, buckets, top, seed=3, max_position_embeddings=48)
    terms = deberta_terms(example)
    module = _deberta_module(example, hidden, heads)
    h, rel = torch.from_numpy(example.hidden)[None], torch.from_numpy(example.rel)
    assert rel.shape[0] == 2 * module.pos_ebd_size  # the table's rows: the module's own reading of the config
    rel_pos = encoder.build_relative_position(h, h, bucket_size=buckets, max_position=module.max_relative_positions)
    with torch.no_grad():
        _, probs = module(h, torch.ones(1, 1, n, n), output_attentions=True, relative_pos=rel_pos,
                          rel_embeddings=rel)
        q = module.transpose_for_scores(module.query_proj(h), heads)
        k = module.transpose_for_scores(module.key_proj(h), heads)
        assert np.array_equal(probs[0].numpy(), terms.weights)
        assert np.array_equal(module.disentangled_attention_bias(q, k, rel_pos, rel, 3).numpy(),
                              terms.c2p + terms.p2c)
        for only in ("c2p", "p2c"):  # one term at a time, same scale sqrt(3d)
            module.pos_att_type = [only]
            bias = module.disentangled_attention_bias(q, k, rel_pos, rel, 3).numpy()
            assert np.array_equal(bias, getattr(terms, only))
    scale = math.sqrt(3 * hidden // heads)
    assert terms.scale == pytest.approx(scale)
    assert np.allclose(terms.c2c, q.numpy() @ k.numpy().transpose(0, 2, 1) / scale, atol=1e-5)


def test_deberta_both_position_terms_read_the_row_of_i_minus_j():
    example = deberta_example(10, 8, 1, 4, 10, seed=1)
    terms = deberta_terms(example)
    span = deberta_span(4, 10)
    assert np.array_equal(terms.c2p_row, terms.p2c_row)
    assert np.array_equal(terms.c2p_row, np.clip(terms.delta + span, 0, 2 * span - 1))


@pytest.mark.parametrize(("kwargs", "field"), [({"position_buckets": 2}, "position_buckets"),
                                               ({"position_buckets": 256, "max_relative_positions": 100},
                                                "max_relative_positions"),
                                               ({"position_buckets": 3}, "position_buckets"),
                                               ({"max_relative_positions": -1, "max_position_embeddings": 0},
                                                "max_position_embeddings")])
def test_deberta_refuses_naming_the_field(kwargs, field):
    with pytest.raises(ValueError, match=field):
        deberta_span(**kwargs)
    with pytest.raises(ValueError, match="multiple"):
        deberta_example(4, hidden=10, heads=3)


@pytest.mark.parametrize("key", ["modernbert-base", "modernbert-large"])
def test_modernbert_frequencies_are_its_rotary_module(key):
    from transformers import ModernBertConfig
    from transformers.models.modernbert.modeling_modernbert import ModernBertRotaryEmbedding
    config = ModernBertConfig(**{k: v for k, v in pc.PRESETS[key].config.items() if k != "model_type"})
    rotary = ModernBertRotaryEmbedding(config)
    freqs = modernbert_frequencies(key)
    assert np.array_equal(freqs["global"], rotary.full_attention_inv_freq.numpy())
    assert np.array_equal(freqs["local"], rotary.sliding_attention_inv_freq.numpy())
    reading = modernbert_reading(key)
    assert [r.layer_type for r in reading.rows] == config.layer_types
    assert reading.layers["global"].theta == 160000.0 and reading.layers["local"].theta == 10000.0


def test_modernbert_window_is_the_bidirectional_mask():
    from transformers import ModernBertConfig
    from transformers.masking_utils import sliding_window_bidirectional_overlay
    overlay = sliding_window_bidirectional_overlay(ModernBertConfig().sliding_window)
    n = 200
    ref = np.array([[overlay(0, 0, i, j) for j in range(n)] for i in range(n)])
    masks = modernbert_masks(n)
    assert np.array_equal(masks["local"], ref) and masks["local"][100].sum() == 129
    for size in (1, 50, 64, 65, 129, 200):
        cost = modernbert_attention_cost(size)
        assert cost.local_per_layer == modernbert_masks(size)["local"].sum()
    cost = modernbert_attention_cost(8192)
    assert cost.all_global == 22 * 8192 ** 2 and cost.global_layers == 8
    assert cost.modernbert == 8 * 8192 ** 2 + 14 * cost.local_per_layer


def test_layer_strip_reads_modernbert_both_ways():
    _, rows = pc.read_layers(pc.PRESETS["modernbert-base"].config)
    sees = layer_table(rows)["sees"]
    assert sees[:3] == ["all tokens, both sides", "64 on each side", "64 on each side"]
    facts = {fact.feature: fact_sentence(fact) for fact in layer_facts(rows[1])}
    assert "64 tokens on each side and itself (129 tokens)" in facts["window"]


def test_xl_sinusoid_is_xlnet_relative_positional_encoding():
    from transformers import XLNetConfig
    from transformers.models.xlnet.modeling_xlnet import XLNetModel
    model = XLNetModel(XLNetConfig(d_model=16, n_head=2, d_inner=32, n_layer=1))
    offsets, table = xl_relative_sinusoid(5, 7, 16)
    assert np.array_equal(table, model.relative_positional_encoding(5, 7)[:, 0].numpy())
    assert offsets.tolist() == list(range(7, -5, -1))


@pytest.mark.parametrize(("n", "d_model", "seed"), [(7, 16, 2), (20, 8, 5)])
def test_xl_terms_are_rel_attn_core(n, d_model, seed):
    from transformers import XLNetConfig
    from transformers.models.xlnet.modeling_xlnet import XLNetRelativeAttention
    ex = xl_example(n, d_model, d_model, seed)  # one head: XLNet's d_head = d_model / n_head
    terms = xl_terms(ex)
    module = XLNetRelativeAttention(XLNetConfig(d_model=d_model, n_head=1, d_inner=32, n_layer=1, dropout=0.0))
    with torch.no_grad():
        module.r_w_bias.copy_(torch.from_numpy(ex.u))
        module.r_r_bias.copy_(torch.from_numpy(ex.v))
        h = torch.from_numpy(ex.hidden)[:, None]
        proj = {key: torch.einsum("ibh,hnd->ibnd", h, torch.from_numpy(getattr(ex, key))) for key in ("w_q", "w_k")}
        k_r = torch.einsum("ibh,hnd->ibnd", torch.from_numpy(terms.R)[:, None], torch.from_numpy(ex.w_r))
        _, prob = module.rel_attn_core(proj["w_q"], proj["w_k"], proj["w_k"], k_r, output_attentions=True)
        shifted = XLNetRelativeAttention.rel_shift_bnij(
            torch.from_numpy(terms.offsets).expand(1, 1, n, 2 * n).contiguous(), klen=n)[0, 0]
    assert np.array_equal(prob[:, :, 0, 0].numpy(), terms.weights)
    assert np.array_equal(shifted.numpy(), terms.offset)  # the shift puts R_{i−j} at (i, j)


def test_xl_terms_are_the_paper_equation():
    """Dai et al. (2019), eq. (2) of section 3.3, cell by cell from the raw inputs."""
    n, d_model = 6, 8
    ex = xl_example(n, d_model, 4, seed=7)
    terms = xl_terms(ex)
    h, wq, wk, wr = (getattr(ex, key).astype(np.float64) for key in ("hidden", "w_q", "w_k", "w_r"))
    u, v = ex.u[0].astype(np.float64), ex.v[0].astype(np.float64)
    freqs = 1 / 10000 ** (np.arange(0, d_model, 2) / d_model)

    def R(m):
        return np.concatenate([np.sin(m * freqs), np.cos(m * freqs)])

    scale = 1 / math.sqrt(4)
    for i in range(n):
        for j in range(n):
            q, k, r = h[i] @ wq[:, 0], h[j] @ wk[:, 0], R(i - j) @ wr[:, 0]
            expected = {"a": q @ k, "b": q @ r, "c": u @ k, "d": v @ r}
            for name, value in expected.items():
                assert getattr(terms, name)[i, j] == pytest.approx(value * scale, abs=1e-5)
    assert np.allclose(sum(getattr(terms, t) for t in "abcd"), terms.total, atol=1e-5)


def test_xl_by_hand():
    """d_model 2, W = identity: R_m = (sin m, cos m); q = (1, 0), k = (0, 1), u = (0, 0), v = (1, 0)."""
    ex = XlExample(hidden=np.array([[1, 0], [0, 1]], np.float32), w_q=np.eye(2, dtype=np.float32)[:, None],
                   w_k=np.eye(2, dtype=np.float32)[:, None], w_r=np.eye(2, dtype=np.float32)[:, None],
                   u=np.zeros((1, 2), np.float32), v=np.array([[1, 0]], np.float32))
    t = xl_terms(ex)
    s = 1 / math.sqrt(2)
    # query 1 (q = (0, 1)) and key 0 (k = (1, 0)): offset 1, R_1 = (sin 1, cos 1)
    assert t.a[1, 0] == 0.0
    assert t.b[1, 0] == pytest.approx(math.cos(1) * s, abs=1e-6)
    assert t.c[1, 0] == 0.0
    assert t.d[1, 0] == pytest.approx(math.sin(1) * s, abs=1e-6)
    assert t.d[0, 1] == pytest.approx(-math.sin(1) * s, abs=1e-6)  # the sine term tells left from right


def test_deberta_v3_table_facts():
    assert deberta_table_facts(256, 512, 768) == DebertaTableFacts(
        rows=512, parameters=393216, span=256, exact_up_to=128, first_shared=132, last_row_from=506)
    assert deberta_bucket(np.array([505, 506, 511]), 256, 512).tolist() == [254, 255, 255]


def test_deberta_query_finds_keys_sharing_a_bucket():
    t = deberta_terms(deberta_example(16, 32, 2, 8, 64))
    q = deberta_query(t, 1, 6)
    a, b = q.same_bucket
    assert q.delta[a] == q.delta[b] and q.c2p[a] == q.c2p[b] and q.p2c[a] != q.p2c[b]
    assert np.array_equal(q.total, t.total[1, 6])


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 24), st.sampled_from([8, 16, 32]), st.integers(0, 10_000))
def test_xl_global_terms_ignore_the_query(n, d_model, seed):
    t = xl_terms(xl_example(n, d_model, 8, seed))
    assert xl_distance_bias(t).spread <= 1e-6  # (d): one value per diagonal
    assert np.ptp(t.c, axis=0).max() <= 1e-6  # (c): one value per key, down each column


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 20_000))
def test_modernbert_cost_between_local_only_and_full(n):
    c = modernbert_attention_cost(n)
    assert c.local_per_layer <= min(n * n, 129 * n)
    assert c.modernbert <= c.all_global and (n > 65 or c.modernbert == c.all_global)


def test_the_numbers_the_pages_state_are_the_grids_read_directly():
    d = deberta_terms(deberta_example(16, 32, 2, 8, 64, 0))
    q = deberta_query(d, 1, 6)
    assert q.strongest == int(np.argmax(d.total[1, 6]))
    t = xl_terms(xl_example(12, 16, 8, 0))
    top = xl_strongest_score(t, 6)
    j = int(np.argmax(t.total[6]))
    assert top.j == j and top.offset == 6 - j and top.total == float(t.total[6, j])
    assert all(getattr(top, k) == float(getattr(t, k)[6, j]) for k in "abcd")
    m = modernbert_masks(256)
    assert modernbert_keys_seen(256, 128) == int(m["local"][128].sum()) == 129
    assert modernbert_keys_seen(256, 0) == 65  # an end token sees one side only
    cost = modernbert_attention_cost(8192)
    assert cost.local_layers == cost.layers - cost.global_layers
    assert cost.local_per_token == cost.local_per_layer / 8192
    view = modernbert_pairs()["local"]
    assert view.pairs == view.layer.pair.size and view.under_a_turn == view.pairs - \
        view.counts["in_span"]
    with pytest.raises(ValueError, match="query"):
        xl_strongest_score(t, 12)
    with pytest.raises(ValueError, match="query"):
        modernbert_keys_seen(8, 8)
