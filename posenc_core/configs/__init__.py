"""Reading model configs: through transformers' config classes, layer by layer, and the model presets."""

from .labels import layer_groups, layer_label
from .layer_reading import layer_scheme, read_layers
from .layer_rope import layer_inv_freq
from .layer_row import MIXER_KINDS, LayerRow
from .presets import PRESETS, Preset, add_presets, preset_config
from .query_scale import query_scale, query_scale_start
from .reader import (
    MAX_CONFIG_BYTES,
    ConfigObject,
    ConfigReading,
    config_object,
    normalise_config,
    parse_config_json,
    transformers_available,
)
from .rope_config import (
    RopeConfig,
    config_contexts,
    config_view,
    describe_rope_config,
    layer_contexts,
    layer_facts,
    model_contexts,
    read_rope_config,
    rope_from_config,
    rope_layer_types,
)
from .summaries import PAIR_BANDS, layer_pairs, layer_table

__all__ = [
    "layer_groups", "layer_label", "LayerRow", "MIXER_KINDS", "layer_scheme", "read_layers", "layer_inv_freq",
    "query_scale", "query_scale_start", "PRESETS", "Preset", "add_presets", "preset_config", "MAX_CONFIG_BYTES",
    "ConfigObject", "ConfigReading", "config_object", "normalise_config", "parse_config_json",
    "transformers_available", "RopeConfig", "config_contexts", "config_view", "layer_contexts", "layer_facts",
    "model_contexts", "describe_rope_config", "read_rope_config", "rope_from_config", "rope_layer_types",
    "PAIR_BANDS", "layer_pairs", "layer_table"
]
