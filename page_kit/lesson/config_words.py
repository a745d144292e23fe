"""What the config pages say about a config reading: the core returns codes and numbers, these turn them into words.

Shared by the long-context and today's-models pages (and the encoders' ModernBERT page), so it sits in the kit.
"""

from __future__ import annotations

from posenc_core.configs import (
    ConfigReading,
    ContextRule,
    LayerFact,
    LayerRow,
    ModelFeature,
    RotationReason,
    SettingRow,
    layer_contexts,
)

# What each key the reading takes sets, for the "read" table (keys of ``posenc_core.configs.POSITION_KEYS``).
FIELD_MEANINGS = {
    "model_type": "which config class reads the rest",
    "layer_types": "the kind of every layer",
    "rope_parameters": "RoPE settings (flat, or one dict per layer type; null = no positions)",
    "rope_scaling": "legacy name of rope_parameters",
    "rope_theta": "legacy top-level RoPE base",
    "rope_local_base_freq": "Gemma 3's legacy base of its sliding layers",
    "rotary_emb_base": "GPT-NeoX's name for the base",
    "rotary_pct": "GPT-NeoX's name for the rotated fraction",
    "partial_rotary_factor": "fraction of each head that rotates",
    "head_dim": "size of one attention head",
    "global_head_dim": "head size of the full-attention layers (Gemma 4)",
    "num_global_key_value_heads": "KV heads of the full-attention layers (Gemma 4, with attention_k_eq_v)",
    "per_layer_config": "per-layer overrides (Gemma 4)",
    "hidden_size": "model width (head_dim = hidden_size / heads when head_dim is absent)",
    "num_attention_heads": "query heads",
    "num_hidden_layers": "number of layers",
    "max_position_embeddings": "the context the config declares",
    "original_max_position_embeddings": "pretraining context (Phi-3 keeps it at the top level)",
    "sliding_window": "width of the sliding-window layers",
    "use_sliding_window": "whether sliding_window applies (Qwen)",
    "sliding_window_pattern": "every n-th layer is global (legacy)",
    "attention_chunk_size": "chunk size of chunked-attention layers (Llama 4)",
    "no_rope_layers": "1 = the layer rotates, 0 = NoPE",
    "no_rope_layer_interval": "every n-th layer is NoPE",
    "attn_temperature_tuning": "query temperature on NoPE layers (Llama 4)",
    "floor_scale": "Llama 4's temperature step",
    "attn_scale": "Llama 4's temperature slope",
    "position_embedding_type": "Granite 4: 'rope' or none",
    "kv_lora_rank": "latent attention: compressed KV size",
    "q_lora_rank": "latent attention: compressed query size",
    "qk_rope_head_dim": "latent attention: the rotated slice of each head",
    "qk_nope_head_dim": "latent attention: the unrotated slice",
    "rope_interleave": "latent attention: interleaved pair layout",
    "text_config": "the language model of a multimodal config",
    "linear_attn_config": "Kimi Linear: which layers are attention and which linear (1-indexed)",
    "hybrid_override_pattern": "Nemotron-H: one letter per block (M Mamba-2, * attention, E MoE, - MLP)",
    "full_attn_idxs": "LFM2: which layers are attention (the rest are convolutions)",
    "mrope_section": "multimodal RoPE: pairs per axis (time, height, width)",
    "global_attn_every_n_layers": "ModernBERT: every n-th layer (from layer 0) attends to everything",
    "global_rope_theta": "ModernBERT: RoPE base of its global layers",
    "local_rope_theta": "ModernBERT: RoPE base of its local (sliding-window) layers",
    "local_attention": "ModernBERT: the whole local window, half of it on each side",
    "dual_chunk_attention_config": "vLLM's dual chunk attention (Qwen2.5-1M): chunk_size, local_size",
}
GENERIC = "the fields are read generically (rope_theta + rope_scaling, flat or per-layer-type rope_parameters)."


