import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from page_kit.lesson.config_words import fact_sentence
from posenc_core.configs import layer_contexts
from posenc_core.todays_models import (
    MLA_CONFIGS,
    MLA_PRESETS,
    LatentConfig,
    MlaWeights,
    kv_cache_per_token,
    latent_config,
    mla_demo_scores,
    mla_layout_gap,
    mla_random_weights,
    mla_scores,
    mla_shift_change,
    mla_softmax_scale,
    mla_tiny_config,
)

torch = pytest.importorskip("torch")
deepseek = pytest.importorskip("transformers.models.deepseek_v3.modeling_deepseek_v3")
from transformers import DeepseekV3Config  # noqa: E402


def _tiny(q_lora_rank, interleave, rope):
    params = {"rope_theta": 10000.0, **rope}
    ours = LatentConfig(hidden_size=32, num_attention_heads=4, num_hidden_layers=1, q_lora_rank=q_lora_rank,
                           kv_lora_rank=16, qk_nope_head_dim=8, qk_rope_head_dim=8, v_head_dim=6,
                           rope_parameters=params, rope_interleave=interleave, max_position_embeddings=256)
    theirs = DeepseekV3Config(hidden_size=32, num_attention_heads=4, num_key_value_heads=4, q_lora_rank=q_lora_rank,
                              kv_lora_rank=16, qk_nope_head_dim=8, qk_rope_head_dim=8, v_head_dim=6,
                              rope_parameters=dict(params), rope_interleave=interleave, max_position_embeddings=256,
                              num_hidden_layers=1, vocab_size=16, intermediate_size=32, moe_intermediate_size=16)
    theirs._attn_implementation = "eager"
    return ours, theirs


YARN = {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 32, "mscale": 1.0,
        "mscale_all_dim": 1.0, "beta_fast": 32.0, "beta_slow": 1.0}
UNEVEN_YARN = YARN | {"mscale": 0.707, "mscale_all_dim": 0.5}  # attention_factor != 1: cos/sin get scaled


@pytest.mark.parametrize("q_lora_rank", [None, 12])
@pytest.mark.parametrize("interleave", [True, False])
@pytest.mark.parametrize("rope", [{"rope_type": "default"}, YARN, UNEVEN_YARN], ids=["default", "yarn", "yarn-af"])
def test_scores_match_transformers_deepseek_v3_attention(q_lora_rank, interleave, rope):
    ours, config = _tiny(q_lora_rank, interleave, rope)
    torch.manual_seed(0)
    module = deepseek.DeepseekV3Attention(config, layer_idx=0).eval()
    rotary = deepseek.DeepseekV3RotaryEmbedding(config)
    with torch.no_grad():
        for p in module.parameters():  # the RMSNorm weights too, so the norms are really checked
            p.copy_(torch.randn_like(p) * 0.3 + (1.0 if p.ndim == 1 else 0.0))
    names = {"kv_a": module.kv_a_proj_with_mqa, "kv_b": module.kv_b_proj, "kv_a_norm": module.kv_a_layernorm}
    names |= {"q": module.q_proj} if q_lora_rank is None else {
        "q_a": module.q_a_proj, "q_a_norm": module.q_a_layernorm, "q_b": module.q_b_proj}
    weights = MlaWeights(**{k: m.weight.detach().numpy().copy() for k, m in names.items()})

    length, start = 9, 40  # positions past YaRN's original length, so the scaled frequencies matter
    hidden = np.random.default_rng(1).standard_normal((length, 32)).astype(np.float32)
    positions = np.arange(start, start + length)
    mask = torch.full((length, length), float("-inf")).triu(1)[None, None]
    with torch.no_grad():
        x = torch.from_numpy(hidden)[None]
        cos, sin = rotary(x, torch.from_numpy(positions)[None])
        _, reference = module(x, (cos, sin), mask)  # (1, h, L, L) softmax weights
    got = mla_scores(hidden, weights, ours, positions)
    np.testing.assert_allclose(got.probs, reference[0].numpy(), atol=2e-6)
    assert got.scale.scale == pytest.approx(module.scaling, rel=1e-12)
    assert got.scale.attention_factor == pytest.approx(rotary.attention_scaling, rel=1e-6)


