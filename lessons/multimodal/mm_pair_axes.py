import streamlit as st

from lessons.multimodal import multimodal_views, xdrope_views
from page_kit import classroom, figures, formula, guard, header, notice, show, source, stage, why
from posenc_core.multimodal import (
    MM_FAMILIES,
    mm_allocation_summary,
    mm_family_axis_table,
    mm_pair_axes,
    mm_pair_wavelengths,
    mm_rope_settings,
    mm_slow_pairs,
    mm_wavelength_ranges,
)

# one colour per axis, the same three as the id rows on the previous page (Okabe & Ito)
AXIS_SCALE = [[0.0, figures.CATEGORICAL[0]], [1 / 3, figures.CATEGORICAL[0]], [1 / 3, figures.CATEGORICAL[1]],
              [2 / 3, figures.CATEGORICAL[1]], [2 / 3, figures.CATEGORICAL[2]], [1.0, figures.CATEGORICAL[2]]]

IMAGE_WIDTH = 64  # tokens: a wide image after the 2 x 2 merge (e.g. 1,792 px at 14 px patches)

header("Which pairs carry which axis",
       "Each rotary pair of a head turns with one of a token's three ids: time, row or column (four in HunYuan-VL). "
       "Where a family puts each axis, among the fast pairs or the slow ones, decides which axis can tell near from "
       "far.")
WHY = ("A rotary head is a set of pairs, each turning at its own speed, from very fast (a few tokens per turn) to "
       "very slow. With three ids per token the model must decide which pairs turn with time, which with the row "
       "and which with the column. The families here answer differently: contiguous blocks, a repeating "
       "time-height-width cycle, or height and width alternating with time kept for the slowest pairs. The choice "
       "decides which axis can tell near from far.")


@st.cache_data(max_entries=16, show_spinner=False)
def all_families():
    """(family labels, (families, pairs) axis table) at every family's released settings."""
    keys, grid = mm_family_axis_table()
    return [f"{MM_FAMILIES[k].name} ({MM_FAMILIES[k].allocation})" for k in keys], grid


@st.fragment
def lesson():
    page = stage()
    with guard():
        model = multimodal_views.picked_model(page)
        settings = multimodal_views.settings_of(model)
        tab_model, tab_all, tab_xd = page.sections(["This model's pairs", "All families side by side",
                                                    "XD-RoPE (HunYuan-VL)"])
        if tab_model.open:
            with tab_model:
                model_section(model, settings)
        if tab_all.open:
            with tab_all:
                families_section()
        if tab_xd.open:
            with tab_xd:
                xdrope_views.xd_tab(page)


def model_section(model, settings):
    series = mm_pair_wavelengths(settings)
    ranges, summary = mm_wavelength_ranges(settings), mm_allocation_summary(settings)
    slowest = summary.slowest_axis
    counts = ", ".join(f"{r.pairs} {name}" for name, r in ranges.items())
    show(figures.padded(figures.lines(
        list(range(settings.n_pairs)), series, markers=True, log_y=True, colours=multimodal_views.AXIS_COLOURS,
        title=f"{model.name}: each rotary pair's wavelength, coloured by the id that turns it",
        x_title="rotary pair j (fast → slow)", y_title="wavelength 2π/θ_j (positions)", hover_format=",.1f",
        height=400, name="mm_pair_wavelengths",
        alt=f"Wavelength of each of the {settings.n_pairs} pairs of {model.name} on a log scale; "
            f"{settings.allocation} allocation: {counts} pairs; the slowest pair turns with {slowest}."), left=96))
    classroom.snippet(multimodal_views.settings_code(model),
                      "# {axis: (n_pairs,) wavelength in positions, NaN where another axis turns the pair}",
                      "waves = pc.multimodal.mm_pair_wavelengths(settings)")
    width = ranges["width"]
    slow = mm_slow_pairs(settings, "width", IMAGE_WIDTH)

    def too_slow() -> str:
        return (f"{slow} of the {width.pairs} width pairs have a wavelength over {IMAGE_WIDTH} positions "
                f"(they run from {width.shortest:,.1f} to {width.longest:,.0f}), so they turn less than "
                f"once across the image; the table below lists each axis's range.")

    with classroom.predict("mm_axes_wide", f"An image {IMAGE_WIDTH} tokens wide. How many of {model.name}'s "
                           f"{width.pairs} width pairs turn less than once across it?",
                           ["none of them", "some, not all", "all of them"],
                           0 if slow == 0 else 2 if slow == width.pairs else 1, too_slow):
        st.dataframe({"axis": list(ranges), "pairs": [r.pairs for r in ranges.values()],
                      "shortest wavelength": [f"{r.shortest:,.1f}" for r in ranges.values()],
                      "longest wavelength": [f"{r.longest:,.0f}" for r in ranges.values()]},
                     hide_index=True, width="stretch")
        notice(allocation_text(settings, ranges, summary))
    layout = "(j,\\ j + r/2)" if settings.pair_layout == "half" else "(2j,\\ 2j+1)"
    formula(r"\theta_j = $b^{-2j/$r},\ j < $n,\qquad \text{angle}_j = \text{id}_{\text{axis}(j)}\cdot\theta_j,"
            r"\qquad \text{pair } j = \text{dimensions } " + layout, b=settings.rope_theta, r=settings.rotary_dim,
            n=settings.n_pairs)
    section = list(settings.mrope_section)
    order = "(height, width, time)" if settings.allocation == "ernie3d" else "(time, height, width)"
    formula(r"\texttt{mrope\_section} = $s\ \text{pairs } " + r"\text{" + order + "}", s=str(section))


