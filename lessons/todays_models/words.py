"""Words the pages of 'Position in today's models' show for the core's codes (posenc_core.todays_models)."""

# The four models of a DroPE run (posenc_core.todays_models.DROPE_VARIANTS)
DROPE_LABELS = {
    "rope": "RoPE (as trained)",
    "dropped": "rotations dropped",
    "drope": "DroPE (recalibrated)",
    "nope": "NoPE from scratch",
}

# The three attentions the stick-breaking page compares (posenc_core.todays_models.STICK_COMPARED)
STICK_NAMES = {"stick_breaking": "stick-breaking", "alibi": "softmax + ALiBi", "softmax": "softmax, no positions"}

# The mixers the hybrids page reorders (posenc_core.todays_models.MIXERS)
MIXER_NAMES = {
    "conv": "causal convolution (K = 4)",
    "recurrence": "gated linear recurrence",
    "causal": "causal attention, no positions",
    "bidirectional": "bidirectional attention, no positions",
}

# The hybrids table (posenc_core.todays_models.HYBRID_MODELS): model, other layers, attention, positions
HYBRID_NAMES = {
    "qwen3_next": "Qwen3-Next / Qwen3.5",
    "kimi_linear": "Kimi Linear",
    "granitemoehybrid": "Granite 4.0-H",
    "nemotron_h": "Nemotron-H / Nemotron 3",
    "falcon_h1": "Falcon-H1",
    "lfm2": "LFM2",
}
HYBRID_MIXERS = {
    "gated_deltanet": "Gated DeltaNet",
    "kimi_delta": "Kimi Delta Attention",
    "mamba2": "Mamba-2",
    "mamba2_parallel": "Mamba-2, in parallel",
    "short_conv": "short convolutions",
}
HYBRID_ATTENTION = {
    "one_in_four": "1 layer in 4",
    "one_in_four_latent": "1 layer in 4 (latent attention)",
    "few": "a few layers",
    "every": "every layer",
}
# what each model's attention does with positions, naming the attention class the modeling code defines
HYBRID_POSITIONS = {
    "qwen3_next": "RoPE on 64 of 256 dims (partial_rotary_factor 0.25)",
    "kimi_linear": "none (KimiLinearAttention)",
    "granitemoehybrid": "none unless position_embedding_type is 'rope'",
    "nemotron_h": "none (NemotronHAttention)",
    "falcon_h1": "RoPE (FalconH1Attention)",
    "lfm2": "RoPE (Lfm2Attention)",
}

# The cache layouts of the latent-attention page (posenc_core.todays_models.KV_LAYOUTS); {kv_heads}: GQA's groups
KV_LAYOUT_NAMES = {
    "mha": "MHA",
    "gqa": "GQA ({kv_heads} KV heads)",
    "mla": "MLA",
    "coupled": "MLA with the rotation on the latent",
}

# The models of the fewer-frequencies table (posenc_core.todays_models.FEWER_FREQUENCY_MODELS): name, and the
# config fields the sizes are read from
FEWER_MODEL_NAMES = {
    "gpt_neox_20b": "GPT-NeoX 20B",
    "glm_4_5": "GLM-4.5",
    "qwen3_5": "Qwen3.5 (full-attention layers)",
    "gemma4": "Gemma 4 (full-attention layers)",
}
FEWER_MODEL_SOURCES = {
    "gpt_neox_20b": "GPTNeoXConfig: rotary_pct 0.25 (EleutherAI/gpt-neox-20b)",
    "glm_4_5": "Glm4MoeConfig: partial_rotary_factor 0.5; head_dim 128 (zai-org/GLM-4.5)",
    "qwen3_5": "Qwen3_5TextConfig: head_dim 256, partial_rotary_factor 0.25",
    "gemma4": "Gemma4TextConfig: global_head_dim 512, rope_type proportional, partial_rotary_factor 0.25, "
              "rope_theta 1,000,000",
}

# What the layers without positions do in each model (posenc_core.todays_models.NOPE_LAYER_MODELS)
NOPE_RULES = {
    "Llama 4 Scout": "RoPE layers: chunks of 8,192 tokens; NoPE layers: all, with temperature",
    "SmolLM3": "every layer attends to everything; every fourth has no RoPE",
    "Cohere2": "3 sliding-window layers with RoPE, then 1 full layer without",
    "EXAONE 4": "sliding_window_pattern 4 ('LLLG'): local layers rotate, global ones do not",
    "Ministral 3": "every layer rotates (YaRN) and every query gets llama_4_scaling_beta's temperature",
}

# The query-scale rules (posenc_core.todays_models.QUERY_SCALE_RULES): the models that apply each
QUERY_SCALE_LABELS = {
    "llama4": "Llama 4 (NoPE layers)",
    "llama_4_scaling_beta": "Ministral 3 / Mistral Small 4 (all layers)",
}

# Where each latent-attention preset's sizes come from (posenc_core.todays_models.LatentConfig.source codes)
MLA_SOURCES = {
    "deepseek_v3": "deepseek-ai/DeepSeek-V3 config.json (= transformers' DeepseekV3Config defaults; rope_scaling "
                   "yarn, factor 40, mscale = mscale_all_dim = 1)",
    "kimi_k2_0905": "moonshotai/Kimi-K2-Instruct-0905 config.json (DeepSeek V3 architecture with 64 heads; "
                    "rope_theta 50,000, yarn factor 64, beta_fast = beta_slow = 1)",
    "glm5": "transformers' GlmMoeDsaConfig defaults (checkpoint zai-org/GLM-5)",
    "mistral_small_4": "transformers' Mistral4Config defaults (checkpoint mistralai/Mistral-Small-4-119B-2603; yarn "
                       "factor 128 over 8,192 tokens)",
    "glm_4_5": "transformers' Glm4MoeConfig defaults (checkpoint zai-org/GLM-4.5)",
}
