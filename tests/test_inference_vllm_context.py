"""vLLM's context length (pc.inference.vllm_context) against a transcription of vLLM's own start-up code, written here.

The transcription follows vLLM's source step by step over the transformers config object (``HFConfigParser.parse``,
``get_config``, ``ModelConfig.__post_init__``'s overrides, ``get_hf_text_config``,
``derive_max_model_len_and_key``, ``_get_and_verify_max_len``; the commits are in the core module's docstring),
and lets Python fail where vLLM's code fails (a KeyError, a TypeError, vLLM's own ValueError). The sweep runs it
and the core over every model type transformers knows, with the config's own RoPE and with each scaling type
injected, with and without a --max-model-len.
"""

import copy
import dataclasses
import functools
import json
import logging
import math

import pytest

import posenc_core as pc
from posenc_core.inference import VllmContext, VllmFlags, vllm_context, vllm_flags

transformers = pytest.importorskip("transformers")
from huggingface_hub.errors import StrictDataclassError  # noqa: E402
from transformers import AutoConfig, PretrainedConfig  # noqa: E402
from transformers.configuration_utils import ALLOWED_LAYER_TYPES  # noqa: E402
from transformers.models.auto.configuration_auto import CONFIG_MAPPING  # noqa: E402

# ---------------------------------------------------------------- vLLM's start-up, transcribed

_KEYS = ["max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
         "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len"]


def _getattr_iter(obj, names):
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    return None


def _is_nested(rope):
    if not rope:
        return False
    return set(rope.keys()).issubset(ALLOWED_LAYER_TYPES)


def _patch_one_legacy(rp):
    if "rope_type" in rp and "type" in rp:
        modern, legacy = rp["rope_type"], rp["type"]
        if (legacy == "su" and modern == "longrope") or (legacy == "mrope" and modern == "default"):
            pass
        elif modern != legacy:
            raise ValueError("conflicting rope_type and type")
    if "rope_type" not in rp and "type" in rp:
        rp["rope_type"] = rp["type"]
    if "rope_type" not in rp:
        return
    if rp["rope_type"] == "su":
        rp["rope_type"] = "longrope"
    elif rp["rope_type"] == "mrope":
        if "mrope_section" not in rp:
            raise ValueError("mrope without mrope_section")
        rp["rope_type"] = "default"


def _patch_rope_parameters(config):
    rope_theta = _getattr_iter(config, ["rope_theta", "rotary_emb_base"])
    partial = _getattr_iter(config, ["partial_rotary_factor", "rotary_pct", "rotary_emb_fraction"])
    if rope_theta is not None or getattr(config, "rope_parameters", None):
        if rope_theta is not None:
            config.rope_theta = rope_theta
        if partial is not None:
            config.partial_rotary_factor = partial
        rope = getattr(config, "rope_parameters", None)
        if rope is not None:
            if _is_nested(rope):
                for layer in rope.values():
                    _patch_one_legacy(layer)
            else:
                _patch_one_legacy(rope)
        config.standardize_rope_params()
        config.validate_rope()


def _update_nested(target, updates):
    for key, value in updates.items():
        if isinstance(value, dict):
            nested = target.get(key) if isinstance(target, dict) else getattr(target, key, None)
            if nested is not None and (isinstance(nested, dict) or hasattr(nested, "__dict__")):
                _update_nested(nested, value)
                continue
        if isinstance(target, dict):
            target[key] = value
        else:
            setattr(target, key, value)


def _start_config(config, overrides, legacy):
    """HFConfigParser.parse's remap, get_config's update and RoPE patches, then __post_init__'s dict overrides."""
    if hasattr(config, "llm_config") and not hasattr(config, "text_config"):
        config.update({"text_config": config.llm_config})
    flat = dict(legacy)
    dicts = {}
    for key, value in overrides.items():
        (dicts if isinstance(value, dict) else flat)[key] = value
    if flat:
        config.update(copy.deepcopy(flat))
    _patch_rope_parameters(config)
    _patch_rope_parameters(config.get_text_config())
    for name in getattr(config, "sub_configs", None) or {}:
        _patch_rope_parameters(getattr(config, name, None))
    for key, value in dicts.items():
        attr = getattr(config, key, None)
        if attr is not None and isinstance(attr, PretrainedConfig):
            _update_nested(attr, copy.deepcopy(value))
        else:
            setattr(config, key, copy.deepcopy(value))
    text = config.get_text_config()
    if text is not config and not hasattr(text, "num_attention_heads"):
        raise ValueError("text_config without num_attention_heads")
    return text


