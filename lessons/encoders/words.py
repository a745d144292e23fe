"""The words of the encoder pages: what each preset's values rest on, and where the DeBERTa table's sizes come from."""

from __future__ import annotations

# preset key (pc.encoders.MODERNBERT_PRESETS) -> what the values rest on
_MODERNBERT_NOTE = ("The sizes were written from the released config.json and agree with transformers' "
                    "ModernBertConfig defaults (base) and its docstring; the position keys (global_attn_every_n_layers "
                    "3, global_rope_theta 160,000, local_attention 128, local_rope_theta 10,000, "
                    "max_position_embeddings 8,192) are the same in both sizes.")
PRESET_NOTES = {"modernbert-base": _MODERNBERT_NOTE, "modernbert-large": _MODERNBERT_NOTE}

# where pc.encoders.DEBERTA_V3 comes from
DEBERTA_V3_SOURCE = ("microsoft/deberta-v3-base, config.json (max_relative_positions -1 reads as "
                     "max_position_embeddings 512)")


def modernbert_source(reading) -> str:
    """Where a ModernBERT reading (``pc.encoders.modernbert_reading``) comes from, as the page's caption says it."""
    return f"{reading.model_id}, {reading.source}, read through transformers' {reading.class_name}"
