"""Bounds on a config tree before anything copies it, builds a class from it, or does arithmetic with it.

A config.json is a few kilobytes, at most five or six levels deep, and every number in it fits a float.
Anything else is refused here, once, with the path of the offending field, so later code (``copy.deepcopy``,
transformers' config classes, ``float(...)``) never meets a value it can only fail on with a traceback.
The walk is iterative: a tree nested thousands of levels deep cannot exhaust Python's stack here.

``Infinity``, ``-Infinity`` and ``NaN`` are accepted as tokens, because transformers writes a config with
``json.dumps`` and Python's JSON writer emits them for non-finite floats; such a value is refused where it
sits in a field that sets positions, and left alone elsewhere (nothing here reads it).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_CONFIG_DEPTH", "MAX_CONFIG_VALUES", "HugeInteger", "check_config_tree", "decode_special_float",
           "parse_json_int"]

MAX_CONFIG_DEPTH = 32  # real configs nest 4-6 levels (text_config -> rope_parameters -> layer type -> lists)
MAX_CONFIG_VALUES = 200_000  # every object, array and scalar counted; real configs hold a few thousand
_MAX_INT_DIGITS = 309  # 10**309 is above the largest float (1.8e308); longer integers cannot be a float

# Keys whose values decide positions: a non-finite number under any of them is refused. Containers such as
# text_config are not listed, so their other fields stay free; rope_parameters and rope_scaling are, so every
# value inside them is covered.
POSITION_FIELDS = frozenset({
    "rope_parameters", "rope_scaling", "rope_theta", "rope_local_base_freq", "rotary_emb_base", "rotary_pct",
    "partial_rotary_factor", "head_dim", "global_head_dim", "hidden_size", "num_attention_heads",
    "num_hidden_layers", "max_position_embeddings", "original_max_position_embeddings", "sliding_window",
    "sliding_window_pattern", "attention_chunk_size", "no_rope_layers", "no_rope_layer_interval", "floor_scale",
    "attn_scale", "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "mrope_section",
    "layer_types", "factor", "beta_fast", "beta_slow", "attention_factor", "mscale", "mscale_all_dim",
    "low_freq_factor", "high_freq_factor", "short_factor", "long_factor", "alpha", "rope_type", "type",
    # the multimodal pages' time and grid settings
    "tokens_per_second", "position_id_per_seconds", "n_window", "spatial_merge_size", "patch_size",
    "temporal_patch_size", "seconds_per_chunk", "image_token_id", "video_token_id", "vision_start_token_id",
})


class HugeInteger:
    """An integer literal too long to be a float, kept as its digit count until the walk can name its field."""

    def __init__(self, text: str):
        self.digits = len(text.lstrip("-"))

    def __repr__(self) -> str:
        return f"<a {self.digits}-digit integer>"


def parse_json_int(text: str):
    """``json.loads``' ``parse_int``: never converts more than 309 digits (Python refuses past 4,300 anyway)."""
    return HugeInteger(text) if len(text.lstrip("-")) > _MAX_INT_DIGITS else int(text)


def field_name(path) -> str:
    """``config['rope_parameters']['factor']``, or ``config['layer_types'][3]``: the field as the user wrote it."""
    return "config" + "".join(f"[{p}]" if isinstance(p, int) else f"[{p!r}]" for p in path)


def dotted(path) -> str:
    """``text_config.rope_parameters.factor`` or ``long_factor[3]``: a field as the "read" tables name it."""
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def check_config_tree(config) -> list[tuple]:
    """Refuse a parsed config that is too deep, too large, or holds a number no float can carry.

    Raises ``ValueError`` naming the field for: nesting past ``MAX_CONFIG_DEPTH``, more than
    ``MAX_CONFIG_VALUES`` values, an integer beyond the float range, and a non-finite number (``Infinity``,
    ``NaN``, or a literal such as ``1e400``) in a field that sets positions.

    Returns:
        the paths of the non-finite numbers it let through (fields that do not set positions).
    """
    stack: list[tuple[Any, tuple, bool]] = [(config, (), False)]  # (value, path, inside a position field)
    count, let_through = 1, []
    while stack:
        value, path, positional = stack.pop()
        if isinstance(value, (Mapping, list, tuple)):
            count += len(value)  # counted before the children are stacked, so the stack stays bounded too
            if count > MAX_CONFIG_VALUES:
                raise ValueError(f"The config holds more than {MAX_CONFIG_VALUES:,} values; a model's config.json "
                                 "holds a few thousand at most.")
        if len(path) > MAX_CONFIG_DEPTH:
            raise ValueError(f"The config is nested more than {MAX_CONFIG_DEPTH} levels deep (at "
                             f"{field_name(path[:4])}...); a model's config.json is nested a few levels.")
        if isinstance(value, Mapping):
            for key, item in value.items():
                stack.append((item, (*path, key), positional or key in POSITION_FIELDS))
        elif isinstance(value, (list, tuple)):
            stack.extend((item, (*path, i), positional) for i, item in enumerate(value))
        elif isinstance(value, HugeInteger) or (isinstance(value, int) and not isinstance(value, bool)
                                                and abs(value) > sys.float_info.max):
            digits = value.digits if isinstance(value, HugeInteger) else int(value.bit_length() * math.log10(2)) + 1
            raise ValueError(f"{field_name(path)} is a whole number of {digits:,} digits; a config's numbers must "
                             f"fit a float (between -{sys.float_info.max:.4g} and {sys.float_info.max:.4g}).")
        elif isinstance(value, float) and not math.isfinite(value):
            if positional:
                raise ValueError(f"{field_name(path)} is "
                                 + ("NaN" if math.isnan(value) else f"{'' if value > 0 else '-'}Infinity (or a "
                                    "number too large for a float)")
                                 + "; this field sets positions and must be a "
                                 f"finite number (between -{sys.float_info.max:.4g} and {sys.float_info.max:.4g}).")
            let_through.append(path)
    return let_through


# transformers 5.x writes a non-finite float as {"__float__": "Infinity"} (PreTrainedConfig._encode_special_floats)
# and reads it back with _decode_special_floats; older versions wrote the bare Infinity token Python's json emits.
_FLOAT_TAGS = {"Infinity": math.inf, "-Infinity": -math.inf, "NaN": math.nan}


def decode_special_float(obj: dict):
    """A ``json.loads`` object hook: transformers' tagged non-finite float becomes the float, as the model reads it."""
    if len(obj) == 1 and isinstance(obj.get("__float__"), str) and obj["__float__"] in _FLOAT_TAGS:
        return _FLOAT_TAGS[obj["__float__"]]
    return obj
