"""The figures, sentences and question of the Local and global layers lesson (numbers from the core)."""

from __future__ import annotations

import contextlib

import numpy as np
import streamlit as st

from page_kit import classroom, figures
from page_kit.lesson import layer_views
from page_kit.lesson.config_words import fact_sentence
from posenc_core.configs import PRESETS
from posenc_core.todays_models import LayerRope, LocalGlobalModel, LocalGlobalView

KINDS = {"local": "sliding-window layers", "full": "full-attention layers"}


def per_pair(values_local, values_full):
    """Two per-pair arrays on one pair axis (the layer kinds may have different head sizes); NaN pads."""
    n = max(values_local.size, values_full.size)
    padded = [np.pad(np.asarray(v, dtype=np.float64), (0, n - v.size), constant_values=np.nan)
              for v in (values_local, values_full)]
    return np.arange(n), padded


def describe(layer: LayerRope) -> str:
    kind = {"default": "plain RoPE", "linear": f"linear × {layer.scaling.get('factor', 1):g}",
            "yarn": f"YaRN × {layer.scaling.get('factor', 1):g}",
            "proportional": "proportional RoPE"}[layer.rope_type]
    part = "" if layer.partial_rotary_factor == 1 else f", {layer.partial_rotary_factor:.1%} rotated"
    return f"θ = {layer.base:,.0f}, {kind}{part}, head_dim {layer.head_dim}"


def theta_tex(layer: LayerRope, rotated_dims: int) -> str:
    """The frequency rule of one layer kind in LaTeX, with its numbers."""
    base = f"{layer.base:,.0f}".replace(",", "{,}")
    if layer.rope_type == "proportional":
        return rf"{base}^{{-2i/{layer.head_dim}}}\ (i < {rotated_dims // 2}),\ 0\ \text{{after}}"
    plain = rf"{base}^{{-2i/{rotated_dims}}}"
    if layer.rope_type == "linear":
        return rf"{plain}\,/\,{layer.scaling['factor']:g}"
    if layer.rope_type == "yarn":
        original = f"{layer.scaling['original_max_position_embeddings']:,}".replace(",", "{,}")
        return rf"\text{{YaRN}}\big({plain},\ s = {layer.scaling['factor']:g},\ L = {original}\big)"
    return plain


def how_slow(spec: LocalGlobalModel) -> str:
    """In words: what a model's full layers change relative to its local ones."""
    local, full = spec.local, spec.full
    ways = []
    if full.base != local.base:
        ways.append(f"from a base of {full.base:,.0f} instead of {local.base:,.0f}")
    if full.rope_type == "linear":
        ways.append(f"by dividing every frequency by {full.scaling['factor']:g}")
    if full.rope_type == "yarn":
        original = full.scaling["original_max_position_embeddings"]
        ways.append(f"from YaRN × {full.scaling['factor']:g}, which slows the pairs that turn fewer than "
                    f"{full.scaling.get('beta_fast', 32):g} times in {original:,} tokens and keeps the fastest")
    if full.rope_type == "proportional":
        ways.append(f"by rotating only {full.partial_rotary_factor:.0%} of a {full.head_dim}-wide head")
    if full.head_dim != local.head_dim:
        ways.append(f"with a head of {full.head_dim} instead of {local.head_dim}")
    text = ", ".join(ways) if ways else "from the same setting as the local ones"
    if full.partial_rotary_factor != 1 and full.rope_type != "proportional":
        text += f" (both kinds rotate {full.partial_rotary_factor:.1%} of the head)"
    return text


def wavelength_chart(model: str, pairs, series, slowest: dict, window: int, context: int, name: str, what: str):
    """The wavelength per pair of the layer kinds in ``series`` (``slowest``: each one's slowest, for the alt text)."""
    return figures.stacked_lines(
        pairs, series, title=f"{model}: wavelength of each rotary pair, {what}", x_title="rotary pair i",
        y_title="wavelength (tokens, log)", log_y=True, hover_format=",.0f",
        hlines=[(window, f"window {window:,}"), (context, f"context {context:,}")], name=name,
        alt=f"Wavelength per rotary pair of {model}'s {' and '.join(series)}, on a log axis, against the window of "
            f"{window:,} tokens and the context of {context:,}; the slowest rotating pair: "
            + ", ".join(f"{k} {v:,.0f} tokens" for k, v in slowest.items()) + ".")


def ask_slowest(model: str, result: LocalGlobalView) -> contextlib.AbstractContextManager:
    """Predict: which layer kind's slowest rotating pair has the longer wavelength (finite ones only)?"""
    slowest = {k: getattr(result, k).slowest_wavelength for k in ("local", "full")}
    ratio = result.slowest_ratio
    answer = 0 if ratio > 1.0001 else 1 if ratio < 0.9999 else 2

    def reveal() -> str:
        return (f"The slowest rotating pair has a wavelength of {slowest['local']:,.0f} tokens in the sliding-window "
                f"layers and {slowest['full']:,.0f} in the full layers (×{ratio:.3g}): the highest point of each line "
                "below.")

    return classroom.predict(
        "lg_slowest", f"{model} has sliding-window and full-attention layers. Which kind's slowest "
                      "rotating pair has the longer wavelength?",
                      ["the full layers'", "the sliding-window layers'", "neither: they are equal"], answer, reveal)


def layout_words(kinds: str) -> str:
    """How the two kinds alternate: totals and the first layers as L (local) / G (full)."""
    shown = min(len(kinds), 12)
    return (f"{kinds.count('L')} sliding-window and {kinds.count('G')} full-attention layers of {len(kinds)}; "
            f"layers 0-{shown - 1}: {kinds[:shown]} (L sliding, G full)")


def source_words(spec: LocalGlobalModel) -> str:
    """Where the settings come from: the preset's checkpoint and file, read through transformers' config class."""
    preset = PRESETS[spec.preset]
    reader = f"transformers' {spec.class_name}" if spec.class_name else "the generic reading"
    return (f"{preset.model_id}, {preset.source}, read through {reader} "
            f"(preset '{spec.preset}', the same reading as Layer by layer)")


def settings_table(spec: LocalGlobalModel, result: LocalGlobalView) -> None:
    """The two layer kinds' settings side by side, the layout and source, and what Layer by layer says of each."""
    table = {"setting": ["head_dim", "rotated dimensions", "θ (rope_theta)", "rope_type", "scaling keys",
                         "keys a query sees", "attention factor"]}
    for kind, layer in (("local", spec.local), ("full", spec.full)):
        v = getattr(result, kind)
        table[KINDS[kind]] = [
            str(layer.head_dim), str(v.rotated_dims), f"{layer.base:,.0f}", layer.rope_type,
            ", ".join(f"{k} {val:g}" for k, val in layer.scaling.items()) or "none",
            f"{v.span:,} (sliding_window)" if layer.window else f"all {result.context:,}",
            f"{v.attention_factor:.4f}"]
    st.dataframe(table, hide_index=True)
    st.markdown(f"**Layout.** {layout_words(spec.kinds)}.  \n**Source.** {source_words(spec)}.")
    for kind in KINDS:  # the same sentences Layer by layer shows for these layers
        st.markdown(f"**{KINDS[kind].capitalize()}** (layer {spec.layers[kind]}):"
                    + "".join(f"\n- {fact_sentence(fact)}" for fact in spec.facts[kind]))
    # the window is this page's own lesson
    layer_views.lesson_links(f.feature for kind in KINDS for f in spec.facts[kind] if f.feature != "window")