def reading_notes(reading: ConfigReading) -> list[str]:
    """How a config was read, one sentence per point (the class, or why the reading is generic)."""
    if reading.source == "class":
        notes = [f"Read by transformers' {reading.class_name}"
                 + (" (the text_config of the multimodal config)" if reading.nested_from else "")
                 + ": class defaults and legacy names are resolved as the model resolves them."]
    elif reading.source == "unknown_model_type":
        notes = [f"transformers has no config class for model_type '{reading.model_type}'; {GENERIC}"]
    elif reading.source == "transformers_missing":
        notes = ["transformers is not installed, so the fields are read generically, without the class "
                 "defaults of this model type."]
    else:
        notes = [f"The config has no model_type, so no transformers class can read it; {GENERIC}"]
    if reading.source != "class" and reading.nested_from:
        notes.append("Only the text_config (the language model) is read.")
    return notes


def ignored_why(reading: ConfigReading, reason: str) -> str:
    """Why a key of the config is not used."""
    return {"not_positions": "not about positions",
            "not_class_field": f"not a field of {reading.class_name}: the model's code never reads it",
            "not_generic_field": "not a field the generic reading knows"}[reason]


def how_words(how: ContextRule) -> str:
    """How L and L′ were chosen (``config_contexts``' rule)."""
    kind = how.rope_type
    if how.code in ("original_factor", "original_derived"):
        origin = ("factor from the config" if how.code == "original_factor" else
                  "factor = max_position_embeddings / L (transformers' rule)")
        text = f"L = original_max_position_embeddings; L′ = factor × L, {origin}"
        if how.declared is not None:
            text += (f". The config also declares max_position_embeddings = {how.declared:,}; {kind}'s frequencies "
                     f"do not depend on it{' beyond choosing short or long factors' if kind == 'longrope' else ''}")
        return text
    return {
        "linear": "L′ = max_position_embeddings; L = L′ / factor: positions up to L′ turn by the angles unscaled "
                  "positions reached by L",
        "ntk_alpha": "NTK-alpha stretches the base at every length and names no target: L = max_position_embeddings, "
                     "and there is no target length",
        "proportional": "proportional RoPE turns only part of each head and stretches nothing: "
                        "L = max_position_embeddings, and there is no target length",
        "default": "no scaling: L = max_position_embeddings, and there is no target length",
        "default_no_max": "no scaling, and no max_position_embeddings: L = 4,096 is only a reference",
        "example_target": f"L = max_position_embeddings; {kind} has no fixed target, so L′ = factor × L is shown as "
                          "an example",
        "no_rotation": "this layer does not rotate: L = max_position_embeddings, and there is no target",
    }[how.code]


# What a layer mixes tokens with (``LayerRow.mixer`` codes); "other" shows the layer's own label.
MIXER_WORDS = {
    "full_attention": "full attention",
    "sliding_window": "sliding window",
    "chunked_attention": "chunked attention",
    "linear_attention": "linear attention",
    "state_space": "state space",
    "convolution": "convolution",
    "hybrid": "attention + state space",
    "mlp_only": "no mixer (MLP only)",
}
# The family's name for its layer (``LayerRow.mixer_family`` codes).
MIXER_FAMILY_WORDS = {
    "gated_deltanet": "Gated DeltaNet (linear attention)",
    "kimi_delta_attention": "Kimi Delta Attention (linear attention)",
    "mamba2": "Mamba-2 (state space)",
    "attention_mamba2_parallel": "attention and Mamba-2 side by side",
    "short_gated_convolution": "short gated convolution",
}


def mixer_words(row: LayerRow) -> str:
    """What the layer mixes tokens with, e.g. 'sliding window' (a label nobody maps: the label itself)."""
    return MIXER_WORDS.get(row.mixer, row.layer_type)


def mixer_name(row: LayerRow) -> str:
    """The family's name for the layer's mixer, e.g. 'Gated DeltaNet (linear attention)', else its kind."""
    return MIXER_FAMILY_WORDS[row.mixer_family] if row.mixer_family else mixer_words(row)


