"""The figures of the layer-by-layer pages: the strip of layers, and one layer's pairs and scores.

Each function takes what ``posenc_core`` computed (layer rows, groups, ``LayerPairs``) and draws one
section: figure, what to notice, formula. No math here.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

from page_kit import figures
from page_kit.chart import figure_control
from page_kit.chart.render import show
from page_kit.lesson import formula, notice
from page_kit.lesson.config_words import BAND_WORDS, layer_label, mixer_name
from page_kit.navigation import registry

PAIR_BAND_COLOURS = {"turns in its window": "#0072B2", "turns in the context": "#009E73",
                     "never a full turn": "#D55E00", "frequency 0": "#999999"}

# Which lesson explains a feature of a layer (skipped when that page is not registered).
FEATURE_LESSONS = {
    "window": ("local_global", "Local and global layers"),
    "nope": ("nope_layers", "Layers without positions, and query temperature"),
    "mixer": ("hybrids", "Hybrids: attention among recurrent layers"),
    "sink": ("attention_sinks", "Attention sinks"),
    "latent": ("latent_attention", "Latent attention's shared rotated key"),
    "fraction": ("fewer_frequencies", "Fewer frequencies: partial, p-RoPE, proportional"),
    "mrope": ("mm_pair_axes", "Multimodal RoPE: which pairs carry which axis"),
    "scaling": ("extension", "Extending RoPE's context"),
    "rope": ("rope", "RoPE: one rotation"),
    "dca": ("dual_chunk", "Dual chunk attention (Qwen2.5-1M)"),
}


def stacked_legend(chart, entries: int):
    """One legend entry per line below the plot, clear of the axis title at any font size (long labels here).

    At the bottom of the figure's own box (container coordinates), where plotly sizes the bottom margin to it:
    placed at a fraction of the plot's height below the axis (y = -0.3), it left a blank band that grew with
    the plot."""
    chart.figure.update_xaxes(automargin=True)
    chart.figure.update_layout(
        legend=dict(orientation="h", entrywidth=1.0, entrywidthmode="fraction", yref="container", yanchor="bottom",
                    y=0, x=0, xref="container"),
        height=(chart.figure.layout.height or 440) + 26 * entries)
    return chart


def features(row) -> list[str]:
    """The FEATURE_LESSONS keys that apply to one layer row."""
    keys = []
    if not row.is_attention:
        return ["mixer"]
    if row.window or row.chunk:
        keys.append("window")
    if not row.rotates or row.query_scale:
        keys.append("nope")
    if row.sink:
        keys.append("sink")
    if row.latent:
        keys.append("latent")
    if row.rotates and (row.partial_rotary_factor < 1 or row.rope_type == "proportional"):
        keys.append("fraction")
    if row.mrope:
        keys.append("mrope")
    if row.rotates and row.rope_type not in ("default", "proportional"):
        keys.append("scaling")
    return keys or ["rope"]


def lesson_links(keys) -> None:
    """Links to the lessons behind these features, for the pages that exist in this build."""
    pages = [(registry.page(FEATURE_LESSONS[k][0]), FEATURE_LESSONS[k][1]) for k in dict.fromkeys(keys)]
    pages = [(info, label) for info, label in pages if info is not None]
    if pages:
        row = st.container(horizontal=True)
        for info, label in pages:
            row.page_link(info.path, label=label, icon=info.icon)


def strip(rows, groups, table, *, name: str, title: str, picks: tuple[str, str, str] | None = None) -> None:
    """The model as a strip: what each layer mixes with, and what it does with positions.

    ``picks`` (layer key, tabs key, tab label): a click on a layer's cell sets the layer slider and opens the
    tab that shows that layer."""
    hover = [f"{t}: {m}; {p} {theta} {pairs}".strip() for t, m, p, theta, pairs in
             zip(table["layer type"], table["mixer"], table["positions"], table["θ"], table["pairs turning"],
                 strict=True)]
    mixers = [(f"sliding window of {r.window:,} tokens" if r.window else "sliding window (no width in the config)")
              if r.mixer == "sliding_window" else
              f"chunks of {r.chunk:,} tokens" if r.chunk else
              mixer_name(r) + (f", window {r.window:,}" if r.window else "") for r in rows]
    label_of = {i: layer_label(g.row) for g in groups for i in g.layers}
    positions = [label_of[r.index] for r in rows]
    chart = figures.category_strip(
        table["layer"], {"positions": positions, "mixer": mixers}, hover={"positions": hover, "mixer": hover},
        title=title, x_title="layer", name=name,
        alt=f"One cell per layer ({len(rows)} layers): the top row colours each layer by what it mixes tokens with "
            "(full attention, a sliding window, chunks, linear attention, state space, convolution); the bottom "
            "row by what it does with positions (the RoPE setting, or NoPE).")
    if picks is not None:
        layer_key, tabs, label = picks
        chart = figure_control.pick(chart, x=layer_key, opens=(tabs, label))
    show(chart)


def pairs_figure(pairs, *, who: str, context: int, name: str, trained: int | None = None, window: int | None = None,
                 chunk: int | None = None) -> None:
    """One layer's pairs (``who``: "Layer 5", or the model): wavelength against its window and the context."""
    wavelength = np.where(np.isfinite(pairs.wavelength), pairs.wavelength, np.nan)
    band = np.array([BAND_WORDS[b] for b in pairs.band], dtype=object)  # the legend's words
    hlines = []
    if window:
        hlines.append((window, f"window {window:,}"))
    if chunk:
        hlines.append((chunk, f"chunk {chunk:,}"))
    if trained and trained not in (context, window, chunk):
        hlines.append((trained, f"L {trained:,}"))
    hlines.append((context, f"context {context:,}"))
    chart = figures.banded_lines(
        pairs.pair, {"wavelength": wavelength}, band, band_colors=PAIR_BAND_COLOURS,
        title=f"{who}: wavelength of each pair", x_title="rotary pair i",
        y_title="wavelength (positions, log)", log_y=True, hlines=hlines, hover_format=",.1f", name=name,
        alt=f"Log-scale wavelength of each rotary pair ({who}), with "
            + " and ".join(label for _, label in hlines)  # the lines as the figure labels them
            + f" as {'horizontal lines' if len(hlines) > 1 else 'a horizontal line'}; shading groups the pairs by "
            "whether they complete a turn inside the span the layer sees, inside the context, or never.")
    show(stacked_legend(chart, 1 + len(set(pairs.band))))
    counts = {BAND_WORDS[b]: n for b, n in pairs.band_counts.items()}
    span = pairs.span
    parts = [f"{counts['turns in its window']} pairs turn at least once inside the {span:,} tokens this "
             "layer sees" if span < context else
             f"{counts['turns in the context']} pairs turn at least once inside the context"]
    if span < context:
        parts.append(f"{counts['turns in the context']} more only inside the context, which this layer never "
                     "sees at once")
    parts.append(f"{counts['never a full turn']} never complete a turn inside {context:,} tokens")
    if counts["frequency 0"]:
        parts.append(f"{counts['frequency 0']} have frequency 0 and carry no position at all")
    notice(f"Of the {len(pairs.pair)} pairs, " + "; ".join(parts) + ". A pair only tells positions apart inside one "
           "wavelength; a pair much slower than the span a layer sees barely turns there and carries content, "
           "not position.")


