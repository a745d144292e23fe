"""Every preset, read through the same path a pasted config takes, against transformers' own classes.

For each model family: the config class built from the preset (``AutoConfig.for_model``), the model's
rotary module built from that class, and the per-layer facts its modeling file decides (which layers
rotate, windows, chunks, query scaling, sinks) compared with the app's layer-by-layer reading.
"""

from __future__ import annotations

import importlib
import inspect
import json
import logging

import numpy as np
import pytest

import posenc_core as pc
from page_kit.lesson.config_words import mixer_name
from page_kit.lesson.preset_words import preset_note, preset_source
from posenc_core.configs import LayerQueryScale, layer_inv_freq, normalise_config, query_scale

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
from transformers import AutoConfig  # noqa: E402
from transformers.models.auto.configuration_auto import model_type_to_module_name  # noqa: E402

logging.getLogger("transformers").setLevel(logging.ERROR)


def pasted(key):
    """What the page does with a pasted config: JSON text -> parse -> read -> one row per layer."""
    text = json.dumps(pc.PRESETS[key].config, indent=2)
    return pc.read_layers(pc.parse_config_json(text))


def hf_text_config(key):
    config = pc.preset_config(key)
    model_type = config.pop("model_type")
    obj = AutoConfig.for_model(model_type, **config)
    return obj.get_text_config(decoder=True)


def rotary_module(text_config):
    """The model's own text rotary module, built from its config class."""
    module = importlib.import_module(
        f"transformers.models.{model_type_to_module_name(text_config.model_type)}."
        f"modeling_{model_type_to_module_name(text_config.model_type)}")
    classes = [c for name, c in vars(module).items() if inspect.isclass(c) and name.endswith("RotaryEmbedding")
               and "Vision" not in name and c.__module__ == module.__name__]
    classes.sort(key=lambda c: ("Text" not in c.__name__, c.__name__))
    for cls in classes:
        try:
            return cls(text_config)
        except Exception:  # noqa: BLE001 (try the next candidate class)
            continue
    return None


def hf_inv_freq(rotary, label):
    if label is not None and hasattr(rotary, f"{label}_inv_freq"):
        return getattr(rotary, f"{label}_inv_freq").numpy(), float(getattr(rotary, f"{label}_attention_scaling"))
    return rotary.inv_freq.numpy(), float(rotary.attention_scaling)


ROTATING = [k for k in pc.PRESETS if any(r.rotates for r in pasted(k)[1])]


def test_at_least_twenty_families_of_today():
    families = {normalise_config(pc.preset_config(k)).model_type for k in pc.PRESETS}
    assert len(pc.PRESETS) >= 27 and len(families) >= 25
    for key, preset in pc.PRESETS.items():
        assert preset.model_id.count("/") == 1 and preset_source(key) and preset_note(key) and preset.model_type


# Keys of a real config.json that its class does not read (the page lists them as ignored, with the reason).
UNREAD = {"qwen3-next-80b": {"full_attention_interval"},  # layer_types carries the same pattern
          "qwen3.5-27b": {"full_attention_interval"},
          "qwen3.5-397b-a17b": {"full_attention_interval"},
          "qwen3-omni-30b-a3b": {"thinker_config"}}  # its text config is read from inside thinker_config


@pytest.mark.parametrize("key", list(pc.PRESETS))
def test_preset_reads_through_its_config_class(key):
    reading, rows = pasted(key)
    text = hf_text_config(key)
    assert reading.class_name == type(text).__name__
    assert len(rows) == len(getattr(text, "layer_types", None) or range(text.num_hidden_layers))
    unread = {name for name, why in reading.ignored if why in ("not_class_field", "not_generic_field")}
    assert unread == UNREAD.get(key, set()), reading.ignored


@pytest.mark.parametrize("key", ROTATING)
def test_each_layers_frequencies_equal_the_models_rotary_module(key):
    _, rows = pasted(key)
    rotary = rotary_module(hf_text_config(key))
    assert rotary is not None
    compared, pending = 0, set()
    for row in (r for r in rows if r.rotates):
        label = row.rope_label
        expected, expected_factor = hf_inv_freq(rotary, label)
        try:
            inv, factor = layer_inv_freq(row)
        except ValueError as error:  # a rope type rope_inv_freq does not compute yet (another engineer adds it)
            pending.add(str(error))
            continue
        compared += 1
        assert inv.dtype == np.float32 and inv.shape == expected.shape, (row.index, inv.shape, expected.shape)
        if hf_text_config(key).model_type.startswith("ernie4_5_vl"):
            # ERNIE's rotary module stores the same frequencies reordered between its axes (height and width
            # alternate over the fast pairs, time takes the slow ones; the multimodal pages show that layout).
            inv, expected = np.sort(inv), np.sort(expected)
        np.testing.assert_array_equal(inv, expected)  # bit-identical: the same float32 arithmetic
        assert factor == pytest.approx(expected_factor, rel=1e-12)
    if pending:
        pytest.skip(f"{compared} layers compared; not computed yet: {'; '.join(sorted(pending))}")


