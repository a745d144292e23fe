"""Multimodal positions: the app's 3D ids and cos/sin against transformers 5.23's own code.

get_rope_index is called on a minimal stand-in for each model (a namespace holding the config and the
class's own get_vision_position_ids), not on a built model: building Qwen3-Omni or ERNIE 4.5 VL on two
CPU cores takes minutes, and get_rope_index reads nothing else from ``self``. The rotary embedding
modules are real instances built from small configs.
"""

import functools
import types

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc_core import multimodal as mm
from posenc_core.rope import rope_inv_freq_float32_pow

S = mm.Segment
GRID_FAMILIES = [k for k, f in mm.MM_FAMILIES.items() if f.time_rule != "omni_seconds"]


def _model_class(key):
    from transformers.models.ernie4_5_vl_moe import modeling_ernie4_5_vl_moe as ernie
    from transformers.models.glm4v import modeling_glm4v as glm
    from transformers.models.qwen2_5_vl import modeling_qwen2_5_vl as q25
    from transformers.models.qwen2_vl import modeling_qwen2_vl as q2
    from transformers.models.qwen3_5 import modeling_qwen3_5 as q35
    from transformers.models.qwen3_vl import modeling_qwen3_vl as q3
    return {"qwen2_vl": q2.Qwen2VLModel, "qwen2_5_vl": q25.Qwen2_5_VLModel, "qwen3_vl": q3.Qwen3VLModel,
            "qwen3_5": q35.Qwen3_5Model, "glm4v": glm.Glm4vModel, "ernie4_5_vl": ernie.Ernie4_5_VLMoeModel}[key]


def _reference_grid_ids(key, result):
    """The family's own get_rope_index on the token types and grids the app built."""
    family, cls = mm.MM_FAMILIES[key], _model_class(key)
    vision = types.SimpleNamespace(spatial_merge_size=family.spatial_merge, temporal_merge_size=family.temporal_merge,
                                   tokens_per_second=family.tokens_per_second)
    stub = types.SimpleNamespace(config=types.SimpleNamespace(vision_config=vision),
                                 get_vision_position_ids=functools.partial(cls.get_vision_position_ids, None))
    inputs = result.inputs
    n = len(inputs["mm_token_type_ids"])
    kwargs = {}
    if key == "qwen2_5_vl":  # the processor hands temporal_patch_size / fps over as a float32 tensor
        kwargs["second_per_grid_ts"] = torch.tensor(inputs["second_per_grid_ts"], dtype=torch.float32)
    ids, _ = cls.get_rope_index(
        stub, torch.zeros(1, n, dtype=torch.long), torch.tensor([inputs["mm_token_type_ids"]]),
        image_grid_thw=torch.tensor(inputs["image_grid_thw"]).reshape(-1, 3) if inputs["image_grid_thw"] else None,
        video_grid_thw=torch.tensor(inputs["video_grid_thw"]).reshape(-1, 3) if inputs["video_grid_thw"] else None,
        **kwargs)
    return ids[:, 0].numpy()


OMNI_TOKENS = {"text": 100, "image": 151655, "video": 151656, "audio": 151646, "vision_start": 151652,
               "vision_end": 151653, "audio_start": 151647, "audio_end": 151648}


def _reference_omni_ids(result):
    from transformers.models.qwen3_omni_moe import modeling_qwen3_omni_moe as omni
    cls = omni.Qwen3OmniMoePreTrainedModelForConditionalGeneration
    family = mm.MM_FAMILIES["qwen3_omni"]
    config = types.SimpleNamespace(
        image_token_id=OMNI_TOKENS["image"], video_token_id=OMNI_TOKENS["video"], audio_token_id=OMNI_TOKENS["audio"],
        vision_start_token_id=OMNI_TOKENS["vision_start"], audio_start_token_id=OMNI_TOKENS["audio_start"],
        position_id_per_seconds=family.position_id_per_seconds, audio_config=types.SimpleNamespace(n_window=50))
    stub = types.SimpleNamespace(config=config, spatial_merge_size=family.spatial_merge,
                                 get_llm_pos_ids_for_vision=functools.partial(cls.get_llm_pos_ids_for_vision, None))
    inputs = result.inputs
    input_ids = torch.tensor([[OMNI_TOKENS[name] for name in inputs["layout"]]])
    grid = {k: torch.tensor(inputs[k]).reshape(-1, 3) if inputs[k] else None
            for k in ("image_grid_thw", "video_grid_thw")}
    ids, _ = cls.get_rope_index(
        stub, input_ids, attention_mask=torch.ones_like(input_ids), use_audio_in_video=inputs["use_audio_in_video"],
        audio_seqlens=torch.tensor(inputs["audio_seqlens"], dtype=torch.long),
        second_per_grids=torch.tensor(inputs["second_per_grid_ts"], dtype=torch.float32), **grid)
    return ids[:, 0].numpy()