def score_figure(distances, scores, *, who: str, context: int, name: str, window: int | None = None,
                 chunk: int | None = None) -> None:
    vlines = [(v, label) for v, label in ((window, "window"), (chunk, "chunk")) if v]
    vlines.append((context, "context"))
    show(figures.roomy_lines(
        distances, {who: scores}, title="Score of a query with an identical key at distance r",
        x_title="distance r (positions, log)", y_title="a² · mean cos(rθ)", log_x=True,
        vlines=[(v, f"{label} {v:,}") for v, label in vlines], name=name,
        alt=f"Score versus distance for q = k = all ones under the frequencies of {who}, on a log "
            "distance axis, with the span attended over and the context marked."))


def query_scale_figure(positions, scale, row, start: int, *, name: str) -> None:
    rule = row.query_scale
    show(figures.roomy_lines(
        positions, {"query scale": scale}, title=f"Layer {row.index}: factor on the query at position p",
        x_title="position p (log)", y_title="scale", log_x=True, name=name, hover_format=".4f",
        alt="The factor the model multiplies each query by, against position, on a log axis."))
    if rule.rule == "llama4_temperature":
        formula(r"s(p) = 1 + $a\,\log\!\left(1 + \left\lfloor \frac{p+1}{$f} \right\rfloor\right)",
                a=rule.weight, f=int(rule.step))
    else:
        formula(r"s(p) = 1 + $b\,\log\!\left(1 + \left\lfloor \frac{p}{$f} \right\rfloor\right)",
                b=rule.weight, f=int(rule.step))
    notice(f"The scale is exactly 1 up to position {start - 1:,} and from position {start:,} on grows in steps, "
           "with the logarithm of how many steps in the query sits. Multiplying a query sharpens its "
           "softmax, which keeps attention from flattening out over very long inputs.")


