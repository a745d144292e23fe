"""The image section of the 'no sense of order' page: a picture and its shuffled patches, summarised alike.

Every number comes from a cached core call (posenc_core.why_position.patch_experiment); this module lays out the
controls, the figure, the code to copy and the text around them.
"""

from __future__ import annotations

import streamlit as st

from page_kit import classroom, controls, figures
from page_kit.chart.render import show
from page_kit.i18n import _
from page_kit.lesson import formula, notice
from page_kit.lesson.code_lines import fold
from posenc_core.why_position import patch_experiment


@st.cache_data(max_entries=32, show_spinner=False)
def patches(patch: int, seed: int, positions: bool, pooling: str):
    return patch_experiment(48, patch, seed, 32, positions, pooling)


def shuffled_image_section(positions: bool, pooling: str) -> None:
    """The 'Shuffle an image' tab, for the page's positions toggle and pooling choice."""
    i1, i2 = st.columns(2)
    with i1:
        patch = controls.select_slider(_("Patch size (pixels)"), "patch", [4, 6, 8, 12, 16, 24], 8)
    with i2:
        image_seed = controls.slider(_("Patch shuffle seed"), "iseed", 0, 99, 3)
    shown = patches(patch, image_seed, positions, pooling)
    show(figures.small_multiples(
        [shown.image, shown.shuffled], [_("the picture"), _("its patches, shuffled")],
        title=_("A 48 x 48 picture cut into {patch} x {patch} patches").format(patch=patch), cols=2,
        value_name=_("brightness"), x_title=_("x (pixel)"), y_title=_("y (pixel)"), cell_px=330, signed=False,
        name="order_patches",
        alt=_("A small picture of a house, a sun and a hill, next to the same picture with its patches "
              "shuffled.")))
    picture = classroom.call("patch_experiment", 48, patch, image_seed, 32, positions, pooling)
    classroom.snippet(fold(f"shown = {picture}", "a PatchExperiment"),
                      "image, shuffled = shown.image, shown.shuffled  # (48, 48) each: the panels")
    st.metric(_("Largest difference between the pooled summaries of the two pictures"),
              f"{shown.pooled_gap:.1e}")
    formula(r"\max\big|\mathrm{$pool}(\mathrm{Attn}(X)) - \mathrm{$pool}(\mathrm{Attn}(PX))\big| = $gap",
            pool=pooling, gap=shown.pooled_gap, digits=3)
    if positions:
        notice(_("Each patch becomes one token (its pixels times a fixed matrix, as in a Vision Transformer). "
                 "Without positions the layer receives a *bag of patches*: the house and the jumble give the "
                 "same summary, so no classifier built on top could tell them apart. With positions on, the "
                 "summaries differ."))
    else:
        notice(_("Each patch becomes one token (its pixels times a fixed matrix, as in a Vision Transformer). "
                 "Without positions the layer receives a *bag of patches*: the house and the jumble give the "
                 "same summary, so no classifier built on top could tell them apart."))
    st.markdown(_("**When order-free is exactly right.** Some inputs *are* sets: the counties in a "
                  "table of weather stations, the items in a shopping basket, the objects in a scene. "
                  "A point cloud is a good example: each point carries its own (x, y, z) coordinates, "
                  "so its position is already in the content, and treating the cloud as an unordered "
                  "set is correct. There, attention without positional encoding is a feature "
                  "(Set Transformers and point-cloud transformers rely on it), not a bug."))