# ---------- random mixed sequences ----------

texts = st.integers(1, 6).map(lambda n: S("text", tokens=n))
images = st.builds(lambda h, w: S("image", h=h, w=w), st.integers(1, 5), st.integers(1, 5))
fps_values = st.sampled_from([0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 4.0, 7.0, 24.0, 29.97])
videos = st.builds(lambda f, h, w, fps: S("video", frames=2 * f, h=h, w=w, fps=fps),
                   st.integers(1, 5), st.integers(1, 4), st.integers(1, 4), fps_values)


@st.composite
def sequences(draw, audio=False):
    media = st.one_of(images, videos, st.floats(0.1, 3.0).map(lambda s: S("audio", seconds=round(s, 2)))) if audio \
        else st.one_of(images, videos)
    parts = [draw(texts)]
    for _ in range(draw(st.integers(0, 3))):
        parts += [draw(media), draw(texts)]
    if draw(st.booleans()):
        parts = parts[1:] or parts  # a prompt may open with an image (the wrapper token comes first)
    return parts


@pytest.mark.parametrize("key", GRID_FAMILIES)
@settings(max_examples=25, deadline=None)
@given(parts=sequences())
def test_ids_equal_get_rope_index(key, parts):
    result = mm.mm_position_ids(key, parts)
    np.testing.assert_array_equal(result.ids, _reference_grid_ids(key, result))


@settings(max_examples=60, deadline=None)
@given(parts=sequences(audio=True), with_sound=st.booleans())
def test_omni_ids_equal_get_rope_index(parts, with_sound):
    parts = [S("video", frames=p.frames, h=p.h, w=p.w, fps=p.fps, audio=with_sound) if p.kind == "video" else p
             for p in parts]
    result = mm.mm_position_ids("qwen3_omni", parts)
    np.testing.assert_array_equal(result.ids, _reference_omni_ids(result))


def test_omni_audio_only_is_plain_1d():
    result = mm.mm_position_ids("qwen3_omni", [S("text", tokens=3), S("audio", seconds=1.0), S("text", tokens=2)])
    np.testing.assert_array_equal(result.ids, np.broadcast_to(np.arange(result.ids.shape[1]), result.ids.shape))


def test_omni_audio_token_count_matches_encoder():
    from transformers.models.qwen3_omni_moe.modeling_qwen3_omni_moe import _get_feat_extract_output_lengths
    for seconds in (0.1, 0.5, 0.99, 1.0, 1.37, 2.0, 7.25, 30.0):
        frames, tokens = mm.omni_audio_tokens(seconds)
        assert tokens == int(_get_feat_extract_output_lengths(torch.tensor(frames), 50))
    assert mm.omni_audio_tokens(1.0) == (100, 13)


# ---------- known values ----------

def test_qwen2_vl_known_ids():
    # text "a b", vision_start, a 2 x 3 image, vision_end, "c": the image's rows and columns start at 3
    result = mm.mm_position_ids("qwen2_vl", [S("text", tokens=2), S("image", h=2, w=3), S("text", tokens=1)])
    t, h, w = result.ids.astype(int)
    assert list(t) == [0, 1, 2] + [3] * 6 + [6, 7]
    assert list(h) == [0, 1, 2, 3, 3, 3, 4, 4, 4, 6, 7]
    assert list(w) == [0, 1, 2, 3, 4, 5, 3, 4, 5, 6, 7]
    assert result.next_text == 8 and result.next_generated == 8


