"""RoPE settings of well-known models, kept as data, and reading a pasted or uploaded config.json.

Each preset holds the RoPE-relevant keys of a public config.json with their values unchanged and
names the file they came from. Values were read from the Hugging Face model repositories' config.json
(and, for Qwen2.5's YaRN block, from its model card; see ``source``).
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass

from .scaling import read_rope_config

__all__ = [
    "MAX_CONFIG_BYTES",
    "PHI35_LONG_FACTOR",
    "PHI35_SHORT_FACTOR",
    "PRESETS",
    "Preset",
    "describe_rope_config",
    "parse_config_json",
    "preset_config",
]

MAX_CONFIG_BYTES = 1_000_000  # a config.json is a few KB; refuse anything larger before parsing


@dataclass(frozen=True)
class Preset:
    name: str
    model_id: str  # Hugging Face repository
    source: str  # the file (and section) the values come from
    config: dict  # the RoPE-relevant keys, values as published
    note: str = ""


# microsoft/Phi-3.5-mini-instruct, config.json, rope_scaling (48 pairs: head_dim 96). Checked against three
# independent public copies of that file; the float32-looking digits are as published.
PHI35_LONG_FACTOR = (
    1.0800000429153442, 1.1100000143051147, 1.1399999856948853, 1.340000033378601, 1.5899999141693115,
    1.600000023841858, 1.6200000047683716, 2.620000123977661, 3.2300000190734863, 3.2300000190734863,
    4.789999961853027, 7.400000095367432, 7.700000286102295, 9.09000015258789, 12.199999809265137,
    17.670000076293945, 24.46000099182129, 28.57000160217285, 30.420001983642578, 30.840002059936523,
    32.590003967285156, 32.93000411987305, 42.320003509521484, 44.96000289916992, 50.340003967285156,
    50.45000457763672, 57.55000305175781, 57.93000411987305, 58.21000289916992, 60.1400032043457,
    62.61000442504883, 62.62000274658203, 62.71000289916992, 63.1400032043457, 63.1400032043457,
    63.77000427246094, 63.93000411987305, 63.96000289916992, 63.970001220703125, 64.02999877929688,
    64.06999969482422, 64.08000183105469, 64.12000274658203, 64.41000366210938, 64.4800033569336,
    64.51000213623047, 64.52999877929688, 64.83999633789062,
)
PHI35_SHORT_FACTOR = (
    1.0, 1.0199999809265137, 1.0299999713897705, 1.0299999713897705, 1.0499999523162842, 1.0499999523162842,
    1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0699999332427979, 1.0999999046325684,
    1.1099998950958252, 1.1599998474121094, 1.1599998474121094, 1.1699998378753662, 1.2899998426437378,
    1.339999794960022, 1.679999828338623, 1.7899998426437378, 1.8199998140335083, 1.8499997854232788,
    1.8799997568130493, 1.9099997282028198, 1.9399996995925903, 1.9899996519088745, 2.0199997425079346,
    2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
    2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0799996852874756,
    2.0899996757507324, 2.189999580383301, 2.2199995517730713, 2.5899994373321533, 2.729999542236328,
    2.749999523162842, 2.8399994373321533,
)

PRESETS: dict[str, Preset] = {
    "llama2-7b": Preset(
        "Llama 2 7B", "meta-llama/Llama-2-7b-hf", "config.json",
        {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096,
         "rope_theta": 10000.0, "rope_scaling": None},
        "Plain RoPE, trained at 4,096 tokens. (The first uploads of the file had no rope_theta key; "
        "transformers' default is the same 10,000.)"),
    "llama3.1-8b": Preset(
        "Llama 3.1 8B", "meta-llama/Llama-3.1-8B", "config.json",
        {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128,
         "max_position_embeddings": 131072, "rope_theta": 500000.0,
         "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 8192, "rope_type": "llama3"}},
        "Llama 3's 8K model extended to 128K with the llama3 rule: pairs whose wavelength is below "
        "8192/4 keep their frequency, above 8192/1 are divided by 8, smoothly in between."),
    "mistral-7b": Preset(
        "Mistral 7B v0.1", "mistralai/Mistral-7B-v0.1", "config.json",
        {"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32,
         "max_position_embeddings": 32768, "rope_theta": 10000.0, "sliding_window": 4096},
        "No RoPE scaling. Attention is limited to a 4,096-token sliding window, so relative distances "
        "above 4,096 never occur inside one layer even though max_position_embeddings is 32,768."),
    "qwen2.5-7b-yarn": Preset(
        "Qwen2.5 7B Instruct + YaRN x4", "Qwen/Qwen2.5-7B-Instruct",
        "config.json, plus the rope_scaling block its model card ('Processing Long Texts') tells you to add",
        {"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28, "max_position_embeddings": 32768,
         "rope_theta": 1000000.0,
         "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}},
        "The released config.json has no rope_scaling; the model card gives this block for inputs "
        "beyond 32,768 tokens (up to 131,072). max_position_embeddings stays 32,768, so L' = 4 x L."),
    "gpt-neox-20b": Preset(
        "GPT-NeoX 20B (partial rotary)", "EleutherAI/gpt-neox-20b", "config.json",
        {"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64, "rotary_pct": 0.25,
         "rotary_emb_base": 10000, "max_position_embeddings": 2048},
        "Only a quarter of each 96-dimensional head is rotated (24 dimensions, 12 pairs); the other 72 "
        "carry no position. Pythia uses the same rotary_pct of 0.25."),
    "phi3.5-mini": Preset(
        "Phi-3.5 mini (LongRoPE)", "microsoft/Phi-3.5-mini-instruct", "config.json",
        {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072,
         "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
         "rope_scaling": {"long_factor": list(PHI35_LONG_FACTOR), "short_factor": list(PHI35_SHORT_FACTOR),
                          "type": "longrope"}},
        "LongRoPE: one searched factor per pair, a short list for inputs up to 4,096 tokens and a long list "
        "beyond. The long factors reach about 65, more than the 32 x extension itself."),
    "deepseek-v3": Preset(
        "DeepSeek-V3 (YaRN with mscale)", "deepseek-ai/DeepSeek-V3", "config.json",
        {"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "qk_rope_head_dim": 64,
         "qk_nope_head_dim": 128, "max_position_embeddings": 163840, "rope_theta": 10000,
         "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                          "original_max_position_embeddings": 4096, "type": "yarn"}},
        "Only the 64-dimensional qk_rope_head_dim part of each head is rotated. mscale = mscale_all_dim makes "
        "the rotary attention factor exactly 1; the YaRN temperature is applied instead to the softmax scale, "
        "as (0.1 ln 40 + 1)^2. DeepSeek-V2 has the same rope_scaling block."),
}


def preset_config(key) -> dict:
    """A fresh copy of a preset's config dict (callers may modify it)."""
    if key not in PRESETS:
        raise ValueError(f"Unknown preset {key!r}; choose one of {', '.join(PRESETS)}.")
    return copy.deepcopy(PRESETS[key].config)


