"""The words the config pages show beside each preset: what to look at, and any value that could not be checked.

The core keeps the presets as data (``posenc_core.configs.PRESETS``); these sentences are keyed by the preset's key.
"""

from __future__ import annotations

import posenc_core as pc

# Where the values come from, by the preset's source code (a preset with its own caveat has a sentence below).
SOURCE_WORDS = {"config.json": "config.json", "config.json:text_config": "config.json (text_config)"}

PRESET_SOURCES = {
    'qwen2.5-7b-yarn': (
        "config.json, plus the rope_scaling block its model card ('Processing Long Texts') tells you to "
        "add"
    ),
    'gemma4': (
        "transformers' Gemma4TextConfig defaults (its docstring checkpoint); sizes not checked against a"
        " released config.json"
    ),
    'mimo-v2-flash': (
        "transformers' MiMoV2FlashConfig defaults (its docstring checkpoint)"
    ),
    'deepseek-v4-flash': (
        "transformers' DeepseekV4Config defaults (its docstring checkpoint); the YaRN block is not "
        "checked against the released config.json"
    ),
    'mistral-small4': (
        "transformers' Mistral4Config defaults (its docstring checkpoint)"
    ),
}

PRESET_NOTES = {
    'llama2-7b': (
        "Plain RoPE, trained at 4,096 tokens. (The first uploads of the file had no rope_theta key; "
        "transformers' default is the same 10,000.)"
    ),
    'llama3.1-8b': (
        "Llama 3's 8K model extended to 128K with the llama3 rule: pairs whose wavelength is below 8192/4 "
        "keep their frequency, above 8192/1 are divided by 8, smoothly in between."
    ),
    'llama3.1-70b': (
        "The 8B's RoPE (llama3 rule, x 8 over 8,192) on 80 layers of 64 query heads and 8 KV heads of 128. "
        "(Sizes checked against copies of the file in public code, not the file itself.)"
    ),
    'llama3.1-405b': (
        "The same RoPE on 126 layers of 128 query heads and 8 KV heads of 128. (Sizes checked against copies "
        "of the file in public code, not the file itself.)"
    ),
    'mistral-7b': (
        "No RoPE scaling. Attention is limited to a 4,096-token sliding window, so relative distances above "
        "4,096 never occur inside one layer even though max_position_embeddings is 32,768."
    ),
    'qwen2.5-7b-yarn': (
        "The released config.json has no rope_scaling; the model card gives this block for inputs beyond "
        "32,768 tokens (up to 131,072). max_position_embeddings stays 32,768, so L' = 4 x L."
    ),
    'gpt-neox-20b': (
        "Only a quarter of each 96-dimensional head is rotated (24 dimensions, 12 pairs); the other 72 carry "
        "no position. Pythia uses the same rotary_pct of 0.25."
    ),
    'phi3.5-mini': (
        "LongRoPE: one searched factor per pair, a short list for inputs up to 4,096 tokens and a long list "
        "beyond. The long factors reach about 65, more than the 32 x extension itself. The file's "
        "sliding_window (262,144, longer than the context) makes transformers build sliding-window layers "
        "that never drop a token within 131,072."
    ),
    'deepseek-v3': (
        "Only the 64-dimensional qk_rope_head_dim part of each head is rotated. mscale = mscale_all_dim makes"
        " the rotary attention factor exactly 1; the YaRN temperature is applied instead to the softmax "
        "scale, as (0.1 ln 40 + 1)^2. DeepSeek-V2 has the same rope_scaling block."
    ),
    'gemma3-27b': (
        "Five sliding-window layers (1,024 tokens, base 10,000) for every global layer (base 1,000,000). The "
        "legacy rope_scaling (linear × 8) applies to the global layers only: Gemma3TextConfig moves it there."
    ),
    'gemma4': (
        "Sliding layers: 512-token window, base 10,000, head_dim 256. Full layers: their own head_dim "
        "(global_head_dim 512) and the proportional type, which turns only the fastest quarter of the pairs. "
        "Layer counts and widths differ per Gemma 4 size; these are the class defaults."
    ),
    'gemma4-31b': (
        "Five 1,024-token sliding layers (16 KV heads of 256) for every full layer (4 KV heads of 512, keys "
        "and values from one projection: attention_k_eq_v). (Values from copies of the file in public code.)"
    ),
    'gemma4-e2b': (
        "Four 512-token sliding layers per full layer, one KV head; the last 20 layers reuse the keys and "
        "values of the last earlier layer of their kind (num_kv_shared_layers), so only 15 layers keep a "
        "cache. (Values from copies of the file in public code.)"
    ),
    'llama4-scout': (
        "iRoPE: three RoPE layers with 8,192-token chunked attention, then one NoPE layer with full attention"
        " whose queries are scaled up with position. max_position_embeddings (10M) is the advertised context,"
        " not the llama3 rule's target (16 × 8,192)."
    ),
    'smollm3-3b': (
        "Every fourth layer is NoPE (no_rope_layers = 0), the others rotate with base 5,000,000. The model "
        "card adds YaRN for 128K inputs; the released config has none."
    ),
    'gpt-oss-20b': (
        "Sliding (128 tokens) and full layers alternate; all rotate with YaRN × 32 (truncate false), and "
        "every head of every layer has a learned sink logit, an extra softmax column."
    ),
    'olmo3-7b': (
        "Three 4,096-token sliding layers per full layer; the legacy rope_scaling (YaRN × 8) is applied to "
        "the full layers only, as Olmo3Config does (attention_factor 1.2079 is written in the file). "
        "num_key_value_heads (32: no grouping) is from a copy of the file in public code."
    ),
    'exaone4-32b': (
        "Local layers (4,096-token window) rotate; every fourth layer is global and NoPE, as Exaone4Attention"
        " only rotates when the layer is sliding."
    ),
    'command-r7b': (
        "Three sliding-window layers with RoPE, then one global layer without positions (Cohere2Attention "
        "rotates only when the layer has a window). (max_position_embeddings and rope_theta as remembered.)"
    ),
    'mimo-v2-flash': (
        "θ per layer type (5,000,000 global, 10,000 local) with a third of each 192-dim head rotated; sliding"
        " layers (128 previous tokens + the query) also have a sink logit. Values are the class defaults; the"
        " exact layer pattern is not checked against the released file."
    ),
    'qwen3-8b': (
        "One RoPE setting everywhere (base 1,000,000, all of each head). The model card adds YaRN × 4 over "
        "32,768 tokens for longer inputs."
    ),
    'qwen3-next-80b': (
        "Three Gated DeltaNet (linear attention) layers per full-attention layer; the attention layers rotate"
        " only a quarter of each 256-dim head."
    ),
    'qwen3.5-27b': (
        "One full-attention layer in four among Gated DeltaNet layers, rotating a quarter of its head. The "
        "released model is multimodal (M-RoPE over that quarter); the multimodal pages cover that part. "
        "(Sizes from copies of the file in public code; rope_theta 10,000,000 from a training recipe's rotary"
        " base, not the file itself.)"
    ),
    'deepseek-v3.2': (
        "Latent attention: only a 64-dim slice of each query and one shared 64-dim key rotate (YaRN × 40); a "
        "sparse indexer picks 2,048 keys per query."
    ),
    'deepseek-v4-flash': (
        "RoPE dicts keyed by role, not layer type: 'main' (θ 10,000, no scaling) for pure sliding layers, "
        "'compress' (θ 160,000 with YaRN × 16, attention factor forced to 1) for layers with a compressor. "
        "Every layer also attends through a 128-token window and has sink logits; an eighth of each 512-dim "
        "head rotates. (factor 16 is from the class's own comment; original_max_position_embeddings is not "
        "checked.)"
    ),
    'kimi-k2': (
        "DeepSeek V3's architecture with 64 heads and base 50,000. K2.5 / K2.6 wrap this text model in a "
        "multimodal config (kimi_k25) with a longer context; the rope_scaling values here (including "
        "beta_fast = beta_slow = 1) are as remembered from K2's file and not checked offline."
    ),
    'ministral3-8b': (
        "YaRN × 16 over 16,384 tokens, and on every layer the queries are scaled by 1 + 0.1·log(1 + ⌊p / "
        "16,384⌋), Llama 4's rule with a longer step. (Values are Ministral3Config's defaults, which match "
        "the release as far as could be checked offline.)"
    ),
    'mistral-small4': (
        "Latent attention (half of each 128-dim query/key head rotates: the 64-dim rope slice), YaRN × 128, "
        "and the Llama 4 query scale 1 + 0.1·log(1 + ⌊p / 8,192⌋)."
    ),
    'glm-4.5': (
        "Half of each 128-dim head rotates (64 dims, 32 pairs), base 1,000,000, no scaling."
    ),
    'kimi-linear-48b': (
        "Kimi Delta Attention layers with one latent-attention layer in about four; the attention layers use "
        "no rotation at all (NoPE): KimiLinear's attention never calls apply_rotary_pos_emb. The file counts "
        "layers from 1 in linear_attn_config."
    ),
    'granite4-h-small': (
        "Mamba-2 layers with a few attention layers; position_embedding_type 'nope' means the attention "
        "layers get no positions at all. (Which layers are attention is as remembered; not checked.)"
    ),
    'nemotron3-nano': (
        "Mamba-2 (M) and MoE (E) blocks with six attention blocks (*); the attention blocks use no position "
        "encoding: Nemotron-H's attention never calls apply_rotary_pos_emb, whatever rope_theta says."
    ),
    'lfm2-1.2b': (
        "Short gated convolutions with six attention layers. Unlike the other hybrids here, LFM2's attention "
        "layers do rotate (Lfm2Attention calls apply_rotary_pos_emb)."
    ),
    'hunyuan-7b': (
        "Labelled 'dynamic', but with a fixed alpha the rotary module uses NTK-alpha: base × alpha^(d/(d-2)),"
        " the same at every length. (alpha and context as remembered; not checked offline.)"
    ),
    'apertus-8b': (
        "Llama 3's rule (× 8 over 8,192) on a very large base, 12,000,000."
    ),
}