def allocation_text(settings, ranges, summary) -> str:
    """What the chosen family's split means, in the numbers of ``ranges`` (pc.multimodal.mm_wavelength_ranges) and
    ``summary`` (pc.multimodal.mm_allocation_summary)."""
    t, h, w = ranges["time"], ranges["height"], ranges["width"]
    if settings.allocation == "chunked":
        what = (f"Contiguous blocks: time takes the {t.pairs} fastest pairs (wavelengths {t.shortest:,.1f} to "
                f"{t.longest:,.0f}), height the next {h.pairs}, and width only the slowest {w.pairs} "
                f"(from {w.shortest:,.0f} positions up). An image is rarely more than 100 tokens wide, so the "
                "width pairs barely turn across it and columns are hard to tell apart, while time, which changes "
                "slowly in a video, spends the fast pairs.")
    elif settings.allocation == "interleaved":
        what = (f"Interleaved: the pairs cycle time, height, width, so every axis has fast and slow pairs: time "
                f"from {t.shortest:,.1f}, height from {h.shortest:,.1f}, width from {w.shortest:,.1f} "
                "positions. " + (f"The {summary.slowest_run} slowest pairs all belong to {summary.slowest_axis}, "
                                 "past the end of the cycle." if summary.slowest_run > 1 else
                                 f"The slowest pair belongs to {summary.slowest_axis}."))
    else:
        what = (f"ERNIE's 3D layout: height and width alternate over the {summary.spatial_pairs} fastest pairs "
                f"(both from {summary.spatial_shortest:,.1f} positions), and time takes only the "
                f"{t.pairs} slowest (from {t.shortest:,.0f} positions): a token's place in the image is "
                "resolved finely, its time coarsely.")
    if summary.still_dims:
        what += (f" Only {settings.rotary_dim} of the {settings.head_dim} dimensions of a head rotate "
                 f"(partial_rotary_factor {summary.rotary_fraction:g}); the other "
                 f"{summary.still_dims} carry no position, so all three axes share "
                 f"{settings.n_pairs} pairs.")
    return what


def families_section():
    names, grid = all_families()
    show(figures.padded(figures.heatmap(
        grid, title="Axis of each rotary pair, every family at its released settings", x_title="rotary pair j",
        y_title="", y=names, value_name="axis (0 time, 1 height, 2 width)", colorscale=AXIS_SCALE, zrange=(0, 2),
        hover_format=".0f", height=380, name="mm_axes_families",
        alt=f"{len(names)} rows, one per family, one cell per rotary pair, coloured by axis: blocks for "
            "Qwen2-VL, Qwen2.5-VL and GLM, a repeating three-colour stripe for Qwen3-VL, Qwen3.5 and Qwen3-Omni, "
            "alternating height and width then a time block for ERNIE. Qwen3.5 and GLM rotate 32 pairs, the "
            "others 64."), left=260))
    classroom.snippet("# {family: (n_pairs,) axis of each pair, 0 time, 1 height, 2 width}: the rows",
                      "axes = {key: pc.multimodal.mm_pair_axes(pc.multimodal.mm_rope_settings(key))\n        for key "
                      "in pc.multimodal.MM_FAMILIES}")
    notice("Read each row from the fastest pair on the left to the slowest on the right; the colour key names the "
           "axis (0 time, 1 height, 2 width: the colours of the id rows), and hovering a cell names it too. "
           "Qwen2-VL's blocks give time the fastest pairs and width the slowest; Qwen3-VL's cycle spreads each "
           "axis over the whole range, which Qwen3-VL's release describes as full-frequency allocation over "
           "time, height and width; ERNIE keeps time to the slowest pairs. "
           "Qwen3.5 and GLM rotate only part of the head (32 pairs), so their rows end early.")


lesson()
why(WHY)
source(mm_pair_axes, mm_wavelength_ranges, mm_rope_settings)