def test_the_rotated_key_is_shared_by_all_heads_and_the_cache_is_latent_plus_key():
    cfg = mla_tiny_config("DeepSeek V3", heads=3, hidden=64)
    weights = mla_random_weights(cfg, seed=2)
    hidden = np.random.default_rng(0).standard_normal((6, 64)).astype(np.float32)
    out = mla_scores(hidden, weights, cfg)
    assert out.k_rot.shape == (6, 64) and out.kv_latent.shape == (6, 512)
    # one rotated key per token for all heads; the logits are exactly scale x (content + position) below the mask
    total = (out.content + out.position) * np.float32(out.scale.scale)
    np.testing.assert_allclose(np.tril(total), np.tril(np.nan_to_num(out.logits, neginf=0.0)), atol=1e-5)


def test_the_wrong_pairing_changes_only_the_position_term():
    cfg = mla_tiny_config("DeepSeek V3", heads=2, hidden=32)
    weights = mla_random_weights(cfg, seed=3)
    hidden = np.random.default_rng(3).standard_normal((6, 32)).astype(np.float32)
    right = mla_scores(hidden, weights, cfg)
    wrong = mla_scores(hidden, weights, dataclasses.replace(cfg, rope_interleave=False))
    np.testing.assert_array_equal(right.content, wrong.content)
    assert mla_layout_gap(right, wrong) > 0.1
    assert mla_layout_gap(right, right) == 0.0
    # at position 0 nothing is rotated, so the pairing does not matter on the diagonal of token 0
    assert right.position[0, 0, 0] == pytest.approx(wrong.position[0, 0, 0], abs=1e-5)
    assert 0 < right.position_share[0] < 1


def test_deepseek_v3_softmax_scale_has_mscale_squared():
    scale = mla_softmax_scale(MLA_PRESETS["DeepSeek V3"])
    mscale = 0.1 * np.log(40.0) + 1.0
    assert scale.mscale == pytest.approx(mscale)
    assert scale.scale == pytest.approx(192 ** -0.5 * mscale**2)
    assert scale.attention_factor == pytest.approx(1.0)  # mscale == mscale_all_dim cancels on cos/sin
    glm5 = mla_softmax_scale(MLA_PRESETS["GLM-5"])
    assert glm5.mscale == 1.0 and glm5.scale == pytest.approx(256 ** -0.5)


def test_presets_match_transformers_config_defaults():
    from transformers import DeepseekV3Config, GlmMoeDsaConfig, Mistral4Config

    for name, cls in [("DeepSeek V3", DeepseekV3Config), ("GLM-5", GlmMoeDsaConfig),
                      ("Mistral Small 4", Mistral4Config)]:
        ours, theirs = MLA_PRESETS[name], cls()
        for key in ("hidden_size", "num_attention_heads", "num_hidden_layers", "q_lora_rank", "kv_lora_rank",
                    "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"):
            assert getattr(ours, key) == getattr(theirs, key), (name, key)
    assert MLA_PRESETS["GLM-5"].rope_parameters == GlmMoeDsaConfig().rope_parameters
    mistral = Mistral4Config().rope_parameters
    for key in ("factor", "original_max_position_embeddings", "mscale", "mscale_all_dim", "rope_theta"):
        assert MLA_PRESETS["Mistral Small 4"].rope_parameters[key] == mistral[key]


def test_kv_cache_deepseek_v3_known_values():
    cache = kv_cache_per_token(MLA_PRESETS["DeepSeek V3"], kv_heads=8, dtype="bfloat16")
    values = cache.values_per_layer
    assert values["mla"] == 576 and values["mha"] == 128 * (192 + 128) and values["gqa"] == 8 * 320
    assert cache.bytes_per_token["mla"] == 576 * 2 * 61
    assert cache.rope_share_of_mla == pytest.approx(64 / 576)
    assert cache.kib_per_token["mla"] == pytest.approx(576 * 2 * 61 / 1024)
    assert cache.mha_over_mla == pytest.approx(128 * 320 / 576)


def test_shift_change_is_rounding_and_moves_later_when_it_fits():
    shift = mla_shift_change("DeepSeek V3", 2, 8, 0)
    assert shift.moved_start == 1000 and shift.change < 0.1 * shift.size
    limit = MLA_PRESETS["DeepSeek V3"].max_position_embeddings - 8
    assert mla_shift_change("DeepSeek V3", 2, 8, limit).moved_start == limit - 1000
    with pytest.raises(ValueError):
        mla_shift_change("no such model", 2, 8, 0)


