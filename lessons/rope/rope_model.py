import streamlit as st

from lessons.rope import model_views
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
from page_kit.lesson.code_lines import fold
from posenc_core.rope import ROPE_MODEL_PRESETS, rope_model_costs

PRESETS = list(ROPE_MODEL_PRESETS)


@st.cache_data(max_entries=16, show_spinner=False)
def costs(preset: str, seq_len: int):
    c = ROPE_MODEL_PRESETS[preset]
    return rope_model_costs(c["n_layers"], c["n_heads"], c["n_kv_heads"], c["head_dim"], seq_len,
                               partial_rotary_factor=c["partial_rotary_factor"], d_model=c["d_model"])


header(_("Where RoPE lives in a model"),
       _("RoPE is a fixed step inside every attention layer: after the query and key projections, before their dot "
         "product. Pick a model to see it with that model's real sizes."))
WHY = _("RoPE is not a layer with weights and not something added to the input. It is a fixed step inside every "
        "attention layer: after the query and key projections, before their dot product. Values never see it. "
        "Pick a model to see the same picture with its real sizes.")


def flow_tab(page, preset: str, m: int, n: int) -> None:
    c = ROPE_MODEL_PRESETS[preset]
    show(hero(model_views.diagram, model=preset, m=m, n=n, tall=presentation()))
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
