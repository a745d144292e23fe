"""Position settings of well-known models, kept as data, each naming the config.json it comes from.

``PRESETS`` maps a short stable key (used in URLs) to a ``Preset``. The classic RoPE models are here; the
open models of 2025-26 are in ``todays_presets``; other families register theirs with ``add_presets``.
Each preset holds the keys of a public config.json that the model's config class needs, values unchanged.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass

from ..long_context.extension import PHI35_LONG_FACTOR, PHI35_SHORT_FACTOR
from .todays_presets import todays_presets

__all__ = [
    "PRESETS",
    "Preset",
    "add_presets",
    "preset_config",
]


@dataclass(frozen=True)
class Preset:
    name: str
    model_id: str  # Hugging Face repository
    source: str  # the file (and section) the values come from
    config: dict  # the RoPE-relevant keys, values as published
    note: str = ""  # what to look at, and any value that could not be checked against the file

    @property
    def model_type(self) -> str | None:
        return self.config.get("model_type")


PRESETS: dict[str, Preset] = {
    "llama2-7b": Preset(
        "Llama 2 7B", "meta-llama/Llama-2-7b-hf", "config.json",
        {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096,
         "rope_theta": 10000.0, "rope_scaling": None},
        "Plain RoPE, trained at 4,096 tokens. (The first uploads of the file had no rope_theta key; "
        "transformers' default is the same 10,000.)"),
    "llama3.1-8b": Preset(
        "Llama 3.1 8B", "meta-llama/Llama-3.1-8B", "config.json",
        {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
         "head_dim": 128, "num_hidden_layers": 32, "max_position_embeddings": 131072, "rope_theta": 500000.0,
         "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 8192, "rope_type": "llama3"}},
        "Llama 3's 8K model extended to 128K with the llama3 rule: pairs whose wavelength is below "
        "8192/4 keep their frequency, above 8192/1 are divided by 8, smoothly in between."),
    "llama3.1-70b": Preset(
        "Llama 3.1 70B", "meta-llama/Llama-3.1-70B", "config.json",
        {"model_type": "llama", "hidden_size": 8192, "num_attention_heads": 64, "num_key_value_heads": 8,
         "num_hidden_layers": 80, "max_position_embeddings": 131072, "rope_theta": 500000.0,
         "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 8192, "rope_type": "llama3"}},
        "The 8B's RoPE (llama3 rule, x 8 over 8,192) on 80 layers of 64 query heads and 8 KV heads of 128. "
        "(Sizes checked against copies of the file in public code, not the file itself.)"),
    "llama3.1-405b": Preset(
        "Llama 3.1 405B", "meta-llama/Llama-3.1-405B", "config.json",
        {"model_type": "llama", "hidden_size": 16384, "num_attention_heads": 128, "num_key_value_heads": 8,
         "num_hidden_layers": 126, "max_position_embeddings": 131072, "rope_theta": 500000.0,
         "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                          "original_max_position_embeddings": 8192, "rope_type": "llama3"}},
        "The same RoPE on 126 layers of 128 query heads and 8 KV heads of 128. (Sizes checked against copies of "
        "the file in public code, not the file itself.)"),
    "mistral-7b": Preset(
        "Mistral 7B v0.1", "mistralai/Mistral-7B-v0.1", "config.json",
        {"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
         "num_hidden_layers": 32, "max_position_embeddings": 32768, "rope_theta": 10000.0, "sliding_window": 4096},
        "No RoPE scaling. Attention is limited to a 4,096-token sliding window, so relative distances "
        "above 4,096 never occur inside one layer even though max_position_embeddings is 32,768."),
    "qwen2.5-7b-yarn": Preset(
        "Qwen2.5 7B Instruct + YaRN x4", "Qwen/Qwen2.5-7B-Instruct",
        "config.json, plus the rope_scaling block its model card ('Processing Long Texts') tells you to add",
        {"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
         "num_hidden_layers": 28, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
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
        {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "num_key_value_heads": 32,
         "num_hidden_layers": 32, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
         "rope_theta": 10000.0, "sliding_window": 262144,
         "rope_scaling": {"long_factor": list(PHI35_LONG_FACTOR), "short_factor": list(PHI35_SHORT_FACTOR),
                          "type": "longrope"}},
        "LongRoPE: one searched factor per pair, a short list for inputs up to 4,096 tokens and a long list "
        "beyond. The long factors reach about 65, more than the 32 x extension itself. The file's sliding_window "
        "(262,144, longer than the context) makes transformers build sliding-window layers that never drop a "
        "token within 131,072."),
    "deepseek-v3": Preset(
        "DeepSeek-V3 (YaRN with mscale)", "deepseek-ai/DeepSeek-V3", "config.json",
        {"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128, "num_hidden_layers": 61,
         "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
         "v_head_dim": 128, "max_position_embeddings": 163840, "rope_theta": 10000,
         "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                          "original_max_position_embeddings": 4096, "type": "yarn"}},
        "Only the 64-dimensional qk_rope_head_dim part of each head is rotated. mscale = mscale_all_dim makes "
        "the rotary attention factor exactly 1; the YaRN temperature is applied instead to the softmax scale, "
        "as (0.1 ln 40 + 1)^2. DeepSeek-V2 has the same rope_scaling block."),
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


def preset_config(key: str) -> dict:
    """A fresh copy of a preset's config dict (callers may modify it)."""
    if key not in PRESETS:
        raise ValueError(f"Unknown preset {key!r}; choose one of {', '.join(PRESETS)}.")
    return copy.deepcopy(PRESETS[key].config)