def _reason_words(reason: RotationReason) -> str:
    detail = reason.detail
    return {
        "no_rope_layers_one": lambda: "no_rope_layers[i] = 1 (the code rotates `if self.use_rope`)",
        "no_rope_layers_zero": lambda: "no_rope_layers[i] = 0: this layer skips the rotation (NoPE; the code "
                                       "rotates `if self.use_rope`)",
        "no_rope_layers_missing": lambda: "no no_rope_layers entry for this layer: it rotates",
        "sliding_only": lambda: "a sliding-window layer: the code rotates only where the layer has a window",
        "sliding_only_not_sliding": lambda: "not a sliding-window layer: the code rotates only sliding layers, so "
                                            "this one is NoPE",
        "force_rope": lambda: "force_rope: a dense prefix layer with prefix_dense_sliding_window_pattern = 1 rotates",
        "sliding_window_null": lambda: "sliding_window is null: every layer rotates",
        "sliding_rotates": lambda: "a sliding-window layer rotates (`if self.sliding_window is None or "
                                   "self.is_sliding`)",
        "global_skips": lambda: "a global layer of a model with sliding_window skips the rotation (NoPE)",
        "mem_rope_on": lambda: "use_mem_rope = true: the shared attention rotates",
        "mem_rope_off": lambda: "use_mem_rope = false (the class default): the attention uses no positions",
        "rotary_type": lambda: "position_embedding_type = 'rotary'",
        "not_rotary_type": lambda: f"position_embedding_type = {detail!r}, not 'rotary': no rotation",
        "no_rotary_embedding": lambda: f"position_embedding_type = {detail!r}: the model builds no rotary "
                                       "embedding, so its attention layers use no positions",
        "no_rotary_module": lambda: "the model's code has no rotary module: its attention layers never rotate (NoPE)",
        "unread_condition": lambda: f"the code rotates only `if {detail}`, a condition this reading does not "
                                    "evaluate",
        "rope_parameters_entry": lambda: f"rope_parameters['{detail}']",
        "rope_parameters_null": lambda: f"rope_parameters['{detail}'] is null: NoPE",
        "rope_parameters_missing": lambda: f"rope_parameters has no entry for '{detail}': NoPE",
        "one_setting": lambda: "one RoPE setting for every layer",
        "no_settings": lambda: "no RoPE settings in the config",
        "no_settings_given": lambda: "(but the config gives no RoPE settings)",
        "not_attention": lambda: "not an attention layer: order comes from the recurrence or convolution itself",
    }[reason.code]()


def why_sentence(row: LayerRow) -> str:
    """Why a layer rotates or not, in the model code's terms (its reasons joined by '; ')."""
    text = ""
    for reason in row.reasons:
        joint = " " if reason.code == "no_settings_given" else "; "
        text += (joint if text else "") + _reason_words(reason)
    return text


# M-RoPE layout (a key of multimodal.ALLOCATIONS, read from the rotary module's code) -> (axes in section order, how)
# A layout no known fragment matches ("own_code") is the model's own.
MROPE_WORDS = {
    "chunked": ("time, height and width", "in consecutive blocks"),
    "interleaved": ("time, height and width", "interleaved across pairs (t, h, w, t, h, w, ...)"),
    "ernie3d": ("height, width and time", "height and width alternating over the fastest pairs, time on the slowest"),
}


def layout_name(row: LayerRow) -> str | None:
    """The M-RoPE layout's name: its key, or "the model's own" where the code's layout is none of them."""
    return "the model's own" if row.mrope_layout == "own_code" else row.mrope_layout


def _scaling_sentence(fact: LayerFact) -> str:
    row = fact.row
    if fact.contexts is None:
        stretch = fact.problem or ""
    else:
        stretch = f"pretrained on {fact.contexts.original:,} tokens" + (
            f", stretched to {fact.contexts.target:,}" if fact.contexts.target else "")
    factor = row.scaling_factor
    return f"{row.rope_type} scaling" + (f" x {factor:g}" if factor else "") + f": {stretch}"