@settings(max_examples=25, deadline=None)
@given(heads=st.sampled_from([1, 2, 4]), seed=st.integers(0, 1000), shift=st.integers(0, 5000))
def test_position_term_depends_only_on_the_offset(heads, seed, shift):
    # the same tokens at shifted positions: RoPE's position term is unchanged, the content term never moves
    cfg = dataclasses.replace(mla_tiny_config("GLM-5", heads=heads, hidden=32))
    weights = mla_random_weights(cfg, seed)
    hidden = np.random.default_rng(seed).standard_normal((5, 32)).astype(np.float32)
    a = mla_scores(hidden, weights, cfg)
    b = mla_scores(hidden, weights, cfg, np.arange(5) + shift)
    np.testing.assert_array_equal(a.content, b.content)
    np.testing.assert_allclose(a.position, b.position, atol=2e-3 + 1e-6 * shift)


def test_errors_are_sentences():
    cfg = mla_tiny_config("DeepSeek V3")
    weights = mla_random_weights(cfg)
    with pytest.raises(ValueError, match="shape"):
        mla_scores(np.zeros((3, 7)), weights, cfg)
    with pytest.raises(ValueError, match="position ids"):
        mla_scores(np.zeros((3, cfg.hidden_size)), weights, cfg, [0, 1])
    with pytest.raises(ValueError, match="divide"):
        kv_cache_per_token(MLA_PRESETS["DeepSeek V3"], kv_heads=7)
    with pytest.raises(ValueError, match="dtype"):
        kv_cache_per_token(MLA_PRESETS["DeepSeek V3"], dtype="int3")
    with pytest.raises(ValueError, match="preset"):
        mla_tiny_config("GPT-2")


def test_demo_scores_keep_the_layer_and_move_only_the_positions():
    preset = "DeepSeek V3"
    a, b = mla_demo_scores(preset, 2, 6, 0), mla_demo_scores(preset, 2, 6, 500)
    np.testing.assert_array_equal(a.content, b.content)  # content never sees a position
    np.testing.assert_allclose(a.position, b.position, atol=1e-3)  # only offsets i - j reach the rotated slice
    other = mla_demo_scores(preset, 2, 6, 0, interleave=not MLA_PRESETS[preset].rope_interleave)
    assert mla_layout_gap(a, other) > 0
    with pytest.raises(ValueError):
        mla_demo_scores(preset, 2, 6, -1)
    with pytest.raises(ValueError):
        mla_demo_scores("GPT-2", 2, 6, 0)


@pytest.mark.parametrize("name", list(MLA_PRESETS))
def test_each_mla_preset_is_the_one_reading_of_its_config(name):
    """Sizes, rotated slice, base, scaling, context and the softmax scale of the latent page are those the one config
    reading (read_layers, what Layer by layer draws) gives for the preset's config.json; its facts name the slice."""
    from posenc_core.todays_models.latent import _rope

    read, facts = latent_config(MLA_CONFIGS[name])
    preset = MLA_PRESETS[name]
    fields = ("hidden_size", "num_attention_heads", "num_hidden_layers", "q_lora_rank", "kv_lora_rank",
              "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "rope_interleave", "max_position_embeddings")
    assert [getattr(read, f) for f in fields] == [getattr(preset, f) for f in fields]
    for ours, theirs in zip(_rope(read), _rope(preset), strict=True):
        np.testing.assert_array_equal(ours, theirs)
    assert mla_softmax_scale(read) == mla_softmax_scale(preset)

    latent = next(f for f in facts if f.feature == "latent")
    assert tuple(latent.numbers) == (preset.qk_rope_head_dim, preset.qk_head_dim)
    assert f"{preset.qk_rope_head_dim}-dim qk_rope_head_dim slice of each {preset.qk_head_dim}-dim" in fact_sentence(
        latent)
    _, rows = pc.read_layers(MLA_CONFIGS[name])
    assert layer_contexts(next(r for r in rows if r.rotates))[1] in (None, preset.max_position_embeddings)
