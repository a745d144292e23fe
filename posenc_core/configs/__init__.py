"""Reading model configs: through transformers' config classes, layer by layer, and the model presets."""

from .labels import *  # noqa: F403
from .layers import *  # noqa: F403
from .presets import *  # noqa: F403
from .reader import *  # noqa: F403
from .rope_config import *  # noqa: F403
from .summaries import *  # noqa: F403

__all__ = [
    "layer_groups", "layer_label", "LayerRow", "MIXER_KINDS", "layer_scheme", "read_layers", "layer_inv_freq",
    "query_scale", "query_scale_start", "PRESETS", "Preset", "add_presets", "preset_config", "MAX_CONFIG_BYTES",
    "ConfigObject", "ConfigReading", "config_object", "normalise_config", "parse_config_json", "transformers_available",
    "RopeConfig", "config_contexts",
    "config_view", "layer_contexts", "layer_facts", "model_contexts", "describe_rope_config", "read_rope_config",
    "rope_from_config", "rope_layer_types", "PAIR_BANDS", "layer_pairs", "layer_table",
]