def theta_formula(row, pairs) -> None:
    turning = pairs.turning
    first, last = float(pairs.wavelength[0]), float(pairs.wavelength[turning - 1])
    prime = "'" if row.scaling and row.rope_type not in ("default", "proportional") else ""
    # two lines: on one, a 10^7 wavelength ran past the figure column of a projector
    formula(r"\begin{gathered}\theta_i = $b^{-2i/$d},\; i = 0..$n\\ \lambda${p}_0 = $w0,\; \lambda${p}_{$n} = $wl"
            r"\end{gathered}",
            p=prime,
            b=row.theta, d=int(row.head_dim * row.partial_rotary_factor) if row.rope_type != "proportional"
            else row.head_dim, n=turning - 1, w0=first, wl=last)
    if row.scaling:
        extra = {k: v for k, v in row.scaling.items() if k not in ("rope_type", "type")}
        if extra:
            st.caption(f"Then {row.rope_type} scaling (λ′ are the wavelengths after it) with " + ", ".join(
                f"{k} = {v if not isinstance(v, list) else f'{len(v)} values'}" for k, v in extra.items())
                       + f"; attention factor {pairs.attention_factor:.4f}.")


def compare_figure(views, *, context: int, name: str) -> None:
    """The wavelengths of every distinct rotating setting of a model on one axis, with each one's span."""
    longest = max(v.pair.shape[0] for v in views.values())
    x = np.arange(longest, dtype=np.float64)
    series = {}
    for label, view in views.items():
        wl = np.full(longest, np.nan)
        finite = np.isfinite(view.wavelength)
        wl[: view.pair.shape[0]][finite] = view.wavelength[finite]
        series[label] = wl
    spans = sorted({v.span for v in views.values() if v.span < context})
    show(stacked_legend(figures.roomy_lines(
        x, series, title="Wavelength of each pair, per layer setting", x_title="rotary pair i",
        y_title="wavelength (positions, log)", log_y=True, markers=True, hover_format=",.1f", name=name,
        hlines=[(s, f"span {s:,}") for s in spans] + [(context, f"context {context:,}")],
        alt="Log-scale wavelength of each rotary pair for every distinct RoPE setting of the model, with the "
            "windows or chunks and the context as horizontal lines."), len(series)))
    parts = []
    for label, view in views.items():
        span = view.span
        inside = view.turn_in_span
        parts.append(f"{label}: {inside} of {view.pair.shape[0]} pairs turn within the "
                     f"{span:,} tokens it sees")
    notice("; ".join(parts) + ". Local layers pair a short span with fast rotations that turn many times inside "
           "it; global layers see the whole context and need slow pairs (or none) to tell far positions apart.")