def fact_sentence(fact: LayerFact) -> str:
    """One layer fact in words, every number from the config."""
    row, n = fact.row, fact.numbers
    if fact.code == "mixer":
        return (f"{mixer_name(row)}: no attention, so no positions to rotate; order comes from the {mixer_words(row)} "
                "itself")
    if fact.code == "mrope":
        axes, layout = MROPE_WORDS.get(row.mrope_layout or "", ("time, height and width",
                                                                f"in {layout_name(row)} layout"))
        return (f"multimodal RoPE (M-RoPE): the pairs are split {list(row.mrope_section or ())} between {axes}, "
                f"{layout}")
    if fact.code == "scaling":
        return _scaling_sentence(fact)
    return {
        "window_both_ways": lambda: f"sliding window both ways: each token sees the {n[0]:,} tokens on each side "
                                    f"and itself ({n[1]:,} tokens)",
        "window": lambda: f"sliding window: each query sees the last {n[0]:,} tokens",
        "chunk": lambda: f"chunked attention: tokens see only their own chunk of {n[0]:,}",
        "nope": lambda: f"NoPE: no rotation ({why_sentence(row)})",
        "query_scale": lambda: f"query scale by position ({getattr(row.query_scale, 'rule', None)}), from position "
                               f"{n[0]:,} on",
        "sink": lambda: "attention sink: a learned extra column in the softmax takes weight off the tokens",
        "latent": lambda: f"latent attention: only the {n[0]}-dim qk_rope_head_dim slice of each {n[1]}-dim "
                          "query/key head rotates; one rotated key is shared by all heads",
        "proportional": lambda: f"proportional RoPE: {n[0]} of {n[1]} pairs turn, with exponents over the whole "
                                "head; the rest have frequency 0",
        "partial": lambda: f"partial rotary: {row.partial_rotary_factor:g} of each {row.head_dim}-dim head rotates "
                           f"({n[0]} of {n[1]} pairs)",
        "rope": lambda: f"RoPE θ {row.theta:,.0f}, {n[0]} of {n[1]} pairs turn",
    }[fact.code]()


SETTING_NAMES = {"base": "base (rope_theta)", "partial": "partial rotary", "layer_type": "layer type"}


def _setting_value(row: SettingRow, rope_type: str) -> str:
    value = row.value
    if row.setting == "partial":
        factor, turning, of = value
        return f"{factor:g} -> " + (f"{turning} of {of} pairs turn, the rest get frequency 0"
                                    if rope_type == "proportional" else
                                    f"{turning} of {of} dimensions rotate ({turning // 2} pairs)")
    if row.setting == "base":
        return f"{value:,.6g}"
    if row.setting == "max_position_embeddings":
        return "-" if value is None else f"{value:,}"
    if row.setting in ("head_dim", "rope_type", "layer_type"):
        return f"{value}"
    numbers = [v for v in value if isinstance(v, (int, float)) and not isinstance(v, bool)] \
        if isinstance(value, (list, tuple)) else []
    if isinstance(value, (list, tuple)) and len(numbers) == len(value) and numbers:
        return f"{len(value)} values, {min(numbers):.4g} to {max(numbers):.4g}"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}" if value else "empty list"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"  # a length reads as the other lengths in the table do
    return repr(value)