def _derive(text):
    derived, key = float("inf"), None
    for name in _KEYS:
        value = getattr(text, name, None)
        if value is not None:
            if value < derived:
                key = name
            derived = min(derived, value)
    if tmp := getattr(text, "model_max_length", None):
        key, derived = "model_max_length", tmp
    return derived, key


def _arch_length(text):
    if getattr(text, "is_heterogeneous", False):
        per_layer = [_derive(layer) for layer in text.per_layer_config]
        if any(value != per_layer[0] for value in per_layer):
            raise ValueError("derived_max_model_len_and_key varies across layers")
        return per_layer[0]
    return _derive(text)


def vllm_start(config, overrides=None, legacy=None, max_model_len=None, allow_long=False):
    """What vLLM starts with: ``{"served", "derived", "key"}``, or the exception its code raises."""
    hf_config = _start_config(config, overrides or {}, legacy or {})
    derived, key = _arch_length(hf_config)
    if derived == float("inf"):
        if max_model_len is not None:
            return {"served": max_model_len, "derived": None, "key": None}
        derived = 2048
    rope = getattr(hf_config, "rope_parameters", None)
    if rope and not _is_nested(rope):
        rope = {"": rope}
    if rope is not None and "gemma3" not in hf_config.model_type:
        factor = 1.0
        for rp in rope.values():
            if rp["rope_type"] not in ("su", "longrope", "llama3"):
                factor = rp.get("factor", factor)
                if rp["rope_type"] == "yarn":
                    derived = rp["original_max_position_embeddings"]
        if factor is None:
            factor = 1.0
        derived *= factor
    if max_model_len is None or max_model_len == -1:  # -1 (auto): this default, fitted to memory later
        if rope is not None and any(rp["rope_type"] == "longrope" for rp in rope.values()):
            max_model_len = int(getattr(hf_config, "original_max_position_embeddings", derived))
        else:
            max_model_len = int(derived)
    elif max_model_len > derived:
        model_max_length = getattr(hf_config, "model_max_length", None)
        if (model_max_length is None or max_model_len > model_max_length) and not allow_long:
            raise ValueError("User-specified max_model_len is greater than the derived max_model_len")
    return {"served": int(max_model_len), "derived": derived, "key": key}


# what each of the core's codes is, as vLLM's code fails
RAISED_AS = {"above_derived": ValueError, "legacy_rope_type": ValueError, "rope_patch": (ValueError, TypeError,
             KeyError, StrictDataclassError), "text_config_ambiguous": ValueError, "text_config_heads": ValueError,
             "per_layer_attribute": RuntimeError, "layers_disagree": ValueError, "rope_entry_null": TypeError,
             "rope_type_missing": KeyError, "original_missing": KeyError, "original_null": TypeError}


@functools.lru_cache(maxsize=16)
def _class_built(text: str):
    """AutoConfig as vLLM's parser calls it (from_pretrained builds the class from the file's dict)."""
    config_json = json.loads(text)
    return AutoConfig.for_model(config_json["model_type"], **{k: v for k, v in config_json.items()
                                                            if k != "model_type"})


def reference(config_json: dict, flags: VllmFlags):
    """(outcome, detail): ("start", vllm_start's dict), ("stop", the exception), or ("unread", why)."""
    model_type = config_json.get("model_type")
    if model_type not in CONFIG_MAPPING:
        return "unread", None
    try:
        config = copy.deepcopy(_class_built(json.dumps(config_json, sort_keys=True)))
    except Exception as error:  # noqa: BLE001 (the class refuses the config: the core must say so)
        return "refused", error
    try:
        return "start", vllm_start(config, flags.overrides, flags.legacy, flags.max_model_len, flags.allow_long)
    except (ValueError, TypeError, KeyError, RuntimeError, StrictDataclassError) as error:
        return "stop", error


def check(config_json: dict, text: str = "", **extra) -> VllmContext | None:
    """The core against the transcription for one config.json and one vLLM command line."""
    flags = dataclasses.replace(vllm_flags(text), **extra)
    outcome, detail = reference(config_json, flags)
    if outcome == "refused":
        with pytest.raises(ValueError):
            vllm_context(config_json, flags)
        return None
    if outcome == "stop" and isinstance(detail, StrictDataclassError):  # the class refuses an override's value
        with pytest.raises(ValueError, match="--hf-overrides"):
            vllm_context(config_json, flags)
        return None
    got = vllm_context(config_json, flags)
    if outcome == "unread":
        assert got.refusal == "no_config_class" and got.served is None
    elif outcome == "stop":
        assert got.refusal is not None and got.served is None, (config_json, text, detail, got)
        assert isinstance(detail, RAISED_AS[got.refusal]), (config_json, text, repr(detail), got)
    else:
        assert got.refusal is None, (config_json, text, got)
        if flags.max_model_len == -1 and detail["key"] is None:  # auto, no length key: -1 kept, unbounded
            assert (got.served, got.served_rule) == (None, "auto_fit_unbounded"), (config_json, text, got)
            return got
        assert (got.served, got.key) == (detail["served"], detail["key"]), (config_json, text, detail, got)
        assert (got.served_rule == "auto_fit") == (flags.max_model_len == -1), (config_json, text, got)
        if detail["derived"] is not None:
            assert got.derived == detail["derived"] and type(got.derived) is type(detail["derived"]), \
                (config_json, text, detail, got)
    return got