def test_qwen2_5_time_follows_seconds():
    # 8 frames at 1 fps: 4 groups, 2 s each, tokens_per_second 2 -> ids 4 apart; at 4 fps: 1 apart
    slow = mm.mm_position_ids("qwen2_5_vl", [S("text", tokens=1), S("video", frames=8, h=1, w=1, fps=1.0)])
    fast = mm.mm_position_ids("qwen2_5_vl", [S("text", tokens=1), S("video", frames=8, h=1, w=1, fps=4.0)])
    assert list(slow.ids[0, 2:6].astype(int)) == [2, 6, 10, 14]
    assert list(fast.ids[0, 2:6].astype(int)) == [2, 3, 4, 5]


def test_pair_axes_known_layouts():
    chunked = mm.mm_pair_axes(mm.mm_rope_settings("qwen2_vl"))
    assert list(np.bincount(chunked)) == [16, 24, 24] and list(chunked[:17]) == [0] * 16 + [1]
    inter = mm.mm_pair_axes(mm.mm_rope_settings("qwen3_vl"))
    assert list(inter[:6]) == [0, 1, 2, 0, 1, 2] and list(inter[-4:]) == [0, 0, 0, 0]
    assert list(np.bincount(inter)) == [24, 20, 20]
    ernie = mm.mm_pair_axes(mm.mm_rope_settings("ernie4_5_vl"))
    assert list(ernie[:4]) == [1, 2, 1, 2] and set(ernie[44:]) == {0} and list(np.bincount(ernie)) == [20, 22, 22]
    q35 = mm.mm_rope_settings("qwen3_5")
    assert q35.rotary_dim == 64 and list(np.bincount(mm.mm_pair_axes(q35))) == [11, 11, 10]


# ---------- cos / sin against the models' rotary modules, bit for bit in float32 ----------

def _text_rotary(key):
    from transformers.models.ernie4_5_vl_moe import modeling_ernie4_5_vl_moe as ernie
    from transformers.models.glm4v import modeling_glm4v as glm
    from transformers.models.qwen2_5_vl import modeling_qwen2_5_vl as q25
    from transformers.models.qwen2_vl import modeling_qwen2_vl as q2
    from transformers.models.qwen3_5 import modeling_qwen3_5 as q35
    from transformers.models.qwen3_omni_moe import modeling_qwen3_omni_moe as omni
    from transformers.models.qwen3_vl import modeling_qwen3_vl as q3
    family = mm.MM_FAMILIES[key]
    rope = {"rope_type": "default", "rope_theta": family.rope_theta, "mrope_section": list(family.mrope_section)}
    if family.partial_rotary_factor != 1.0:
        rope["partial_rotary_factor"] = family.partial_rotary_factor
    config = types.SimpleNamespace(max_position_embeddings=4096, head_dim=family.head_dim, hidden_size=4096,
                                   num_attention_heads=4096 // family.head_dim, rope_parameters=rope)
    cls = {"qwen2_vl": q2.Qwen2VLRotaryEmbedding, "qwen2_5_vl": q25.Qwen2_5_VLRotaryEmbedding,
           "qwen3_vl": q3.Qwen3VLTextRotaryEmbedding, "qwen3_5": q35.Qwen3_5TextRotaryEmbedding,
           "glm4v": glm.Glm4vTextRotaryEmbedding, "ernie4_5_vl": ernie.Ernie4_5_VLMoeTextRotaryEmbedding,
           "qwen3_omni": omni.Qwen3OmniMoeThinkerTextRotaryEmbedding}[key]
    return cls(config)


MIXED = [S("text", tokens=5), S("image", h=4, w=6), S("text", tokens=3), S("video", frames=6, h=3, w=2, fps=1.5),
         S("text", tokens=4)]


@pytest.mark.parametrize("key", list(mm.MM_FAMILIES))
def test_cos_sin_bit_identical_to_model(key):
    ids = mm.mm_position_ids(key, MIXED).ids
    ids = ids + np.array([[0.0], [0.0], [0.0]]) + 3000 * (key == "qwen3_omni")  # far positions too
    cos, sin = mm.mm_cos_sin(mm.mm_rope_settings(key), ids, backend="torch")
    rotary = _text_rotary(key)
    ref_cos, ref_sin = rotary(torch.zeros(1, dtype=torch.float32), torch.from_numpy(ids.astype(np.float32))[:, None])
    assert cos.dtype == np.float32
    np.testing.assert_array_equal(cos, ref_cos[0].numpy())
    np.testing.assert_array_equal(sin, ref_sin[0].numpy())
    np_cos, np_sin = mm.mm_cos_sin(mm.mm_rope_settings(key), ids, backend="numpy")
    np.testing.assert_allclose(np_cos, cos, atol=2e-6)
    np.testing.assert_allclose(np_sin, sin, atol=2e-6)


@pytest.mark.parametrize("key", ["qwen2_vl", "qwen3_5", "glm4v", "ernie4_5_vl"])
def test_scores_match_model_rotation(key):
    """mm_scores rotates q and k as the model's apply_rotary_pos_emb does (float64 here, float32 there)."""
    from transformers.models.ernie4_5_vl_moe import modeling_ernie4_5_vl_moe as ernie
    from transformers.models.glm4v import modeling_glm4v as glm
    from transformers.models.qwen2_vl import modeling_qwen2_vl as q2
    from transformers.models.qwen3_5 import modeling_qwen3_5 as q35
    apply = {"qwen2_vl": q2.apply_rotary_pos_emb, "qwen3_5": q35.apply_rotary_pos_emb,
             "glm4v": glm.apply_rotary_pos_emb, "ernie4_5_vl": ernie.apply_rotary_pos_emb}[key]
    settings_ = mm.mm_rope_settings(key)
    ids = mm.mm_position_ids(key, MIXED).ids
    cos, sin = mm.mm_cos_sin(settings_, ids)
    content = np.random.default_rng(3).standard_normal(settings_.head_dim)
    x = torch.from_numpy(np.broadcast_to(content, (1, 1, ids.shape[1], settings_.head_dim)).astype(np.float32).copy())
    q, _ = apply(x, x, torch.from_numpy(cos)[None], torch.from_numpy(sin)[None])
    expected = (q[0, 0] @ q[0, 0, 7]).double().numpy()
    got = mm.mm_scores(settings_, ids, 7, vectors="random", seed=3)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-3)


