import streamlit as st

from page_kit import (
    N_,
    _,
    classroom,
    controls,
    figures,
    formula,
    guard,
    header,
    hero,
    notice,
    show,
    source,
    stage,
    why,
)
from page_kit.controls.settings import presentation
from page_kit.figures import FlowNode
from page_kit.lesson.code_lines import fold
from posenc_core.rope import ROPE_MODEL_PRESETS, rope_model_costs

PRESETS = list(ROPE_MODEL_PRESETS)


@st.cache_data(max_entries=16, show_spinner=False)
def costs(preset: str, seq_len: int):
    c = ROPE_MODEL_PRESETS[preset]
    return rope_model_costs(c["n_layers"], c["n_heads"], c["n_kv_heads"], c["head_dim"], seq_len,
                               partial_rotary_factor=c["partial_rotary_factor"], d_model=c["d_model"])


def diagram(model: str, m: int, n: int, tall: bool = False) -> figures.Chart:
    """One attention layer as boxes and arrows; ``tall`` (presentation mode) runs it top to bottom in three lanes,
    q, k and v, so that a projector's column holds it at the projector's type size instead of scrolling."""
    c = ROPE_MODEL_PRESETS[model]
    nodes, notes, design = (_tall_layout if tall else _wide_layout)(c, model, m, n)
    edges = [("x", "wq"), ("x", "wk"), ("x", "wv"), ("wq", "q"), ("wk", "k"), ("wv", "v"), ("q", "rq"),
             ("k", "rk"), ("rq", "score"), ("rk", "score"), ("score", "soft"), ("soft", "mix"),
             ("v", "mix"), ("mix", "wo")]
    return figures.flow_diagram(
        nodes, edges, notes=notes, title=_("One attention layer: where the rotation happens"), name="rope_flow",
        height=560 if tall else 440, design_px=design,
        alt=_("Flow diagram of one {model} attention layer: the layer input goes through W_q, W_k and W_v; only q "
              "(position {m}) and k (position {n}) are rotated; their dot product gives the scores, softmax "
              "weights the unrotated values, W_o projects the result.").format(model=model, m=m, n=n))


def _wide_layout(c: dict, model: str, m: int, n: int):
    nodes = {  # two short lines a label: the boxes are in diagram units, the text in pixels
        "x": FlowNode(0.0, 0.0, _("x, layer input<br>(normalised)"), "data", width=1.8, height=0.8),
        "wq": FlowNode(2.1, 1.25, "W_q", "weights", width=1.0),
        "wk": FlowNode(2.1, 0.0, "W_k", "weights", width=1.0),
        "wv": FlowNode(2.1, -1.25, "W_v", "weights", width=1.0),
        "q": FlowNode(3.8, 1.25, _("q at<br>position {m}").format(m=m), "data", width=1.6, height=0.8),
        "k": FlowNode(3.8, 0.0, _("k at<br>position {n}").format(n=n), "data", width=1.6, height=0.8),
        "v": FlowNode(3.8, -1.25, _("v<br>(not rotated)"), "data", width=1.6, height=0.8),
        "rq": FlowNode(5.8, 1.25, _("rotate<br>by {m}·θ_i").format(m=m), "fixed", width=1.7, height=0.8),
        "rk": FlowNode(5.8, 0.0, _("rotate<br>by {n}·θ_i").format(n=n), "fixed", width=1.7, height=0.8),
        "score": FlowNode(8.0, 0.62, _("q̃·k̃ / √d<br>(sees only m − n)"), "op", width=2.2, height=0.8),
        "soft": FlowNode(10.1, 0.62, _("softmax<br>over keys"), "op", width=1.5, height=0.8),
        "mix": FlowNode(10.1, -1.25, _("weighted sum<br>of v"), "op", width=1.5, height=0.8),
        "wo": FlowNode(12.2, -1.25, _("W_o, then<br>next layer"), "weights", width=1.5, height=0.8),
    }
    notes = [(3.0, 2.5, _("q and k are turned by their own positions<br>the same angles in all {layers} "
                          "layers · no parameters").format(layers=c["n_layers"])),
             (-0.8, -2.2, _("{model}: {heads} query heads, {kv_heads} key/value heads, head_dim "
                            "{head_dim}, rope_theta {base:,.0f}").format(
                 model=model, heads=c["n_heads"], kv_heads=c["n_kv_heads"], head_dim=c["head_dim"],
                 base=c["base"]))]
    return nodes, notes, 780


