import numpy as np
import streamlit as st

import posenc_core as pc
from lessons.diffusion import words
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why

MODELS = ["FLUX.1-dev", "Qwen-Image", "HunyuanVideo", "Wan2.1-T2V-14B"]
SIZES = [512, 768, 1024, 1328, 1536, 2048, 3072, 4096]  # pixels along the width

header("Changing the resolution",
       "A bigger image means more token columns, so the width ids run further than in training. Leave them, "
       "squeeze them back, or slow the pairs down (linear_factor, ntk_factor): see what each does to every pair.")
WHY = ("Rotary ids count tokens, so an image twice as wide has column ids running twice as far: the fast pairs "
       "simply turn more often (they only ever compare neighbours), but the slowest pairs reach angles the model "
       "never saw in training. The long-context section met the same problem for language. Three remedies exist "
       "in diffusers' code. Interpolating the ids squeezes the new grid into the trained range, as CogVideoX 1.0's "
       "linspace grid does for any size: every pair sees trained angles, but neighbouring tokens move closer. "
       "`linear_factor` in `get_1d_rotary_pos_embed` divides every frequency, which gives the same angles. "
       "`ntk_factor` multiplies θ instead: the fastest pair keeps its speed, and the slower a pair, the more it "
       "slows, so local detail stays sharp while the slowest pairs stay inside their trained range.")


# the remedies' names on the page (and in the URL), by pc.diffusion.RESOLUTION_METHODS code
METHOD_NAMES = {"interpolate_ids": "interpolate the ids", "linear_factor": "linear_factor", "ntk_factor": "ntk_factor"}


def labelled(view, method: str) -> dict:
    """The view's three series under the legend's labels: trained, new with ids unchanged, new with the remedy."""
    return {f"trained, {view.trained} tokens": view.series.trained,
            f"{view.new} tokens, ids unchanged": view.series.unchanged,
            f"{view.new} tokens, {METHOD_NAMES[method]}": view.series.remedied}


@st.cache_data(max_entries=32, show_spinner=False)
def resolution(name: str, trained_px: int, new_px: int, method: str) -> pc.diffusion.ResolutionView:
    return pc.diffusion.dit_resolution_view(name, trained_px, new_px, method)


@st.fragment
def lesson():
    page = stage()
    with page.side:
        name = controls.select("Model", "model", MODELS)
        new_px = controls.select_slider("New width (px)", "w", SIZES, 2048)
        method = controls.select("Remedy", "method", list(pc.diffusion.RESOLUTION_METHODS), index=2,
                                 format_func=lambda m: METHOD_NAMES.get(m, m))
    preset = pc.diffusion.dit_preset(name)
    with page.more:
        trained_px = controls.select_slider("Trained width (px)", "tw", SIZES, 1024,
                                            help=f"{name} is released at {preset.size[0]} x {preset.size[1]} px.")
    with page.main, guard():
        view = resolution(name, trained_px, new_px, method)
        dim, trained, new = view.dim, view.trained, view.new
        hand = {"w": new_px, "tw": trained_px, "model": name, "method": method}  # the figures' view, by URL key
        show(hero(problem_chart, **hand))
        classroom.snippet(f"series = pc.diffusion.dit_resolution_turns({dim}, {preset.theta}, {trained}, {new}, "
                          f"{method!r})",
                          "# series.trained, .unchanged, .remedied: (pairs,) turns across the width; the table with "
                          "ids left as they are",
                          "# (the remedies pass their own ntk_factor / linear_factor):",
                          f"cos, sin = pc.diffusion.dit_rotary_1d({dim}, range({new}), {preset.theta}, ntk_factor=1.0, "
                          "linear_factor=1.0)")
        remedy(method, view, hand)
        explain(preset, view)


