"""Reading model configs: through transformers' config classes, layer by layer, and the model presets."""

from .features import ModelFeature, ModelFeatureCode, config_features, model_features
from .layer_reading import layer_scheme, read_layers
from .layer_rope import layer_inv_freq
from .layer_row import MIXER_FAMILIES, MIXER_KINDS, LayerRow, MixerCode, MixerFamily, ReasonCode, RotationReason
from .presets import PRESETS, Preset, SourceCode, add_presets, preset_config
from .query_scale import LayerQueryScale, query_scale, query_scale_start
from .reader import (
    MAX_CONFIG_BYTES,
    POSITION_KEYS,
    ConfigObject,
    ConfigReading,
    IgnoredReason,
    ReadingSource,
    config_object,
    normalise_config,
    parse_config_json,
    require_class_reading,
    require_transformers,
    transformers_available,
)
from .rope_config import (
    ConfigView,
    ContextLengths,
    ContextRule,
    FactCode,
    Feature,
    HowCode,
    LayerFact,
    OriginCode,
    RopeConfig,
    SettingRow,
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
from .summaries import PAIR_BANDS, Band, LayerGroup, LayerPairs, layer_groups, layer_pairs

__all__ = [
    "LayerRow", "MIXER_KINDS", "MIXER_FAMILIES", "MixerCode", "MixerFamily", "ReasonCode", "RotationReason",
    "layer_scheme", "read_layers", "layer_inv_freq", "query_scale", "query_scale_start", "LayerQueryScale",
    "PRESETS", "Preset", "SourceCode", "add_presets", "preset_config", "MAX_CONFIG_BYTES", "POSITION_KEYS",
    "ConfigObject", "ConfigReading", "IgnoredReason", "ReadingSource", "config_object", "normalise_config",
    "parse_config_json", "require_class_reading", "require_transformers", "transformers_available", "ConfigView",
    "ContextLengths", "ContextRule", "FactCode", "Feature", "HowCode", "LayerFact", "OriginCode", "RopeConfig",
    "SettingRow", "config_contexts", "config_view", "describe_rope_config", "layer_contexts", "layer_facts",
    "model_contexts", "read_rope_config", "rope_from_config", "rope_layer_types", "PAIR_BANDS", "Band",
    "LayerGroup", "LayerPairs", "layer_groups", "layer_pairs", "ModelFeature", "ModelFeatureCode", "config_features",
    "model_features",
]