def _origin(row: SettingRow) -> str:
    detail = row.detail
    if row.origin == "hidden_over_heads":
        hidden, heads = (detail or "/").split("/")
        return f"hidden_size / num_attention_heads = {hidden} / {heads}"
    return {
        "qk_rope_head_dim": "qk_rope_head_dim (latent attention: only this part of each head is rotated)",
        "global_head_dim": "global_head_dim (the full layers' own head size)",
        "rope_parameters": "rope_parameters['rope_theta']" if detail is None else
                           f"rope_parameters['{detail}']['rope_theta']",
        "rope_local_base_freq": "rope_local_base_freq (Gemma 3's base for sliding layers)",
        "rotary_emb_base": "rotary_emb_base (GPT-NeoX's name)",
        "class_default": f"not in the config: {detail}'s default" if row.setting == "partial" else
                         f"not in the config: {detail or 'transformers'}' default",
        "rotary_pct": "rotary_pct (GPT-NeoX's name)",
        "all_rotate": "not in the config: all dimensions rotate",
        "rope_type": "rope_type / type",
        "no_scaling": "no rope_scaling: default",
        "nested": "nested rope_parameters (one setting per kind of layer)",
        "top_level": "top-level key (wins over rope_scaling, as in transformers)",
        "filled_in": f"not in rope_scaling: {detail or 'transformers'} fills it in",
        "added": f"added by {detail or 'the reading'}",
    }.get(row.origin, row.origin)


def setting_table(rows: list[SettingRow], rope_type: str) -> list[tuple[str, str, str]]:
    """``describe_rope_config``'s rows as (setting, value, read from) in words."""
    return [(SETTING_NAMES.get(r.setting, r.setting), _setting_value(r, rope_type), _origin(r)) for r in rows]


# Where each pair turns (``LayerPairs.band`` codes) in the figures' and counts' words.
BAND_WORDS = {"in_span": "turns in its window", "in_context": "turns in the context", "never": "never a full turn",
              "zero": "frequency 0"}


def _extension(row: LayerRow) -> str:
    """', llama3 × 8 (8,192 → 65,536 tokens)': the type, its factor, and the context it stretches from and to."""
    factor = row.scaling_factor
    text = f", {row.rope_type}" + (f" × {factor:g}" if factor else "")
    try:
        original, target, _ = layer_contexts(row)
    except ValueError:  # a target the config leaves open (dynamic without a factor): the type alone
        return text
    return text + (f" ({original:,} → {target:,} tokens)" if target else f" (from {original:,} tokens)")


def layer_label(row: LayerRow) -> str:
    """A short description of what a layer does with positions, e.g. 'RoPE θ 10,000, 64 of 64 pairs'."""
    if not row.is_attention:
        return f"not attention: order from the {mixer_words(row)} itself"
    if not row.rotates:
        return "NoPE" + (" + query scale" if row.query_scale else "")
    text = f"RoPE θ {row.theta:,.0f}, {row.rotated_pairs} of {(row.head_dim or 0) // 2} pairs"
    if row.latent and row.qk_nope_head_dim:
        rope_dims = 2 * row.rotated_pairs
        text += f", latent attention ({rope_dims} of {rope_dims + row.qk_nope_head_dim} query/key dims rotate)"
    if row.mrope_section:
        text += f", M-RoPE sections {list(row.mrope_section)} ({layout_name(row)})"
    if row.rope_type not in (None, "default", "proportional"):
        text += _extension(row)
    return text + (" + query scale" if row.query_scale else "")


def _sees(r: LayerRow) -> str:
    if r.window:
        return f"{r.window - 1:,} on each side" if r.bidirectional else f"{r.window:,} tokens"
    if r.chunk:
        return f"chunks of {r.chunk:,}"
    if r.is_attention:
        return "all tokens, both sides" if r.bidirectional else "all earlier tokens"
    return "its running state"


def layer_table(rows: list[LayerRow]) -> dict[str, list]:
    """One column per property, one entry per layer (the table under the strip, and its CSV)."""
    def fmt(value, pattern="{:,}"):
        return "" if value is None else pattern.format(value)

    return {
        "layer": [r.index for r in rows],
        "layer type": [r.layer_type for r in rows],
        "mixer": [mixer_name(r) for r in rows],
        "sees": [_sees(r) for r in rows],
        "positions": ["RoPE" if r.rotates else ("NoPE" if r.is_attention else "-") for r in rows],
        "θ": [fmt(r.theta, "{:,.0f}") for r in rows],
        "pairs turning": [f"{r.rotated_pairs} of {(r.head_dim or 0) // 2}" if r.rotates else "" for r in rows],
        "head_dim": [fmt(r.head_dim) if r.is_attention else "" for r in rows],
        "rope_type": [r.rope_type or "" for r in rows],
        "factor": [fmt(r.scaling_factor, "{:g}") for r in rows],
        "query scale": [r.query_scale.rule if r.query_scale else "" for r in rows],
        "sink": [r.sink for r in rows],
        "why": [why_sentence(r) for r in rows],
    }