# the multimodal and ModernBERT presets (their pages and the config pages word them alike)
PRESET_SOURCES |= {
    "qwen2-vl-7b": "config.json (top level and vision_config)",
    "qwen2.5-vl-7b": "config.json (top level and vision_config)",
    "qwen3-vl-8b": "config.json (text_config and vision_config)",
    "qwen3.5-397b-a17b": "config.json (text_config and vision_config)",
    "glm-4.1v-9b": "config.json (text_config and vision_config)",
    "ernie-4.5-vl-28b-a3b": "config.json (text_config and vision_config)",
    "qwen3-omni-30b-a3b": "config.json (thinker_config)",
}

PRESET_NOTES |= {
    "qwen2-vl-7b": (
        "M-RoPE as first released: 64 pairs cut into 16 time, 24 height and 24 width pairs in contiguous blocks. "
        "The file says type 'mrope'; transformers reads that as the default rotary with mrope_section."
    ),
    "qwen2.5-vl-7b": (
        "The same split as Qwen2-VL; video time ids are spaced by seconds: tokens_per_second = 2 in the file "
        "(transformers' config class defaults to 4, so a file without the key reads differently)."
    ),
    "qwen3-vl-8b": (
        "Interleaved M-RoPE: pairs cycle time, height, width, so every axis gets fast and slow frequencies. Video"
        " time is written as text time stamps between frames. rope_theta 5,000,000 as remembered from the file "
        "(transformers' default is 500,000)."
    ),
    "qwen3.5-397b-a17b": (
        "Only a quarter of each 256-dimensional head rotates (64 dimensions, 32 pairs: 11 time, 11 height, 10 "
        "width, interleaved); three of every four layers are linear attention without positions. The rotary "
        "fields agree with transformers' Qwen3.5 defaults; the sizes (60 layers, 32 heads, 2 KV heads) agree with"
        " NVIDIA's description of the model in public code; rope_theta is from memory of the published file and "
        "worth checking against the hub."
    ),
    "glm-4.1v-9b": (
        "Half of each head rotates (64 dimensions, 32 pairs in 8 time, 12 height, 12 width contiguous blocks), "
        "with neighbouring dimensions as pairs. GLM-4.6V's model class (glm46v) has the same get_rope_index and "
        "builds its language model from its text_config."
    ),
    "ernie-4.5-vl-28b-a3b": (
        "3D RoPE: height and width alternate over the 44 fastest pairs, time takes the 20 slowest. The original "
        "Paddle checkpoint writes this as rope_3d: true and freq_allocation: 20; the transformers (-PT) layout "
        "lists mrope_section as (height, width, time) = [22, 22, 20]."
    ),
    "qwen3-omni-30b-a3b": (
        "TMRoPE: video time ids are spaced by seconds (position_id_per_seconds) and a video's sound sits on the "
        "same time axis, one id per audio token (about 13 per second). position_id_per_seconds = 13 as remembered"
        " from the released file, matching the audio token rate; transformers' config class defaults to 25 "
        "(Qwen2.5-Omni's value)."
    ),
}

_MODERNBERT_NOTE = ("The sizes were written from the released config.json and agree with transformers' "
                    "ModernBertConfig defaults (base) and its docstring; the position keys (global_attn_every_n_layers "
                    "3, global_rope_theta 160,000, local_attention 128, local_rope_theta 10,000, "
                    "max_position_embeddings 8,192) are the same in both sizes.")
PRESET_NOTES |= {"modernbert-base": _MODERNBERT_NOTE, "modernbert-large": _MODERNBERT_NOTE}


def preset_source(key: str) -> str:
    """Where a preset's values come from, in words."""
    preset = pc.PRESETS[key]
    return PRESET_SOURCES.get(key, SOURCE_WORDS.get(preset.source, preset.source))


def preset_note(key: str) -> str:
    """What to look at in a preset (another family's preset may still carry its own ``note``)."""
    return PRESET_NOTES.get(key, pc.PRESETS[key].note)