def problem_chart(w: int, tw: int, model: str, method: str):
    view = resolution(model, tw, w, method)
    dim, trained, new = view.dim, view.trained, view.new
    series = labelled(view, method)  # trained, new with ids unchanged, new with the remedy
    keys = list(series)
    first, last = view.fastest, view.slowest
    return figures.padded(figures.lines(
        np.arange(dim // 2), {k: series[k] for k in keys[:2]}, markers=True, log_y=True,
        hlines=[(1.0, "one full turn")], title=f"{model}: width pairs' turns, {tw} px trained, {w} px asked",
        x_title="width pair j (fast → slow)", y_title="turns across the image", hover_format=",.4g",
        name="dit_resolution",
        alt=f"{dim // 2} width pairs on a log scale. Trained, {trained} columns: {first.trained:,.1f} to "
            f"{last.trained:.4f} turns. {new} columns with ids unchanged: {first.unchanged:,.1f} to "
            f"{last.unchanged:.4f}."), left=80)


def remedy_chart(w: int, tw: int, model: str, method: str):
    view = resolution(model, tw, w, method)
    dim, series = view.dim, labelled(view, method)
    keys = list(series)
    first, last = view.fastest, view.slowest
    return figures.padded(figures.lines(
        np.arange(dim // 2), series, markers=True, log_y=True, dashed=[keys[1]],
        hlines=[(1.0, "one full turn")], title=f"{model}: the same pairs with {METHOD_NAMES[method]}",
        x_title="width pair j (fast → slow)", y_title="turns across the image", hover_format=",.4g",
        name="dit_resolution_remedy",
        alt=f"Three curves over {dim // 2} width pairs: trained {first.trained:,.1f} to {last.trained:.4f} "
            f"turns, ids unchanged {first.unchanged:,.1f} to {last.unchanged:.4f}, {METHOD_NAMES[method]} "
            f"{first.remedied:,.1f} to {last.remedied:.4f}."), left=80)


def remedy(method, view, hand):
    """Predict what the remedy does to the fastest pair; the answer is the figure with the remedy added."""
    trained, new, name = view.trained, view.new, METHOD_NAMES[method]
    first, last = view.fastest, view.slowest

    def reveal() -> str:
        return (f"With {name}, the fastest width pair turns {first.remedied:,.1f} times across {new} columns "
                f"(ids unchanged: {first.unchanged:,.1f}; trained: {first.trained:,.1f} across {trained}); the "
                f"slowest turns {last.remedied:.4f} times (ids unchanged: {last.unchanged:.4f}; trained: "
                f"{last.trained:.4f}).")

    with classroom.predict("dit_res_fast", f"Remedy: {name}. What happens to the fastest width pair across "
                           f"the {new}-column image, against leaving the ids unchanged?",
                           ["it keeps its speed", "it slows down"], 0 if view.keeps_fastest else 1, reveal):
        show(hero(remedy_chart, **hand))


def explain(preset, view):
    dim, ratio = view.dim, view.ratio
    formula(r"\omega_j = \frac{(\theta\cdot\text{ntk})^{-2j/d}}{\text{linear}}")
    formula(r"d = $d,\ \theta = $t,\ \text{new}/\text{trained} = $r", d=dim, t=preset.theta, r=ratio)
    notice(f"Pairs above the 'one full turn' line wrap around within the image; pairs below it turn less "
           "than once, so their angle alone says how far across the image a token is, and those are the ones "
           f"that meet untrained angles when the ids run {ratio:g} times further. Interpolated ids and "
           "linear_factor lie on the trained curve: every angle stays familiar, but two neighbouring tokens are "
           "now closer than any two tokens in training. ntk_factor here is ratio^(d/(d−2)), which slows the "
           f"slowest pair by exactly {ratio:g} and the fastest not at all. None of the models of this section "
           "sets these factors in diffusers: FLUX, Qwen-Image, Wan and HunyuanVideo extend the ids, SD3 crops a "
           "fixed table, CogVideoX 1.0 interpolates its grid. Lumina-Next's pipeline is the one that passes "
           "them: its resolution scale as linear_factor during the early, noisy steps and as ntk_factor (the "
           "scale itself, not the exponent used here) during the later ones.")
    st.caption(" · ".join(f"{k}: {v}" for k, v in words.CITES[preset.name].items()))


lesson()
why(WHY)
source(pc.diffusion.dit_rotary_1d, pc.diffusion.dit_resolution_turns)
