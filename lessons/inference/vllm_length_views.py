"""vLLM's context length in words, for the lesson "What the engine reads" (lessons/inference/engine_metadata.py):
each of ``pc.inference.VllmContext``'s codes said as a sentence with the numbers the core computed."""

from __future__ import annotations

import json

import streamlit as st

import posenc_core as pc
from lessons.inference import engine_metadata_views as views
from lessons.inference import engine_words_views as words
from posenc_core.inference import (
    ALLOW_LONG_ENV,
    AUTO_FIT,
    DEFAULT_LENGTH,
    MIN_TOKEN_BYTES,
    ROPE_LENGTH_RULES,
    UNSCALED_MODEL_TYPES,
    EngineTable,
    VllmContext,
    gguf_loader_targets,
    vllm_context,
    vllm_flags,
)

# the configs the vLLM tab reads: the GGUF example's own config.json, or a preset (pc.PRESETS key)
MODELS = ["example", "phi3.5-mini", "gemma3-27b", "llama3.1-8b", "deepseek-v3"]


def model_label(key: str) -> str:
    return "the example's config.json" if key == "example" else pc.PRESETS[key].name


def config_for(model: str, ex: str) -> dict:
    return json.loads(views.example_header(ex)[1]) if model == "example" else pc.preset_config(model)


@st.cache_data(max_entries=64, show_spinner=False)
def context_for(model: str, ex: str, vllm_text: str) -> VllmContext:
    return vllm_context(config_for(model, ex), vllm_flags(vllm_text))


def _n(value) -> str:
    return views.shown(int(value) if isinstance(value, float) and value.is_integer() else value)


def _too_long(length, asked: bool) -> str:
    need = float(length) * MIN_TOKEN_BYTES
    return (f"vLLM stops at start-up: one request of {_n(length)} positions needs at least {need:.2g} bytes of KV "
            f"cache ({MIN_TOKEN_BYTES} bytes a token, the smallest cache a token can have), which no GPU holds; "
            + ("--max-model-len" if asked else "rope_scaling['factor'] or the config's length")
            + " asks for more than any model serves.")


# pc.inference.REFUSALS: why vLLM stops, as a sentence
REFUSAL_WORDS = {
    "above_derived": lambda c: (f"vLLM stops at start-up: --max-model-len {c.asked:,} is above the {_n(c.derived)} "
                                f"positions it derives from the config ({c.key or f'its {DEFAULT_LENGTH:,} default'}"
                                + (" and its RoPE scaling" if c.rope_rule in ("yarn", "factor") else "")
                                + (f", model_max_length {c.model_max_length:,}" if c.model_max_length else "")
                                + f"). {ALLOW_LONG_ENV}=1 before the command lets it through, with a warning."),
    "no_config_class": lambda c: (f"transformers has no config class for model_type {c.model_type!r}; vLLM "
                                  "loads such a config only with its own class or --trust-remote-code, so its "
                                  "length is not computed here."),
    "legacy_rope_type": lambda c: ("vLLM stops at start-up: the RoPE dict's legacy type and rope_type disagree "
                                   "(or mrope has no mrope_section)."),
    "rope_patch": lambda c: "vLLM stops at start-up: transformers refuses the RoPE settings as vLLM patches them.",
    "text_config_ambiguous": lambda c: "vLLM stops at start-up: the config holds more than one text config.",
    "text_config_heads": lambda c: ("vLLM stops at start-up: the text config it finds has no num_attention_heads "
                                    "(a text_config override on a config without one becomes a plain dict)."),
    "per_layer_attribute": lambda c: ("vLLM stops at start-up: it reads a field globally that this config class "
                                      "keeps per layer."),
    "layers_disagree": lambda c: "vLLM stops at start-up: the layers of this config derive different lengths.",
    "rope_entry_null": lambda c: "vLLM stops at start-up: a rope_parameters entry is null where it reads rope_type.",
    "rope_type_missing": lambda c: ("vLLM stops at start-up (KeyError 'rope_type'): an --hf-overrides "
                                    "rope_parameters dict is set as given, after the RoPE patch, so it needs "
                                    "rope_type."),
    "original_missing": lambda c: ("vLLM stops at start-up (KeyError 'original_max_position_embeddings'): a yarn "
                                   "entry needs it, and an --hf-overrides dict is set as given."),
    "original_null": lambda c: ("vLLM stops at start-up: a LongRoPE model is served at its "
                                "original_max_position_embeddings, and this config's is null."),
    "length_overflow": lambda c: (f"vLLM stops at start-up: the length it derives ({c.key or 'its default'} times "
                                  f"the RoPE factor {c.factor:g}) is infinite, and int() of it raises "
                                  "OverflowError. rope_scaling['factor'] is no factor a model can use."),
    "kv_cache_cannot_hold": lambda c: _too_long(c.derived if c.asked is None else c.asked, c.asked is not None),
}