# ---------------------------------------------------------------- the sweep


def _rotary_pairs(text) -> int:
    head_dim = getattr(text, "head_dim", None) or text.hidden_size // text.num_attention_heads
    partial = (getattr(text, "rope_parameters", None) or {}).get("partial_rotary_factor", 1.0)
    return int(head_dim * partial) // 2


def _variants(default) -> dict[str, tuple[dict, dict]]:
    """RoPE settings to inject into the text config's part of the config.json: name -> (rope_scaling, other keys)."""
    out = {"yarn": ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}, {}),
           "llama3": ({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                       "original_max_position_embeddings": 8192}, {}),
           "linear8": ({"rope_type": "linear", "factor": 8.0}, {}),  # Gemma 3's factor
           "dynamic": ({"rope_type": "dynamic", "factor": 2.0}, {})}
    try:
        pairs = _rotary_pairs(default)
    except (AttributeError, TypeError, ZeroDivisionError, RuntimeError):
        return out
    longrope = {"type": "longrope", "long_factor": [1.5] * pairs, "short_factor": [1.0] * pairs}
    out["longrope"] = (longrope, {})
    # Phi-3.5's shape: 131,072 positions, the original 4,096 at the top level
    out["phi3.5"] = (longrope, {"max_position_embeddings": 131072, "original_max_position_embeddings": 4096})
    return out


def _text_name(config) -> str | None:
    """Where the text config sits in the config.json (None: the config is its own text config)."""
    for name in ("text_encoder", "decoder", "generator", "text_config"):
        if getattr(config, name, None) is not None:
            return name
    return None


def _injected(model_type, name, text, rope, extra=None) -> dict:
    part = {"rope_scaling": rope, **(extra or {})}
    if name is None:
        return {"model_type": model_type, **part}
    return {"model_type": model_type, name: {"model_type": text.model_type, **part}}


def _asked(got) -> list[str]:
    if got is None or got.derived is None or got.derived < 1:  # XLNet's max_position_embeddings is -1
        return ["--max-model-len 1000"]
    top = math.floor(got.derived)
    return [f"--max-model-len {top}", f"--max-model-len {top + 1}"]


@pytest.fixture(scope="module")
def quiet():
    transformers.utils.logging.set_verbosity_error()
    logging.getLogger("transformers").setLevel(logging.ERROR)


def _sweep_type(model_type: str) -> int:
    """Every comparison for one model type; returns how many were made (0: transformers cannot build it)."""
    try:
        default = AutoConfig.for_model(model_type)
        name = _text_name(default)
        text = default.get_text_config()
    except Exception:  # noqa: BLE001 (a class with no defaults, or an ambiguous text config: the core is checked below)
        check({"model_type": model_type})
        return 1
    made = 0
    configs = [{"model_type": model_type}]
    try:
        has_rope = getattr(text, "rope_parameters", None) is not None
    except RuntimeError:
        has_rope = False
    if has_rope:
        configs += [_injected(model_type, name, text, rope, extra) for rope, extra in _variants(text).values()]
    for config in configs:
        got = check(config)
        made += 1
        for text_flags in _asked(got):
            check(config, text_flags)
            made += 1
    return made


def test_every_model_type_transformers_knows(quiet):
    types = list(CONFIG_MAPPING)
    made = {model_type: _sweep_type(model_type) for model_type in types}
    assert len(made) == len(types) >= 800  # 804 in transformers 5.23
    assert sum(made.values()) > 7000


