"""Position settings of well-known models, kept as data, each naming the config.json it comes from.

``PRESETS`` maps a short stable key (used in URLs) to a ``Preset``. The classic RoPE models are here; the
open models of 2025-26 are in ``todays_presets``; other families register theirs with ``add_presets``.
Each preset holds the keys of a public config.json that the model's config class needs, values unchanged.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ..long_context.extension import PHI35_LONG_FACTOR, PHI35_SHORT_FACTOR
from .todays_presets import todays_presets

__all__ = [
    "PRESETS",
    "Preset",
    "SourceCode",
    "add_presets",
    "preset_config",
]


# Where a preset's values come from (the pages word each code; a preset with its own caveat has its own sentence):
# the model's config.json, the text_config of a multimodal config.json, the config class's defaults (its docstring
# checkpoint), or the config.json plus a block its model card adds.
SourceCode = Literal["config.json", "config.json:text_config", "class_defaults", "config.json+model_card"]


@dataclass(frozen=True)
class Preset:
    """A public model's position settings, kept as data.

    Fields:
        name: the model's name, as the pages list it.
        model_id: its Hugging Face repository.
        source: where the values come from (a ``SourceCode``, or a citation of the file for other families).
        config: the RoPE-relevant keys of its config.json, values as published.
        note: accepted for compatibility and empty for the presets here: what to look at in each preset, and any
            value that could not be checked against the file, is the pages' words, keyed by the preset's key.

    >>> pc.PRESETS['llama2-7b'].model_id
    'meta-llama/Llama-2-7b-hf'
    """

    name: str
    model_id: str
    source: str
    config: dict[str, Any]
    note: str = ""

    @property
    def model_type(self) -> str | None:
        """The config's ``model_type`` (None when it names none)."""
        return self.config.get("model_type")


PRESETS: dict[str, Preset] = {
    "llama2-7b": Preset(
        "Llama 2 7B", "meta-llama/Llama-2-7b-hf", "config.json",
        {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096,
         "rope_theta": 10000.0, "rope_scaling": None}),
    "llama3.1-8b": Preset(
        "Llama 3.1 8B", "meta-llama/Llama-3.1-8B", "config.json",
        {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
         "head_dim": 128, "num_hidden_layers": 32, "max_position_embeddings": 131072, "rope_theta": 500000.0,
         "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 8192, "rope_type": "llama3"}}),
    "llama3.1-70b": Preset(
        "Llama 3.1 70B", "meta-llama/Llama-3.1-70B", "config.json",
        {"model_type": "llama", "hidden_size": 8192, "num_attention_heads": 64, "num_key_value_heads": 8,
         "num_hidden_layers": 80, "max_position_embeddings": 131072, "rope_theta": 500000.0,
         "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 8192, "rope_type": "llama3"}}),
    "llama3.1-405b": Preset(
        "Llama 3.1 405B", "meta-llama/Llama-3.1-405B", "config.json",
        {"model_type": "llama", "hidden_size": 16384, "num_attention_heads": 128, "num_key_value_heads": 8,
         "num_hidden_layers": 126, "max_position_embeddings": 131072, "rope_theta": 500000.0,
         "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 8192, "rope_type": "llama3"}}),
    "mistral-7b": Preset(
        "Mistral 7B v0.1", "mistralai/Mistral-7B-v0.1", "config.json",
        {"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
         "num_hidden_layers": 32, "max_position_embeddings": 32768, "rope_theta": 10000.0, "sliding_window": 4096}),
    "qwen2.5-7b-yarn": Preset(
        "Qwen2.5 7B Instruct + YaRN x4", "Qwen/Qwen2.5-7B-Instruct", "config.json+model_card",  # a model's name
        {"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
         "num_hidden_layers": 28, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
         "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}}),
    "gpt-neox-20b": Preset(
        "GPT-NeoX 20B (partial rotary)", "EleutherAI/gpt-neox-20b", "config.json",  # a model's name
        {"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64, "rotary_pct": 0.25,
         "rotary_emb_base": 10000, "max_position_embeddings": 2048}),
    "phi3.5-mini": Preset(
        "Phi-3.5 mini (LongRoPE)", "microsoft/Phi-3.5-mini-instruct", "config.json",  # a model's name
        {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "num_key_value_heads": 32,
         "num_hidden_layers": 32, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
         "rope_theta": 10000.0, "sliding_window": 262144,
         "rope_scaling": {"long_factor": list(PHI35_LONG_FACTOR), "short_factor": list(PHI35_SHORT_FACTOR),
                          "type": "longrope"}}),
    "deepseek-v3": Preset(
        "DeepSeek-V3 (YaRN with mscale)", "deepseek-ai/DeepSeek-V3", "config.json",  # a model's name
        {"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "num_hidden_layers": 61,
         "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
         "v_head_dim": 128, "max_position_embeddings": 163840, "rope_theta": 10000,
         "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                          "original_max_position_embeddings": 4096, "type": "yarn"}}),
}
PRESETS.update(todays_presets(Preset))


def add_presets(presets: Mapping[str, Preset]) -> None:
    """Register another family's presets (e.g. multimodal ones) so every page and test sees them."""
    for key, preset in presets.items():
        if key in PRESETS:
            raise ValueError(f"A preset called {key!r} already exists.")
        if not isinstance(preset, Preset):
            raise ValueError(f"Preset {key!r} must be a Preset, not {type(preset).__name__}.")
        PRESETS[key] = preset


def preset_config(key: str) -> dict[str, Any]:
    """A fresh copy of a preset's config dict (callers may modify it).

    >>> pc.preset_config('llama2-7b')['rope_theta']
    10000.0
    """
    if key not in PRESETS:
        raise ValueError(f"Unknown preset {key!r}; choose one of {', '.join(PRESETS)}.")
    return copy.deepcopy(PRESETS[key].config)
