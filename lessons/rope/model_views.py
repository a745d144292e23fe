"""One attention layer as a flow diagram, wide on a screen and tall on a projector (lessons/rope/rope_model)."""

from page_kit import _, figures
from page_kit.figures import FlowNode
from posenc_core.rope import ROPE_MODEL_PRESETS


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