# The lesson behind each model feature (a key of ``layer_views.FEATURE_LESSONS``).
FEATURE_LINKS = {"partial": "fraction", "proportional": "fraction", "latent": "latent", "nope_layers": "nope",
                 "no_rotation": "nope", "query_scale": "nope", "window": "window", "chunk": "window", "sink": "sink",
                 "mrope": "mrope", "scaling": "scaling", "bases": "window", "hybrid": "mixer", "dual_chunk": "dca"}


def _layers(f: ModelFeature) -> str:
    return "every attention layer" if f.layers == f.of else f"{f.layers} of {f.of} attention layers"


def _scaling_name(f: ModelFeature) -> str:
    row = f.row
    kind = {"yarn": "YaRN", "llama3": "Llama 3", "longrope": "LongRoPE", "linear": "linear (position interpolation)",
            "dynamic": "dynamic NTK"}.get(row.rope_type or "", row.rope_type) if row else "?"
    return f"{kind} scaling" + (f" × {f.numbers[0]:g}" if f.numbers else "") + f" ({_layers(f)})"


def feature_sentence(f: ModelFeature) -> str:
    """A model's position feature by name, with the numbers read from its config (``config_features``)."""
    n, row = f.numbers, f.row
    if f.code == "dual_chunk":
        if f.problem:
            return f"dual chunk attention (vLLM): dual_chunk_attention_config cannot be read: {f.problem}"
        return (f"dual chunk attention (vLLM only): chunk_size {n[0]:,.0f}, local_size {n[1]:,.0f}, so no score's "
                f"rotation sees a distance past {n[0]:,.0f}; attention scale counted from "
                f"original_max_position_embeddings = {n[2]:,.0f}")
    if f.code == "scaling":
        return _scaling_name(f)
    return {
        "partial": lambda: f"partial rotary {row.partial_rotary_factor:g}: {n[0]:.0f} of {n[1]:.0f} pairs of each "
                           f"head turn ({_layers(f)})",
        "proportional": lambda: f"proportional RoPE: {n[0]:.0f} of {n[1]:.0f} pairs turn ({_layers(f)})",
        "latent": lambda: f"latent attention (MLA) with decoupled RoPE: {n[0]:.0f} of {n[1]:.0f} query/key dims "
                          "rotate, one rotated key shared by all heads",
        "nope_layers": lambda: f"NoPE layers interleaved with RoPE layers (iRoPE): {n[0]:.0f} of {n[1]:.0f} "
                               "attention layers do not rotate",
        "no_rotation": lambda: f"NoPE: none of its {n[0]:.0f} attention layers rotates",
        "query_scale": lambda: f"query temperature by position from position {n[0]:,.0f} ({_layers(f)})",
        "window": lambda: f"sliding window of {n[0]:,.0f} tokens ({_layers(f)})",
        "chunk": lambda: f"chunked attention in chunks of {n[0]:,.0f} tokens ({_layers(f)})",
        "sink": lambda: f"attention sinks: a learned extra softmax column ({_layers(f)})",
        "mrope": lambda: f"multimodal RoPE (M-RoPE), pairs split {list(row.mrope_section or ())} between axes",
        "bases": lambda: "RoPE base per layer type: " + ", ".join(f"{b:,.0f}" for b in n),
        "hybrid": lambda: f"hybrid: {n[0]:.0f} of {n[1]:.0f} layers are {mixer_name(row)}, with no positions to "
                          "rotate",
    }[f.code]()