def test_overrides_every_model_type_with_rope(quiet):
    """--hf-overrides: a dict-valued key is set after the RoPE patch (raw), a flat one before it."""
    made = 0
    for model_type in CONFIG_MAPPING:
        try:
            text = AutoConfig.for_model(model_type).get_text_config()
            if getattr(text, "rope_parameters", None) is None:
                continue
        except Exception:  # noqa: BLE001
            continue
        for overrides in ('{"rope_parameters": {"rope_type": "yarn", "factor": 2.0, "rope_theta": 10000.0, '
                          '"original_max_position_embeddings": 2048}}',
                          '{"rope_parameters": {"rope_type": "yarn", "factor": 2.0}}',
                          '{"rope_parameters": {"type": "linear", "factor": 2.0}}',
                          '{"max_position_embeddings": 4096}',
                          '{"text_config": {"max_position_embeddings": 4096}}'):
            for asked in ("", " --max-model-len 4096"):
                check({"model_type": model_type}, f"--hf-overrides '{overrides}'{asked}")
                made += 1
    assert made > 1000


# ---------------------------------------------------------------- the families vLLM treats apart


@pytest.mark.parametrize("factor, code", [(1e308, "length_overflow"), (1e300, "kv_cache_cannot_hold")])
def test_a_factor_no_model_can_use_stops_vllm_and_is_said(factor, code):
    """vLLM's int() of an infinite length raises OverflowError; a finite one past any GPU's cache stops vLLM
    when it sizes the KV cache. Either way the page says why, naming the factor."""
    from lessons.inference import vllm_length_views

    config = {"model_type": "llama", "hidden_size": 512, "num_attention_heads": 8, "max_position_embeddings": 8192,
              "rope_scaling": {"rope_type": "dynamic", "factor": factor}}
    if code == "length_overflow":
        with pytest.raises(OverflowError):
            int(8192 * factor)
    got = vllm_context(config, vllm_flags(""))
    assert (got.served, got.refusal) == (None, code)
    words = vllm_length_views.REFUSAL_WORDS[code](got)
    assert "rope_scaling['factor']" in words and len(words) < 400
    assert vllm_context(config, vllm_flags("--max-model-len 100000")).served == 100000  # not above inf


@pytest.mark.parametrize("text, length", [("32k", 32000), ("32K", 32768), ("25.6k", 25600), ("1m", 1000000),
                                          ("2G", None), ("auto", -1), ("AUTO", -1), ("-1", -1), ("4096", 4096),
                                          (" 1_000 ", 1000), ("1.5K", ValueError), ("1a", ValueError),
                                          ("0", ValueError), ("-2", ValueError)])
def test_max_model_len_reads_as_vllms_argument_parser_reads_it(text, length):
    """vLLM's human_readable_int_or_auto: decimal suffixes take decimals, binary ones do not; -1 / auto fit."""
    if length is ValueError or length is None:  # None: past the cap read here (2G = 2,147,483,648)
        with pytest.raises(ValueError, match="--max-model-len"):
            vllm_flags(f"--max-model-len '{text}'")
        return
    assert vllm_flags(f"--max-model-len '{text}'").max_model_len == length


@pytest.mark.parametrize("key", ["phi3.5-mini", "gemma3-27b", "llama3.1-8b", "deepseek-v3", "qwen2.5-7b-yarn",
                                 "llama2-7b"])
def test_auto_starts_from_the_default_length_as_vllm_does(key):
    got = check(pc.preset_config(key), "--max-model-len auto")
    assert got.served_rule == "auto_fit" and got.served == got.default
    assert got.served == check(pc.preset_config(key)).served


def test_auto_without_a_length_key_has_no_bound_from_the_config():
    got = check({"model_type": "mamba"}, "--max-model-len auto")  # a recurrent model: no length key at all
    assert (got.key, got.served, got.served_rule, got.refusal) == (None, None, "auto_fit_unbounded", None)


def test_gemma3_is_not_scaled_again():
    config = pc.PRESETS["gemma3-27b"].config
    got = check(config)
    assert (got.served, got.derived, got.rope_rule, got.factor) == (131072, 131072, "model_type", 1.0)
    assert "linear" in got.rope_types  # the factor 8 is there, and vLLM leaves it out of the length
    assert check(config, "--max-model-len 131072").served == 131072
    refused = check(config, "--max-model-len 1048576")
    assert (refused.served, refused.refusal) == (None, "above_derived")
    for model_type in ("gemma3", "gemma3_text", "gemma3n", "gemma3n_text"):  # a substring of the model_type
        got = check({"model_type": model_type,
                     **({"text_config": {"rope_scaling": {"rope_type": "linear", "factor": 8.0}}}
                        if model_type in ("gemma3", "gemma3n") else
                        {"rope_scaling": {"rope_type": "linear", "factor": 8.0}})})
        assert got.rope_rule == "model_type" and got.factor == 1.0


