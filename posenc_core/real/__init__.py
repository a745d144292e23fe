"""Inside real models: all-MiniLM-L6-v2 and SmolLM2-135M-Instruct, loaded offline and measured.

Importing this package needs neither torch nor transformers (the functions import them); the models come
from the PyPI packages in requirements-models.txt and ``missing_models()`` says what is absent. Headless:
``python -m posenc_core.real long --json PATH`` and ``python -m posenc_core.real attention --npz PATH``.
"""

from .attention_stats import (
    MAX_STATS_TOKENS,
    SINK_FROM,
    attention_stats,
    load_stats,
    merge_attention_stats,
    pair_wavelengths,
    save_stats,
    shipped_text_stats,
    summarise_stats,
    uniform_weight_by_offset,
)
from .encoder import (
    MAX_ENCODER_CHARS,
    MINILM_POSITION_ROWS,
    encoder_order_experiment,
    encoder_past_table,
    minilm_embedding,
    minilm_max_seq_length,
    positional_heads,
    sentence_transformers_embedding,
)
from .long_context import (
    LONG_METHODS,
    MAX_LIVE_TOKENS,
    MAX_LONG_TOKENS,
    SMOLLM2_BASE,
    SMOLLM2_CONTEXT,
    SMOLLM2_HEAD_DIM,
    LongMethod,
    binned_loss,
    long_context_run,
    method_rope_parameters,
    position_losses,
)
from .models import (
    INSTALL_COMMAND,
    MINILM_NAME,
    SMOLLM2_NAME,
    load_minilm,
    load_smollm2,
    missing_models,
    model_cache_dir,
    smollm2_gguf_path,
)
from .smollm2 import smollm2_forward, smollm2_rotary, smollm2_token_losses
from .text import TEXT_SOURCE, TEXT_TITLE, shipped_text, smollm2_tokenize, text_token_count, text_tokens

__all__ = [
    "INSTALL_COMMAND",
    "LONG_METHODS",
    "LongMethod",
    "MAX_ENCODER_CHARS",
    "MAX_LIVE_TOKENS",
    "MAX_LONG_TOKENS",
    "MAX_STATS_TOKENS",
    "MINILM_NAME",
    "MINILM_POSITION_ROWS",
    "SINK_FROM",
    "SMOLLM2_BASE",
    "SMOLLM2_CONTEXT",
    "SMOLLM2_HEAD_DIM",
    "SMOLLM2_NAME",
    "TEXT_SOURCE",
    "TEXT_TITLE",
    "attention_stats",
    "binned_loss",
    "encoder_order_experiment",
    "encoder_past_table",
    "load_minilm",
    "load_smollm2",
    "load_stats",
    "long_context_run",
    "merge_attention_stats",
    "method_rope_parameters",
    "minilm_embedding",
    "minilm_max_seq_length",
    "missing_models",
    "model_cache_dir",
    "pair_wavelengths",
    "position_losses",
    "positional_heads",
    "save_stats",
    "sentence_transformers_embedding",
    "shipped_text",
    "shipped_text_stats",
    "smollm2_forward",
    "smollm2_gguf_path",
    "smollm2_rotary",
    "smollm2_token_losses",
    "smollm2_tokenize",
    "summarise_stats",
    "text_token_count",
    "text_tokens",
    "uniform_weight_by_offset",
]