# Which layers call apply_rotary_pos_emb, as each modeling file decides it (the attribute it reads).
def hf_rotates(text, i):
    kind = text.model_type
    if kind in ("llama4_text", "smollm3"):
        return bool(text.no_rope_layers[i])  # self.use_rope = config.no_rope_layers[layer_idx]
    if kind == "cohere2":
        return text.layer_types[i] == "sliding_attention"  # rotates only when self.sliding_window is set
    if kind == "exaone4":
        return text.sliding_window is None or text.layer_types[i] == "sliding_attention"
    if kind in ("kimi_linear", "nemotron_h"):
        return False  # their attention never calls apply_rotary_pos_emb
    if kind == "granitemoehybrid":
        return text.position_embedding_type == "rope"
    params = text.rope_parameters
    labels = getattr(text, "_rope_type_labels", None) or getattr(text, "layer_types", None) or ()
    if any(k in labels for k in params):
        label = text.layer_types[i] if kind != "deepseek_v4" else (
            "main" if text.layer_types[i] == "sliding_attention" else "compress")
        return params.get(label) is not None
    return True


ATTENTION = {"full_attention", "sliding_attention", "chunked_attention", "attention", "hybrid"}


@pytest.mark.parametrize("key", list(pc.PRESETS))
def test_rotation_windows_chunks_and_sinks_per_layer(key):
    _, rows = pasted(key)
    text = hf_text_config(key)
    types = getattr(text, "layer_types", None)
    for row in rows:
        kind = types[row.index] if types else None
        if row.is_attention:
            assert row.rotates == hf_rotates(text, row.index), (row.index, row.reasons)
        else:
            assert kind not in ATTENTION and not row.rotates
        if kind == "sliding_attention":
            # ModernBERT's attention passes sliding_window + 1 (its keys reach sliding_window away on each side)
            assert row.window == text.sliding_window + (text.model_type == "modernbert")
        if kind == "chunked_attention":
            assert row.chunk == text.attention_chunk_size
        # self.sinks = nn.Parameter(...) in GptOssAttention and DeepseekV4Attention; MiMo only when is_swa
        assert row.sink == (text.model_type in ("gpt_oss", "deepseek_v4") or (
            text.model_type == "mimo_v2_flash" and kind == "sliding_attention"))
        if text.model_type == "deepseek_v4":  # every V4 layer attends through the window (self.sliding_window)
            assert row.window == text.sliding_window


def test_known_layer_facts():
    _, gemma3 = pasted("gemma3-27b")
    local, glob = gemma3[0], gemma3[5]
    assert (local.mixer, local.window, local.theta, local.rope_type) == ("sliding_window", 1024, 10000.0, "default")
    assert (glob.mixer, glob.theta, glob.rope_type, glob.scaling_factor) == ("full_attention", 1e6, "linear", 8.0)
    assert sum(r.mixer == "full_attention" for r in gemma3) == 10  # 62 layers, every sixth global

    _, gemma4 = pasted("gemma4")
    full = next(r for r in gemma4 if r.layer_type == "full_attention")
    assert (full.head_dim, full.rope_type, full.rotated_pairs) == (512, "proportional", 64)
    assert next(r for r in gemma4 if r.layer_type == "sliding_attention").head_dim == 256

    _, scout = pasted("llama4-scout")
    nope = [r.index for r in scout if not r.rotates]
    assert nope == list(range(3, 48, 4))
    assert all(r.mixer == "chunked_attention" and r.chunk == 8192 for r in scout if r.rotates)
    assert all(r.query_scale.rule == "llama4_temperature" for r in scout if not r.rotates)
    assert all(r.query_scale is None for r in scout if r.rotates)

    _, ministral = pasted("ministral3-8b")
    assert all(r.query_scale == LayerQueryScale("llama4_beta", 16384.0, 0.1) for r in ministral)

    _, exaone = pasted("exaone4-32b")
    assert [r.rotates for r in exaone[:4]] == [True, True, True, False]

    _, qwen_next = pasted("qwen3-next-80b")
    attention = [r for r in qwen_next if r.is_attention]
    assert len(attention) == 12 and all(r.rotated_pairs == 32 for r in attention)  # a quarter of 256 dims
    assert {r.mixer_family for r in qwen_next if not r.is_attention} == {"gated_deltanet"}
    assert {mixer_name(r) for r in qwen_next if not r.is_attention} == {"Gated DeltaNet (linear attention)"}

    _, kimi = pasted("kimi-linear-48b")
    assert [r.index + 1 for r in kimi if r.is_attention] == [4, 8, 12, 16, 20, 24, 27]
    assert not any(r.rotates for r in kimi) and all(r.latent for r in kimi if r.is_attention)

    _, lfm2 = pasted("lfm2-1.2b")
    assert [r.index for r in lfm2 if r.rotates] == [2, 5, 8, 10, 12, 14]

    _, phi = pasted("phi3.5-mini")
    assert phi[0].scaling["original_max_position_embeddings"] == 4096

    _, mistral = pasted("mistral-small4")
    assert mistral[0].rotated_pairs == 32 and mistral[0].latent


