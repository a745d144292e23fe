"""Position settings of well-known models, kept as data, each naming the config.json it comes from.

``PRESETS`` maps a short stable key (used in URLs) to a ``Preset``. The classic RoPE models are here; the
open models of 2025-26 are in ``todays_presets``; other families register theirs with ``add_presets``.
Each preset holds the keys of a public config.json that the model's config class needs, values unchanged.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass

from .todays_presets import todays_presets

__all__ = [
    "PHI35_LONG_FACTOR",
    "PHI35_SHORT_FACTOR",
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
PRESETS.update(todays_presets(Preset))


def add_presets(presets: Mapping[str, Preset]) -> None:
    """Register another family's presets (e.g. multimodal ones) so every page and test sees them."""
    for key, preset in presets.items():
        if key in PRESETS:
            raise ValueError(f"A preset called {key!r} already exists.")
        if not isinstance(preset, Preset):
            raise ValueError(f"Preset {key!r} must be a Preset, not {type(preset).__name__}.")
        PRESETS[key] = preset


def preset_config(key) -> dict:
    """A fresh copy of a preset's config dict (callers may modify it)."""
    if key not in PRESETS:
        raise ValueError(f"Unknown preset {key!r}; choose one of {', '.join(PRESETS)}.")
    return copy.deepcopy(PRESETS[key].config)