def _tall_layout(c: dict, model: str, m: int, n: int):
    q, k, v, mid, h = 0.0, 2.6, 5.2, 1.3, 0.7  # the lanes' centres, and a box's height: one line of text each
    nodes = {
        "x": FlowNode(k, 0.0, _("x, layer input (normalised)"), "data", width=2.8, height=h),
        "wq": FlowNode(q, -1.0, "W_q", "weights", width=1.0, height=h),
        "wk": FlowNode(k, -1.0, "W_k", "weights", width=1.0, height=h),
        "wv": FlowNode(v, -1.0, "W_v", "weights", width=1.0, height=h),
        "q": FlowNode(q, -2.0, _("q at position {m}").format(m=m), "data", width=1.7, height=h),
        "k": FlowNode(k, -2.0, _("k at position {n}").format(n=n), "data", width=1.7, height=h),
        "v": FlowNode(v, -2.0, _("v (not rotated)"), "data", width=1.7, height=h),
        "rq": FlowNode(q, -3.0, _("rotate by {m}·θ_i").format(m=m), "fixed", width=1.8, height=h),
        "rk": FlowNode(k, -3.0, _("rotate by {n}·θ_i").format(n=n), "fixed", width=1.8, height=h),
        "score": FlowNode(mid, -4.0, _("q̃·k̃ / √d (sees only m − n)"), "op", width=2.9, height=h),
        "soft": FlowNode(mid, -5.0, _("softmax over keys"), "op", width=1.9, height=h),
        "mix": FlowNode(v, -5.0, _("weighted sum of v"), "op", width=1.9, height=h),
        "wo": FlowNode(v, -6.0, _("W_o, then next layer"), "weights", width=2.1, height=h),
    }
    notes = [(-0.9, 1.5, _("q and k are turned by their own positions;<br>the same angles in all {layers} "
                           "layers · no parameters").format(layers=c["n_layers"])),
             (-0.9, -6.45, _("{model}: {heads} query heads, {kv_heads} key/value heads,<br>head_dim "
                             "{head_dim}, rope_theta {base:,.0f}").format(
                 model=model, heads=c["n_heads"], kv_heads=c["n_kv_heads"], head_dim=c["head_dim"],
                 base=c["base"]))]
    return nodes, notes, 540


header(_("Where RoPE lives in a model"),
       _("RoPE is a fixed step inside every attention layer: after the query and key projections, before their dot "
         "product. Pick a model to see it with that model's real sizes."))
WHY = _("RoPE is not a layer with weights and not something added to the input. It is a fixed step inside every "
        "attention layer: after the query and key projections, before their dot product. Values never see it. "
        "Pick a model to see the same picture with its real sizes.")


def flow_tab(page, preset: str, m: int, n: int) -> None:
    c = ROPE_MODEL_PRESETS[preset]
    show(hero(diagram, model=preset, m=m, n=n, tall=presentation()))
    classroom.snippet(fold(f"config = pc.rope.ROPE_MODEL_PRESETS[{preset!r}]", "dict: the sizes in the diagram's note"))
    rotated = costs(preset, c["context"]).rotated_vectors_per_token

    def rotated_reveal() -> str:
        return _("Only q and k: in {model} that is {heads} query and {kv_heads} key heads in each of "
                 "{layers} layers, {rotated:,} vectors per token. The {kv_heads} value heads of a "
                 "layer are never turned, and x only reaches the rotation through W_q and W_k.").format(
            model=preset, heads=c["n_heads"], kv_heads=c["n_kv_heads"], layers=c["n_layers"], rotated=rotated)

    with classroom.predict("rm_rotated", _("{model} has {layers} layers, {heads} query heads and "
                                           "{kv_heads} key/value heads. How many vectors does RoPE turn for each "
                                           "token?").format(model=preset, layers=c["n_layers"], heads=c["n_heads"],
                                                            kv_heads=c["n_kv_heads"]),
                           [_("layers × (query heads + 2 × key/value heads)"), _("layers × (query + key heads)"),
                            _("query + key heads: it runs in the first layer only"), _("layers × query heads")],
                           1, rotated_reveal):
        formula(r"\text{score}_{mn} = \frac{(R_{m}W_q x_m)\cdot(R_{n}W_k x_n)}{\sqrt{d}}"
                r" = \frac{x_m^{\top} W_q^{\top} R_{n-m} W_k\, x_n}{\sqrt{d}},\qquad n - m = $off", off=n - m)
        notice(_("Three things to take away. Only q and k are rotated: the values that are mixed into the output "
                 "carry no position, unlike the original Transformer, whose added position vector flows into "
                 "everything (a common misconception is that RoPE rotates q, k *and* v; it does not). The rotation "
                 "has no weights: its angles come from the positions and θ_i alone. And it happens again in every "
                 "layer, on that layer's own q and k, so position information cannot wash out with depth."))