def test_phi35_is_served_at_its_original_context():
    config = pc.PRESETS["phi3.5-mini"].config
    got = check(config)
    assert (got.default, got.default_rule, got.served, got.derived) == (4096, "longrope_original", 4096, 131072)
    assert (got.rope_types, got.rope_rule) == (("longrope",), "unchanged")
    assert check(config, "--max-model-len 131072").served == 131072
    assert check(config, "--max-model-len 131073").refusal == "above_derived"
    # LongRoPE on a class without the top-level attribute: the derived length
    llama = {**pc.PRESETS["llama2-7b"].config,
             "rope_scaling": {"type": "longrope", "long_factor": [2.0] * 64, "short_factor": [1.0] * 64}}
    got = check(llama)
    assert (got.default_rule, got.served) == ("derived", 4096)


def test_yarn_starts_from_its_original_context():
    got = check(pc.PRESETS["qwen2.5-7b-yarn"].config)
    assert (got.yarn_original, got.factor, got.derived, got.served) == (32768, 4.0, 131072.0, 131072)
    got = check(pc.PRESETS["deepseek-v3"].config)
    assert (got.yarn_original, got.derived, got.rope_rule) == (4096, 4096 * 40, "yarn")


def test_llama3_keeps_its_length_and_linear_multiplies_it():
    assert check(pc.PRESETS["llama3.1-8b"].config).served == 131072
    linear = {**pc.PRESETS["llama2-7b"].config, "rope_scaling": {"type": "linear", "factor": 2.0}}
    got = check(linear)
    assert (got.rope_rule, got.derived, got.served) == ("factor", 8192.0, 8192)


def test_model_max_length_wins_and_lets_a_longer_flag_through():
    cohere = {"model_type": "cohere", "max_position_embeddings": 8192, "model_max_length": 131072}
    got = check(cohere)
    assert (got.key, got.served) == ("model_max_length", 131072)
    yarn = {**cohere, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}}
    got = check(yarn, "--max-model-len 100000")
    assert (got.derived, got.served, got.served_rule) == (16384.0, 100000, "model_max_length")
    assert check(yarn, "--max-model-len 131073").refusal == "above_derived"


def test_no_length_key_takes_2048_or_the_flag_unchecked():
    config = {"model_type": "bloom"}  # BloomConfig sets none of vLLM's keys
    got = check(config)
    assert (got.key, got.derived, got.served) == (None, 2048, 2048)
    got = check(config, "--max-model-len 1000000")
    assert (got.served, got.served_rule, got.refusal) == (1000000, "unchecked", None)


def test_allow_long_and_the_environment():
    config = pc.PRESETS["llama2-7b"].config
    got = check(config, "VLLM_ALLOW_LONG_MAX_MODEL_LEN=true vllm serve m --max-model-len 8192")
    assert (got.served, got.served_rule) == (8192, "allow_long")
    assert check(config, "VLLM_ALLOW_LONG_MAX_MODEL_LEN=0 vllm serve m --max-model-len 8192").refusal == \
        "above_derived"
    with pytest.raises(ValueError, match="CUDA_VISIBLE_DEVICES is not an environment variable read here"):
        vllm_flags("CUDA_VISIBLE_DEVICES=0 vllm serve m")


def test_override_paths():
    config = pc.PRESETS["llama2-7b"].config
    flat = check(config, "--hf-overrides '{\"max_position_embeddings\": 16384}'")
    assert flat.served == 16384
    raw = check(config, "--hf-overrides '{\"rope_parameters\": {\"type\": \"yarn\", \"factor\": 2.0}}'")
    assert raw.refusal == "rope_type_missing"  # set after the patch: nothing adds rope_type
    nested = check(pc.PRESETS["gemma3-27b"].config, "--hf-overrides '{\"text_config\": "
                   "{\"max_position_embeddings\": 8192}}'")
    assert nested.served == 8192
    top = check(pc.PRESETS["gemma3-27b"].config, "--hf-overrides '{\"max_position_embeddings\": 8192}'")
    assert top.served == 131072  # set on the multimodal config, not on the text config vLLM reads
    with pytest.raises(ValueError, match="--hf-overrides"):
        vllm_context(config, vllm_flags("--hf-overrides '{\"rope_parameters\": 3}'"))


def test_unknown_model_types_are_not_computed():
    got = vllm_context({"model_type": "no_such_model", "max_position_embeddings": 4096}, vllm_flags(""))
    assert (got.refusal, got.config_class, got.served) == ("no_config_class", "none", None)
    assert vllm_context(pc.PRESETS["qwen3-next-80b"].config, vllm_flags("")).config_class == "vllm"