# VllmContext.rope_rule: what RoPE did to the length
ROPE_WORDS = {
    "none": lambda c: "no RoPE parameters, so nothing scales it",
    "model_type": lambda c: (f"not scaled: vLLM skips the factor for every model_type containing "
                             f"{' or '.join(UNSCALED_MODEL_TYPES)} ({c.model_type}), whose length is already "
                             "the scaled one"),
    "yarn": lambda c: f"yarn restarts from original_max_position_embeddings {c.yarn_original:,}, times {c.factor:g}",
    "factor": lambda c: f"times the factor {c.factor:g} ({', '.join(c.rope_types)})",
    "unchanged": lambda c: _kept(c),
}


def _kept(c: VllmContext) -> str:
    types = list(dict.fromkeys(c.rope_types))
    unscaled = [t for t in types if ROPE_LENGTH_RULES.get(t) is ROPE_LENGTH_RULES["llama3"]]
    parts = [f"vLLM does not scale {', '.join(unscaled)}"] if unscaled else []
    rest = [t for t in types if t not in unscaled]
    parts += [f"{', '.join(rest)} brings a factor of 1"] if rest else []
    return "kept: " + "; ".join(parts or ["no RoPE entry"])

# VllmContext.served_rule: why it runs at that length
SERVED_WORDS = {
    "default": lambda c: ("no --max-model-len: LongRoPE models start at their original_max_position_embeddings"
                          if c.default_rule == "longrope_original" else "no --max-model-len: the derived length"),
    "asked": lambda c: "--max-model-len, within the derived length",
    "unchecked": lambda c: "--max-model-len, taken unchecked: the config names no length",
    "model_max_length": lambda c: "--max-model-len, above the derived length but within model_max_length",
    "allow_long": lambda c: f"--max-model-len, above the derived length: {ALLOW_LONG_ENV} lets it through",
    "auto_fit": lambda c: ("--max-model-len auto: it starts from the length it serves without the flag and "
                           "lowers it at start-up to what the GPU's free KV-cache memory holds"),
    "auto_fit_unbounded": lambda c: ("--max-model-len auto, and the config names no length: vLLM fits the length to "
                                     "the GPU's free KV-cache memory at start-up, with no bound from the config"),
}


def sentence(c: VllmContext) -> str:
    """What vLLM does with this model and command line, in one or two sentences."""
    if c.refusal:
        return REFUSAL_WORDS[c.refusal](c)
    if c.served is None:  # auto, with nothing in the config to bound it
        return f"vLLM serves as many positions as memory allows ({SERVED_WORDS[c.served_rule](c)})."
    most = "at most " if c.served_rule == "auto_fit" else ""
    said = f"vLLM serves **{most}{_n(c.served)}** positions ({SERVED_WORDS[c.served_rule](c)})"
    if c.served_rule != "unchecked":
        said += f"; it derives {_n(c.derived)} from the config"
    if c.default is not None and c.default != c.served:
        said += f", and serves {_n(c.default)} without --max-model-len"
    return said + "." + (CLASS_NOTE if c.config_class == "vllm" else "")


CLASS_NOTE = (" vLLM builds this model type with its own config class; here the config is read through "
              "transformers' class, which takes the same values from the file but may default a missing one "
              "differently.")


def steps(c: VllmContext) -> None:
    """The derivation, step by step, each with the number it gives (a list: it wraps on a phone)."""
    if c.served_rule in ("unchecked", "auto_fit_unbounded") or (c.refusal and c.derived is None):
        return
    rows = [("Length key", f"`{c.key}` = {_n(c.key_length)}" if c.key else f"none set: {DEFAULT_LENGTH:,}"),
            ("RoPE", ROPE_WORDS[c.rope_rule](c)), ("Derived length", _n(c.derived)),
            ("Without --max-model-len", "stops" if c.default is None else _n(c.default)),
            ("--max-model-len", "not given" if c.asked is None else "auto" if c.asked == AUTO_FIT
             else f"{c.asked:,}"),
            ("vLLM runs with", "stops" if c.served is None else
             f"at most {_n(c.served)}, fitted to memory" if c.served_rule == "auto_fit" else _n(c.served))]
    st.markdown("\n".join(f"- **{step}**: {value}" for step, value in rows))


def disagreements(table: EngineTable) -> dict[str, list[str]]:
    """The table's sentences against config.json by source code, vLLM's refusal first where it stops."""
    said = words.disagreement_sentences(table)
    if table.vllm.refusal:
        said["vllm"] = [REFUSAL_WORDS[table.vllm.refusal](table.vllm)] + said["vllm"]
    return said


def both(items: list[str]) -> str:
    """``a``, ``b`` and ``c``."""
    quoted = [f"`{item}`" for item in items]
    return " and ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted)


def loader_keys() -> list[str]:
    """The position keys transformers' GGUF loader puts into a config for at least one architecture."""
    keys = [t.gguf_key for t in gguf_loader_targets() if t.config_key is not None
            and (t.gguf_key == "context_length" or t.gguf_key.startswith("rope."))]
    return list(dict.fromkeys(keys))


def loader_sentence(key: str) -> str:
    """Which architectures' mapping gives ``key`` a config field, and which field."""
    found = [t for t in gguf_loader_targets() if t.gguf_key == key and t.config_key is not None]
    return " and ".join(f"{', '.join(t.architectures)} (as {t.config_key})" for t in found)
