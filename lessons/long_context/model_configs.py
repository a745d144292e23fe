import json

import streamlit as st

import posenc_core as pc
from page_kit import controls, extension_views, formula, guard, header, notice, sections, source

EXAMPLE = json.dumps(pc.preset_config("llama3.1-8b"), indent=2)


@st.cache_data(max_entries=32, show_spinner=False)
def analyse(config_text: str, layer: str | None):
    """Everything the page draws for one config (given as canonical JSON text, so the cache key is a string)."""
    config = json.loads(config_text)
    read = pc.read_rope_config(config, layer)
    rows = pc.describe_rope_config(config, layer)
    original, target, how = pc.config_contexts(read)
    result = pc.extension_analysis(read.head_dim, read.base, read.scaling or None, original=original, target=target,
                                   partial_rotary_factor=read.partial_rotary_factor,
                                   max_position_embeddings=read.max_position_embeddings)
    distances, before = pc.score_vs_distance(result["inv_freq_before"], 1.0, 4 * target)
    _, after = pc.score_vs_distance(result["inv_freq_after"], result["attention_factor"], 4 * target)
    return read, rows, how, result, distances, before, after, pc.deepseek_softmax_mscale(read.scaling)


def _uploaded_text(uploaded) -> str:
    if uploaded.size > pc.MAX_CONFIG_BYTES:  # checked before the file is read
        raise ValueError(f"{uploaded.name} is {uploaded.size:,} bytes; the limit for a config.json here is "
                         f"{pc.MAX_CONFIG_BYTES:,} bytes. Did you pick the weights or the tokenizer instead?")
    return json.dumps(pc.parse_config_json(uploaded.getvalue()))


header(
    "Model presets and config.json",
    "Everything on the previous pages, for a real model. Pick a well-known model, whose RoPE settings are "
    "kept here with the config file they come from, or paste or upload any config.json: the page reads it "
    "the way Hugging Face transformers does, shows what it read, and draws the pair-by-pair picture."
)


@st.fragment
def lesson():
    c1, c2 = st.columns([1, 2])
    with c1:
        origin = controls.choice("Source", "src", ["preset", "json"], "preset",
                                 format_func=lambda v: {"preset": "A well-known model", "json": "Your config.json"}[v])
    with guard():
        if origin == "preset":
            with c2:
                key = controls.select("Model", "model", list(pc.PRESETS),
                                      format_func=lambda k: pc.PRESETS[k].name)
            preset = pc.PRESETS[key]
            st.markdown(f"**Source:** [`{preset.model_id}`](https://huggingface.co/{preset.model_id}), "
                        f"{preset.source}. {preset.note}")
            config_text = json.dumps(preset.config)
        else:
            with c2:
                uploaded = st.file_uploader("Upload config.json", type=["json"], key="upload",
                                            help=f"At most {pc.MAX_CONFIG_BYTES:,} bytes.")
            # Not bound to the URL: a config can be many kilobytes; share a preset link instead.
            text = st.text_area("… or paste it here", EXAMPLE, height=220, key="cfg",
                                max_chars=pc.MAX_CONFIG_BYTES)
            config_text = _uploaded_text(uploaded) if uploaded is not None else json.dumps(pc.parse_config_json(text))
        layer = None
        layers = pc.rope_layer_types(json.loads(config_text))
        if layers:
            default = layers.index("full_attention") if "full_attention" in layers else 0
            layer = controls.select("Layer type", "layer", layers, default,
                                    help="This config gives each kind of layer its own RoPE settings.")
        read, rows, how, result, distances, before, after, softmax_mscale = analyse(config_text, layer)
        original, target = int(result["original"]), int(result["target"])
        label = read.rope_type if read.rope_type != "default" else "no scaling"

        tab_read, tab_pairs, tab_angle, tab_score = sections(
            ["What was read", "Per pair", "Angles reached", "Score vs distance"])
        if tab_read.open:
            with tab_read:
                st.dataframe({"setting": [r[0] for r in rows], "value": [r[1] for r in rows],
                              "read from": [r[2] for r in rows]}, hide_index=True, width="stretch")
                m1, m2, m3, m4 = st.columns(4)
                m1.metric("L (trained)", f"{original:,}")
                m2.metric("L′ (target)", f"{target:,}", f"× {result['factor']:g}")
                m3.metric("Attention factor a", f"{result['attention_factor']:.4f}")
                m4.metric("Softmax scale × (DeepSeek)", f"{softmax_mscale:.4f}")
                st.caption(f"How L and L′ were chosen: {how}.")
                notice("These are the values transformers' rotary code uses: head_dim, the base, the scaling type "
                       "and its parameters, and how much of each head rotates. Legacy names are translated as "
                       "transformers does (rotary_pct, rotary_emb_base, type, Phi-3's 'su', DeepSeek's "
                       "qk_rope_head_dim).")
                formula(r"\theta_i = $b^{-2i/$r},\quad i = 0,\dots,$n", b=read.base, r=read.rotary_dim,
                        n=read.rotary_dim // 2 - 1)
        if tab_pairs.open:
            with tab_pairs:
                extension_views.wavelengths(result, name="cfg_wavelengths", label=label)
                extension_views.ratio(result, name="cfg_ratio", label=label)
                extension_views.factor_table(result)
        if tab_angle.open:
            with tab_angle:
                extension_views.angles(result, name="cfg_angles", label=label)
        if tab_score.open:
            with tab_score:
                extension_views.score(distances, before, after, result, name="cfg_score", label=label)


lesson()
source(pc.read_rope_config, pc.parse_config_json, pc.config_contexts)
