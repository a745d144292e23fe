"""Encoders: DeBERTa's disentangled attention, ModernBERT's local and global rotary layers, and Transformer-XL /
XLNet's relative attention, each as the code the models run computes it."""

from .deberta import (
    DEBERTA_V3,
    DebertaBucketCurve,
    DebertaExample,
    DebertaQuery,
    DebertaTableFacts,
    DebertaTerms,
    deberta_bucket,
    deberta_bucket_curve,
    deberta_example,
    deberta_query,
    deberta_relative_positions,
    deberta_span,
    deberta_table_facts,
    deberta_terms,
)
from .modernbert import (
    MODERNBERT_PRESETS,
    ModernBertAttentionCost,
    ModernBertCostCurve,
    ModernBertPairs,
    ModernBertReading,
    modernbert_attention_cost,
    modernbert_cost_curve,
    modernbert_frequencies,
    modernbert_keys_seen,
    modernbert_masks,
    modernbert_pairs,
    modernbert_reading,
)
from .xl import (
    XlDistanceBias,
    XlExample,
    XlStrongestScore,
    XlTerms,
    xl_distance_bias,
    xl_example,
    xl_relative_sinusoid,
    xl_strongest_score,
    xl_terms,
)

__all__ = [
    "DebertaExample", "DebertaQuery", "ModernBertReading", "XlExample",
    "DEBERTA_V3", "deberta_bucket", "deberta_bucket_curve", "deberta_query", "deberta_table_facts",
    "deberta_example", "deberta_relative_positions", "deberta_span", "deberta_terms", "MODERNBERT_PRESETS",
    "modernbert_attention_cost", "modernbert_cost_curve", "modernbert_frequencies", "modernbert_keys_seen",
    "modernbert_masks", "modernbert_pairs", "modernbert_reading", "xl_distance_bias", "xl_example",
    "xl_relative_sinusoid", "xl_strongest_score", "xl_terms", "DebertaBucketCurve", "DebertaTableFacts",
    "DebertaTerms", "ModernBertAttentionCost", "ModernBertCostCurve", "ModernBertPairs", "XlDistanceBias",
    "XlStrongestScore", "XlTerms",
]