def test_query_scale_equals_the_model_code():
    from transformers.models.ministral3.modeling_ministral3 import get_llama_4_attn_scale

    positions = np.array([0, 1, 8190, 8191, 8192, 16383, 16384, 100000, 1_000_000])
    rule = {"rule": "llama4_beta", "beta": 0.1, "original": 16384.0}
    expected = get_llama_4_attn_scale(torch.tensor(positions)[None], 0.1, 16384)[0, 0, :, 0].numpy()
    np.testing.assert_array_equal(query_scale(rule, positions), expected)
    # Llama 4's NoPE layers, written as Llama4TextAttention.forward computes attn_scales
    t = torch.tensor(positions)
    expected = (torch.log1p(torch.floor((t.float() + 1.0) / 8192)) * 0.1 + 1.0).numpy()
    temperature = {"rule": "llama4_temperature", "floor_scale": 8192.0, "attn_scale": 0.1}
    np.testing.assert_array_equal(query_scale(temperature, positions), expected)
    assert query_scale(temperature, [8190])[0] == 1.0 and query_scale(temperature, [8191])[0] > 1.0


# ------------------------------------------------------------------ which layers rotate, measured on the model
TINY = dict(hidden_size=64, num_attention_heads=4, num_key_value_heads=2, head_dim=16, intermediate_size=64,
            vocab_size=128, num_hidden_layers=4, pad_token_id=0, bos_token_id=None, eos_token_id=None)
PROBED = ["llama4-scout", "smollm3-3b", "command-r7b", "exaone4-32b", "gpt-oss-20b", "olmo3-7b", "gemma3-27b",
          "mimo-v2-flash", "qwen3-next-80b", "lfm2-1.2b", "glm-4.5", "qwen3-8b", "hunyuan-7b"]


def tiny_config(key):
    """The preset shrunk to four small layers, keeping every position setting (types, NoPE flags, RoPE dicts)."""
    config = pc.preset_config(key)
    config = {**config.get("text_config", config)}
    for name in ("layer_types", "no_rope_layers"):
        if isinstance(config.get(name), list):
            config[name] = config[name][:4]
    config.update(TINY)
    for name in ("sliding_window", "attention_chunk_size"):
        if config.get(name):
            config[name] = 8
    return config


def model_rotates(config):
    """For each layer, whether its attention output changes when the rotary angles change (None: no attention).

    The layer is run twice on the same input with position_embeddings from the model's own rotary module, once
    for positions all 0 (no rotation) and once for spread-out positions: a layer that never applies them gives
    the same output.
    """
    from transformers import AutoModelForCausalLM

    model_type = config.pop("model_type")
    hf = AutoConfig.for_model(model_type, **config)
    hf._attn_implementation = "eager"
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(hf).eval()
    rotary, hidden = model.model.rotary_emb, torch.randn(1, 6, 64)

    def embeddings(positions, layer_type):
        try:
            return rotary(hidden, positions, layer_type=layer_type)
        except TypeError:  # one rotary setting for every layer
            return rotary(hidden, positions)

    result = []
    for i, layer in enumerate(model.model.layers):
        attention = getattr(layer, "self_attn", None)
        if attention is None:
            result.append(None)
            continue
        layer_type = hf.layer_types[i] if getattr(hf, "layer_types", None) else None
        with torch.no_grad():
            still = attention(hidden_states=hidden, attention_mask=None,
                              position_embeddings=embeddings(torch.zeros(1, 6, dtype=torch.long), layer_type))[0]
            turned = attention(hidden_states=hidden, attention_mask=None,
                               position_embeddings=embeddings(torch.arange(6)[None] * 37, layer_type))[0]
        result.append(not torch.allclose(still, turned))
    return result


@pytest.mark.parametrize("key", PROBED)
def test_which_layers_rotate_as_measured_on_the_models_attention(key):
    config = tiny_config(key)
    _, rows = pc.read_layers(json.loads(json.dumps(config)))
    measured = model_rotates(config)
    assert [r.rotates if r.is_attention else None for r in rows] == measured