def cost_chart(model: str, seq: int) -> figures.Chart:
    out = costs(model, seq)
    return figures.bars(
        [_("W_q, W_k, W_v projections"), _("RoPE rotations")],
        {_("per token, per layer"): [out.projection_macs_per_layer, out.rope_multiplies_per_layer]},
        log_y=True, title=_("Work per token and layer in {model} (log scale)").format(model=model),
        x_title=_("step"), y_title=_("multiplications"), name="rope_cost", height=360, hover_format=",.0f",
        alt=_("Bar chart on a log scale: the projections need {projections:,} "
              "multiplications per token and layer, the rotations {rotations:,}.").format(
            projections=out.projection_macs_per_layer, rotations=out.rope_multiplies_per_layer))


def cost_tab(page, preset: str, m: int, n: int) -> None:
    c = ROPE_MODEL_PRESETS[preset]
    with page.side:
        seq_len = controls.select_slider(_("Sequence length"), "seq", [2048, 4096, 8192, 32768, 131072], 8192,
                                         format_func=lambda v: f"{v:,}")
    out = costs(preset, seq_len)
    share = out.rope_share_per_layer

    def share_reveal() -> str:
        return _("{rotations:,} multiplications for the rotations against "
                 "{projections:,} for the projections: {share:.2%} of the work.").format(
            rotations=out.rope_multiplies_per_layer, projections=out.projection_macs_per_layer, share=share)

    with classroom.predict("rm_share", _("In {model}, what share of the multiplications for q, k and v per token "
                                         "and layer (projections plus rotations) goes to RoPE?").format(model=preset),
                           [_("more than 10%"), _("between 1% and 10%"), _("less than 1%")],
                           0 if share > 0.1 else 1 if share >= 0.01 else 2, share_reveal):
        show(hero(cost_chart, model=preset, seq=seq_len))
        made = classroom.call("rope_model_costs", c["n_layers"], c["n_heads"], c["n_kv_heads"], c["head_dim"],
                              seq_len, partial_rotary_factor=c["partial_rotary_factor"], d_model=c["d_model"])
        classroom.snippet(fold(f"out = {made}", "a ModelCosts"),
                          "# out.projection_macs_per_layer, out.rope_multiplies_per_layer: the bars",
                          "# the other fields: the numbers below")
        cols = st.columns(2)
        cols[0].metric(_("Parameters added by RoPE"), f"{out.parameters}")
        cols[1].metric(_("Vectors rotated per token"), f"{out.rotated_vectors_per_token:,}")
        cols = st.columns(2)
        cols[0].metric(_("cos/sin table values"), f"{out.table_values:,}")
        cols[1].metric(_("A learned table would need"),
                       _("{millions:,.1f} M weights").format(millions=out.learned_table_parameters / 1e6),
                       help=_("A learned absolute table of sequence length x d_model."))
        formula(r"\underbrace{L\,(h_q + h_{kv})}_{\text{q and k vectors}}\cdot\frac{r}{2}"
                r"\text{ rotations} = $rot\ \text{per token},\quad r = $r",
                rot=out.rotations_per_token, r=out.rotary_dim)
        notice(_("The rotation is cheap next to the projections around it ({share:.2%} of the multiplications), "
                 "and its cos/sin table is computed once per sequence length and shared by every layer and head. "
                 "With grouped-query attention fewer key heads means fewer keys to rotate. A learned absolute table "
                 "for the same context would be millions of weights and would stop at its last row.").format(
            share=share))


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
# Labels are marked N_() and shown translated by page.walk.
TABS = [
    (N_("The layer"), flow_tab),
    (N_("What it costs"), cost_tab),
]


@st.fragment
def lesson():
    page = stage(more_label=None)  # every control here drives the figure beside it
    with page.side:
        preset = controls.select(_("Model"), "model", PRESETS, 1)
        m = controls.slider(_("Query position m"), "m", 0, 64, 9)
        n = controls.slider(_("Key position n"), "n", 0, 64, 4)
    with guard():
        page.walk(TABS, page, preset, m, n)


lesson()
why(WHY)
source(rope_model_costs)
