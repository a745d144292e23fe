"""Every model type transformers knows with a language-model rotary module, read at its config class's defaults.

For each type the app's reading (``read_layers`` / ``layer_inv_freq``, the path a pasted ``{"model_type": ...}``
takes) is compared with the model's own code:

* frequencies: the model's rotary module built from the same config object, per RoPE label (per layer type
  where the module keeps one buffer per type): inverse frequencies and attention factor bit-identical;
* the rule of which layers rotate: the condition around the rotation in the attention's forward must be one
  ``GUARD_RULES`` knows (so a model added to transformers later with a new condition fails here instead of
  being misread), and where that condition decides per layer, the attention modules themselves are built on the
  meta device (no memory, no weights) and run with position embeddings that raise on first use: a layer whose
  forward touches them rotates. Conditions decided outside the attention (a null per-type RoPE entry, no
  rotary module) are covered by the frequency part and the reading's defaults.

The set is found from the source files (a regex, nothing imported) and the modeling modules are imported once.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import logging
import os
import re
import warnings

import numpy as np
import pytest

import posenc_core as pc
from posenc_core.configs import layer_inv_freq
from posenc_core.configs.rotation import GUARD_RULES, NEUTRAL_GUARDS, attention_guards

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
from transformers.models.auto.configuration_auto import (  # noqa: E402
    CONFIG_MAPPING,
    CONFIG_MAPPING_NAMES,
    model_type_to_module_name,
)

logging.getLogger("transformers").setLevel(logging.ERROR)

OTHER_MODALITIES = ("Vision", "Visual", "Audio", "Speech", "Image", "Encoder", "Vit", "Sam", "Video", "Vq", "Dino")
ROOT = os.path.join(os.path.dirname(transformers.__file__), "models")
ROTARY = re.compile(r"^class (\w*RotaryEmbedding)\(", re.M)


def _source(model_type: str) -> str | None:
    name = model_type_to_module_name(model_type)
    path = os.path.join(ROOT, name, f"modeling_{name}.py")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _language_rotary(model_type: str) -> bool:
    """A model whose modeling file has a rotary module for text, read through a config that is not an encoder of
    another modality (images, audio: the vision lessons read those)."""
    source = _source(model_type)
    if source is None:
        return False
    # the config class's name from transformers' table: CONFIG_MAPPING[...] imports the config's module
    if any(word.lower() in CONFIG_MAPPING_NAMES[model_type].lower() for word in OTHER_MODALITIES):
        return False
    return any(not any(w in name for w in OTHER_MODALITIES) for name in ROTARY.findall(source))


SWEEP = sorted(t for t in CONFIG_MAPPING.keys() if _language_rotary(t))


def _module(model_type: str):
    name = model_type_to_module_name(model_type)
    return importlib.import_module(f"transformers.models.{name}.modeling_{name}")


@functools.cache
def reading_of(model_type: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pc.read_layers({"model_type": model_type})


def rotary_of(model_type: str, text):
    module = _module(model_type)
    classes = [c for n, c in vars(module).items() if inspect.isclass(c) and n.endswith("RotaryEmbedding")
               and c.__module__ == module.__name__ and not any(w in n for w in OTHER_MODALITIES)]
    classes.sort(key=lambda c: ("Text" not in c.__name__, c.__name__))
    errors = []
    for cls in classes:
        try:
            return cls(text)
        except Exception as error:  # noqa: BLE001 (try the next candidate class)
            errors.append(f"{cls.__name__}: {type(error).__name__}: {error}")
    # transformers itself cannot build it at these defaults (the module belongs to another sub-config): no reference
    pytest.skip(f"transformers builds no rotary module of {model_type} from its class defaults: {errors}")


def test_the_sweep_covers_the_language_models():
    assert len(SWEEP) >= 200
    assert {"llama", "qwen3", "deepseek_v3", "gemma3_text", "cohere2_moe", "exaone_moe", "glm4_moe", "zamba2",
            "qwen2_vl", "dots3_note", "neomme", "afmoe", "flint", "kolibri1"} <= set(SWEEP)


@pytest.mark.parametrize("model_type", SWEEP)
def test_frequencies_equal_the_models_rotary_module(model_type):
    text = CONFIG_MAPPING[model_type]().get_text_config(decoder=True)
    if getattr(text, "num_hidden_layers", None) is None and not getattr(text, "layer_types", None):
        pytest.skip(f"{type(text).__name__} declares no stack of layers (a codec, perceiver or adapter)")
    reading, rows = reading_of(model_type)  # no crash, no refusal: transformers builds this config
    rotary = rotary_of(model_type, reading.obj)
    for row in (r for r in rows if r.rotates):
        label = row.rope_label
        if label is not None and hasattr(rotary, f"{label}_inv_freq"):
            expected = getattr(rotary, f"{label}_inv_freq").numpy()
            factor = float(getattr(rotary, f"{label}_attention_scaling"))
        else:
            expected, factor = rotary.inv_freq.numpy(), float(rotary.attention_scaling)
        inv, attention_factor = layer_inv_freq(row)
        if model_type.startswith("ernie4_5_vl"):  # ERNIE stores the same frequencies reordered between its axes
            inv, expected = np.sort(inv), np.sort(expected)
        assert inv.dtype == np.float32 and inv.shape == expected.shape, (row.index, inv.shape, expected.shape)
        np.testing.assert_array_equal(inv, expected, err_msg=f"layer {row.index}")
        assert attention_factor == factor, row.index


# Every model type whose modeling file defines a rotary module, modality encoders included (the sweep above keeps
# the language models): where one of those modules builds from the type's config at its class defaults, the model
# rotates, and the reading must not say its code has none.
ANY_ROTARY = sorted(t for t in CONFIG_MAPPING.keys() if ROTARY.search(_source(t) or ""))


def _builds_a_rotary_module(model_type: str) -> str | None:
    module, config = _module(model_type), CONFIG_MAPPING[model_type]()
    configs = {id(c): c for c in (config, config.get_text_config(decoder=True))}.values()
    for name, cls in vars(module).items():
        if inspect.isclass(cls) and name.endswith("RotaryEmbedding") and cls.__module__ == module.__name__:
            for candidate in configs:
                try:
                    cls(candidate)
                except Exception:  # noqa: BLE001, S112 (built from another sub-config: try the next)
                    continue
                return name
    return None


@pytest.mark.parametrize("model_type", ANY_ROTARY)
def test_a_model_whose_rotary_module_builds_is_read_as_rotating(model_type):
    built = _builds_a_rotary_module(model_type)
    if built is None:
        pytest.skip(f"no rotary module of {model_type}'s file builds from its config at the class defaults")
    try:
        _, rows = reading_of(model_type)
    except ValueError as error:  # a tracker or matcher config with no stack of layers to read
        pytest.skip(f"{model_type}: {error}")
    misread = [row.index for row in rows if row.reasons[0].code == "no_rotary_module"]
    assert not misread, f"{model_type} builds {built}, but the reading calls layers {misread} NoPE"


def test_the_rotary_sweep_covers_models_named_for_a_modality():
    """Model types whose every class name carries a modality word (GLM-Image, PE Audio, LASR's encoder)."""
    assert {"glm_image", "glm_image_text", "granite4_vision", "granite4_vision_text", "higgs_audio_v2",
            "kyutai_speech_to_text", "lasr_encoder", "pe_audio_encoder", "pe_video_encoder", "pe_audio_video_encoder",
            "pocket_tts_audio_tokenizer"} <= set(ANY_ROTARY)


@pytest.mark.parametrize("model_type", SWEEP)
def test_the_rotation_condition_of_the_attention_code_is_known(model_type):
    for guard in attention_guards(model_type) or ():
        unknown = [p for p in guard.split(" & ") if p and p not in GUARD_RULES and p not in NEUTRAL_GUARDS]
        assert not unknown, f"{model_type}'s attention rotates only `if {guard}`: add its rule to GUARD_RULES"


# ------------------------------------------------------------------ which layers rotate, by running the attention
class Touched(Exception):
    """Raised the first time an attention reads the position embeddings it was given."""


class Tracer(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        raise Touched


class TracerPair(tuple):
    """(cos, sin) whose tensors raise on use; also answers a dict-style lookup (DeepSeek V4 keys them by role)."""

    def __getattr__(self, name):
        raise Touched

    def __getitem__(self, key):
        return self if isinstance(key, str) else tuple.__getitem__(self, key)


def _base_model(model_type: str, text):
    module = _module(model_type)
    candidates = sorted((c for n, c in vars(module).items() if inspect.isclass(c) and n.endswith("Model")
                         and c.__module__ == module.__name__ and getattr(c, "config_class", None) is type(text)),
                        key=lambda c: len(c.__name__))
    for cls in candidates:
        try:
            with torch.device("meta"):
                model = cls(text)  # meta tensors: shapes only, nothing allocated or initialised
        except Exception as error:  # noqa: BLE001 (reported as the reason of the skip)
            pytest.skip(f"{cls.__name__} does not build at its class defaults: {type(error).__name__}: {error}")
        if isinstance(getattr(model, "layers", None), torch.nn.ModuleList):
            return model.layers
    pytest.skip(f"no base model of {model_type} keeps its layers in a list")


def _touches(attention, width: int) -> bool:
    params = inspect.signature(attention.forward).parameters
    cos = torch.empty(1, 4, 8, device="meta").as_subclass(Tracer)
    kwargs = {"hidden_states": torch.empty(1, 4, width, device="meta"), "position_embeddings": TracerPair((cos, cos)),
              "attention_mask": None}
    kwargs |= {k: None for k, p in params.items() if k not in kwargs and p.default is p.empty
               and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    try:
        with torch.no_grad():
            attention(**kwargs)
    except Touched:
        return True
    except Exception as error:  # noqa: BLE001 (an attention that needs real inputs before it reaches positions)
        return f"{type(error).__name__}: {error}"
    return False  # it returned without reading them


def _decides(model_type: str | None) -> bool:
    return any(p in GUARD_RULES for g in attention_guards(model_type) or () for p in g.split(" & "))


TEXT_SUB_CONFIG = re.compile(r'"text_config":\s*SubConfigSpec\([^)]*model_type="(\w+)"')


def _text_type(model_type: str) -> str | None:
    """The model_type of a multimodal config's language model (its ``text_config`` SubConfigSpec), read from the
    configuration file's text: importing every config module to ask its class took most of a minute."""
    name = model_type_to_module_name(model_type)
    path = os.path.join(ROOT, name, f"configuration_{name}.py")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as handle:
        match = TEXT_SUB_CONFIG.search(handle.read())
    return match.group(1) if match else None


# Multimodal wrappers whose language model (AutoModel.from_config(config.text_config)) decides per layer too:
# EXAONE 4.5 runs EXAONE 4's attention, Aya Vision Cohere2's.
WRAPPED = sorted(t for t in CONFIG_MAPPING.keys() if t not in SWEEP and model_type_to_module_name(t) == t
                 and _text_type(t) not in (None, t)
                 and _decides(_text_type(t)))
DECIDING = sorted([t for t in SWEEP if _decides(t)] + WRAPPED)


def test_the_probe_covers_the_wrapped_language_models():
    assert {"exaone4_5", "aya_vision"} <= set(WRAPPED)


@pytest.mark.parametrize("model_type", DECIDING)
def test_which_layers_rotate_as_the_attention_code_runs(model_type):
    reading, rows = reading_of(model_type)
    text = reading.obj
    text._attn_implementation = "eager"
    layers = _base_model(reading.model_type, text)  # a wrapper's language model is its text_config's model
    assert len(layers) == len(rows)
    compared = 0
    for row, layer in zip(rows, layers, strict=True):
        attention = [m for n, m in layer.named_children() if "position_embeddings" in
                     inspect.signature(m.forward).parameters and ("attn" in n or "attention" in n)]
        if not row.is_attention or not attention:  # e.g. Zamba2's shared block sits outside the layer list
            continue
        touched = _touches(attention[0], text.hidden_size)
        if isinstance(touched, str):
            pytest.skip(f"layer {row.index}'s attention does not run on meta tensors: {touched[:200]}")
        assert touched == row.rotates, (row.index, row.layer_type, row.reasons)
        compared += 1
    if not compared:
        pytest.skip("no attention module found inside the layers")


@pytest.mark.parametrize("model_type", SWEEP)
def test_the_model_features_follow_the_layers_read(model_type):
    """Each type's position features at its class defaults come from its layers: one per feature its layers use,
    counted over the attention layers (no list of model types decides them)."""
    text = CONFIG_MAPPING[model_type]().get_text_config(decoder=True)
    if getattr(text, "num_hidden_layers", None) is None and not getattr(text, "layer_types", None):
        pytest.skip(f"{type(text).__name__} declares no stack of layers (a codec, perceiver or adapter)")
    _, rows = reading_of(model_type)
    features = {f.code: f for f in pc.configs.model_features(rows, {"model_type": model_type})}
    attention = [r for r in rows if r.is_attention]
    partial = [r for r in attention if r.rotates and r.partial_rotary_factor < 1 and r.rope_type != "proportional"]
    assert (features["partial"].layers if "partial" in features else 0) == len(partial)
    still = [r for r in attention if not r.rotates]
    code = "no_rotation" if still and len(still) == len(attention) else "nope_layers"
    assert (features[code].layers if code in features else 0) == len(still)
    windows = [r for r in attention if r.window]
    assert (features["window"].layers if "window" in features else 0) == len(windows)
    assert ("hybrid" in features) == any(not r.is_attention for r in rows)
    assert all(f.of == len(attention) for f in features.values() if f.code != "hybrid")