def parse_config_json(data, max_bytes=MAX_CONFIG_BYTES) -> dict:
    """Parse the text (or bytes) of a config.json, with one clear sentence for each way it can fail.

    The size is checked before anything is decoded or parsed.
    """
    if isinstance(data, str):
        size = len(data.encode("utf-8", errors="replace"))
    elif isinstance(data, (bytes, bytearray)):
        size = len(data)
    else:
        raise ValueError(f"A config must be given as text, but got {type(data).__name__}.")
    if size > max_bytes:
        raise ValueError(f"This file is {size:,} bytes; a config.json is a few kilobytes, and the limit here is "
                         f"{max_bytes:,} bytes. Did you pick the weights or the tokenizer instead?")
    if isinstance(data, (bytes, bytearray)):
        try:
            data = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise ValueError(f"The file is not UTF-8 text (byte {error.start} cannot be decoded); "
                             "a config.json is plain JSON text.") from None
    if not data.strip():
        raise ValueError("The config is empty: paste the contents of a config.json or upload the file.")
    try:
        config = json.loads(data, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        raise ValueError(f"This is not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}. "
                         "(Python-style None/True/False or a trailing comma are common causes.)") from None
    except RecursionError:
        raise ValueError("The JSON is nested too deeply to be a model config.") from None
    if not isinstance(config, dict):
        raise ValueError(f"A config.json holds one JSON object {{...}}, but this is a JSON {_json_kind(config)}.")
    return config


def _reject_constant(name):
    raise ValueError(f"The JSON contains {name}, which is not a valid JSON number; use a finite value.")


def _json_kind(value) -> str:
    return {list: "array", str: "string", bool: "boolean", type(None): "null"}.get(type(value), "number")


def describe_rope_config(config, layer_type=None) -> list[tuple[str, str, str]]:
    """What ``read_rope_config`` takes from a config, as (setting, value, where it came from) rows."""
    read = read_rope_config(config, layer_type)
    if config.get("qk_rope_head_dim") is not None:
        head_from = "qk_rope_head_dim (DeepSeek: only this part of each head is rotated)"
    elif config.get("head_dim") is not None:
        head_from = "head_dim"
    else:
        head_from = f"hidden_size / num_attention_heads = {config.get('hidden_size')} / " \
                    f"{config.get('num_attention_heads')}"
    params = config.get("rope_scaling") or config.get("rope_parameters") or {}
    if read.layer_type is not None:
        params = params[read.layer_type]
    if "rope_theta" in params:
        base_from = "rope_parameters['rope_theta']" if read.layer_type is None else \
            f"rope_parameters['{read.layer_type}']['rope_theta']"
    elif "rope_theta" in config:
        base_from = "rope_theta"
    elif "rotary_emb_base" in config:
        base_from = "rotary_emb_base (GPT-NeoX's name)"
    else:
        base_from = "not in the config: transformers' default 10,000"
    if "partial_rotary_factor" in params or "partial_rotary_factor" in config:
        partial_from = "partial_rotary_factor"
    elif "rotary_pct" in config:
        partial_from = "rotary_pct (GPT-NeoX's name)"
    elif config.get("model_type") == "gpt_neox":
        partial_from = "not in the config: GPTNeoXConfig's default 0.25"
    else:
        partial_from = "not in the config: all dimensions rotate"
    rows = [
        ("head_dim", f"{read.head_dim}", head_from),
        ("base (rope_theta)", f"{read.base:,.6g}", base_from),
        ("partial rotary", f"{read.partial_rotary_factor:g} -> {read.rotary_dim} of {read.head_dim} dimensions "
                           f"rotate ({read.rotary_dim // 2} pairs)", partial_from),
        ("rope_type", read.rope_type, "rope_type / type" if params else "no rope_scaling: default"),
        ("max_position_embeddings", "-" if read.max_position_embeddings is None
         else f"{read.max_position_embeddings:,}", "max_position_embeddings"),
    ]
    if read.layer_type is not None:
        rows.append(("layer type", read.layer_type, "nested rope_parameters (one setting per kind of layer)"))
    for key, value in read.scaling.items():
        if key in ("rope_type", "type"):
            continue
        if isinstance(value, (list, tuple)):
            shown = f"{len(value)} values, {min(value):.4g} to {max(value):.4g}" if value else "empty list"
        else:
            shown = repr(value)
        origin = "top-level key (wins over rope_scaling, as in transformers)" if (
            key == "original_max_position_embeddings" and config.get(key) is not None
            and read.rope_type in ("llama3", "yarn", "longrope")) else "rope_scaling"
        rows.append((key, shown, origin))
    return rows
