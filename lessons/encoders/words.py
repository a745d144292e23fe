"""The words of the encoder pages: what each preset's values rest on, and where the DeBERTa table's sizes come from."""

from __future__ import annotations

# preset key (pc.encoders.MODERNBERT_PRESETS) -> what the values rest on

# where pc.encoders.DEBERTA_V3 comes from
DEBERTA_V3_SOURCE = ("microsoft/deberta-v3-base, config.json (max_relative_positions -1 reads as "
                     "max_position_embeddings 512)")


def modernbert_source(reading) -> str:
    """Where a ModernBERT reading (``pc.encoders.modernbert_reading``) comes from, as the page's caption says it."""
    return f"{reading.model_id}, {reading.source}, read through transformers' {reading.class_name}"