# ---------- properties ----------

@pytest.mark.parametrize("key", list(mm.MM_FAMILIES))
@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 300))
def test_text_only_is_ordinary_rope(key, n):
    result = mm.mm_position_ids(key, [S("text", tokens=n)])
    assert np.array_equal(result.ids[0], result.ids[1]) and np.array_equal(result.ids[1], result.ids[2])
    np.testing.assert_array_equal(result.ids[0], np.arange(n))
    settings_ = mm.mm_rope_settings(key)
    cos, sin = mm.mm_cos_sin(settings_, result.ids, backend="numpy")
    inv = rope_inv_freq_float32_pow(settings_.rotary_dim, settings_.rope_theta)
    angles = np.arange(n, dtype=np.float32)[:, None] * inv  # (n, pairs): plain 1D RoPE
    tiled = (lambda a: np.concatenate([a, a], -1)) if settings_.pair_layout == "half" else \
        (lambda a: np.repeat(a, 2, -1))
    np.testing.assert_array_equal(cos, tiled(np.cos(angles)))
    np.testing.assert_array_equal(sin, tiled(np.sin(angles)))


@pytest.mark.parametrize("key", list(mm.MM_FAMILIES))
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_ids_never_decrease_across_text(key, data):
    """A text token's id is above every height and width id before it (so text ids only go up). Where time
    is written as text or follows Qwen3-Omni's max + 1 rule it is above every earlier id of any row; with
    frame-index or seconds-spaced time (Qwen2-VL, Qwen2.5-VL, ERNIE) a long video's time ids can reach past
    the next text token in transformers 5.23, which the page shows."""
    parts = data.draw(sequences(audio=key == "qwen3_omni"))
    result = mm.mm_position_ids(key, parts)
    all_rows = mm.MM_FAMILIES[key].time_rule in ("text_timestamps", "omni_seconds")
    rows = result.ids if all_rows else result.ids[1:]  # (3 or 2, n)
    earlier = np.maximum.accumulate(rows.max(axis=0))  # (n,) the largest id so far
    slack = 1e-4  # Qwen3-Omni's fractional ids are float32 in the model: a start of max + 1 is rounded there
    for i in np.flatnonzero(result.kind == 0)[1:]:
        assert result.ids[0, i] >= earlier[i - 1] + 1 - slack
    assert np.all(np.diff(result.ids[0][result.kind == 0]) >= 1 - slack)


# ---------- bad input ----------

@pytest.mark.parametrize("segments, message", [
    ([], "empty"),
    ([S("picture")], "kind"),
    ([S("text", tokens=0)], "at least 1"),
    ([S("image", h=0, w=2)], "height"),
    ([S("image", h=2, w=65)], "at most"),
    ([S("video", frames=3, h=2, w=2)], "multiple of 2"),
    ([S("video", frames=4, h=2, w=2, fps=0.0)], "fps"),
    ([S("audio", seconds=1.0)], "no audio"),
    ([S("video", frames=4, h=2, w=2, audio=True)], "no audio"),
    ([S("text", tokens=19_999), S("image", h=4, w=4)], "20,000"),
])
def test_bad_sequences(segments, message):
    with pytest.raises(ValueError, match=message):
        mm.mm_position_ids("qwen2_vl", segments)


def test_bad_settings():
    with pytest.raises(ValueError, match="Unknown model family"):
        mm.mm_rope_settings("llama")
    with pytest.raises(ValueError, match="sums to"):
        mm.mm_rope_settings("qwen2_vl", mrope_section=[16, 24, 23])
    with pytest.raises(ValueError, match="equal height and width"):
        mm.mm_rope_settings("ernie4_5_vl", mrope_section=[24, 20, 20])
    with pytest.raises(ValueError, match="even number"):
        mm.mm_rope_settings("qwen3_5", partial_rotary_factor=0.001)
    with pytest.raises(ValueError, match="3 numbers"):
        mm.mm_rope_settings("qwen2_vl", mrope_section=[64])
    with pytest.raises(ValueError, match="shape"):
        mm.mm_cos_sin(mm.mm_rope_settings("qwen2_vl"), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="one switch"):
        mm.mm_position_ids("qwen3_omni", [S("video", frames=2, h=1, w=1, audio=True), S("text", tokens=1),
                                          S("video", frames=2, h=1, w=1)])
    with pytest.raises(ValueError, match="frame_text"):
        mm.mm_position_ids("qwen3_vl", [S("text", tokens=1)], frame_text=0)


def test_parse_segments():
    parts = mm.parse_segments("text 4, image 3x4, text 2, video 4f 2x2 @1.5 +audio, audio 1.5s")
    assert parts[1] == S("image", h=3, w=4)
    assert parts[3] == S("video", frames=4, h=2, w=2, fps=1.5, audio=True)
    assert parts[4] == S("audio", seconds=1.5)
    for bad in ("", "sound 3", "image 3", "text x"):
        with pytest.raises(ValueError):
            mm.parse_segments(bad)


@pytest.mark.parametrize("key", list(mm.MM_FAMILIES))
@settings(max_examples=20, deadline=None)
@given(h=st.integers(1, 12), w=st.integers(1, 12), before=st.integers(1, 6))
def test_image_advance_is_the_larger_side_wherever_the_image_sits(key, h, w, before):
    """get_rope_index moves the text after an image by max(rows, columns), whatever text comes before it, and
    the advance is read from the same numbering the page draws (here a longer prompt around the image)."""
    advance = mm.mm_image_advance(key, h, w)
    assert advance.advance == max(h, w)
    result = mm.mm_position_ids(key, [S("text", tokens=before), S("image", h=h, w=w), S("text", tokens=2)])
    image = np.flatnonzero(result.kind == 1)
    assert result.ids[0, image[-1] + 1] - result.ids[0, image[0]] == advance.advance


def test_image_advance_known_values_and_refusals():
    # after one text token and the start token
    assert mm.mm_image_advance("qwen2_vl", 3, 4) == mm.ImageAdvance(start=2.0, next=6.0, advance=4.0)
    assert mm.mm_image_advance("qwen2_vl", 1, 1).advance == 1.0
    with pytest.raises(ValueError, match="image rows"):
        mm.mm_image_advance("qwen2_vl", 0, 4)
    with pytest.raises(ValueError, match="image columns"):
        mm.mm_image_advance("qwen2_vl", 3, 65)
