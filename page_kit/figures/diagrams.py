"""Flow diagrams: boxes and arrows for where a computation happens."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from page_kit.figures import cache
from page_kit.figures.chart import Chart, base_layout


@dataclass(frozen=True)
class FlowNode:
    """A box in a flow diagram: centre (x, y) in diagram units, its text, and a kind that picks its colour."""

    x: float
    y: float
    text: str
    kind: str = "data"  # "data", "weights" (learned), "fixed" (no parameters), "op"
    width: float = 1.5
    height: float = 0.62


FLOW_COLOURS = {"data": "#E8F1FA", "weights": "#FBE3C2", "fixed": "#D4EFE4", "op": "#EEEEEE"}
FLOW_KIND_LABELS = {"data": "activations", "weights": "learned weights", "fixed": "fixed, no parameters",
                    "op": "operation"}


ARROW_HEAD_PX = 11  # a flow diagram's arrowheads
# its arrows: a grey with at least 3:1 against both themes' paper (the notes beside them take the template's ink)
FLOW_ARROW = "#767676"


def _facing_sides(start: FlowNode, end: FlowNode) -> tuple[float, float, float, float]:
    """An arrow's ends: it leaves each box through the side facing the other box."""
    dx, dy = end.x - start.x, end.y - start.y
    if abs(dx) * start.height >= abs(dy) * start.width:
        return start.x + np.sign(dx) * start.width / 2, start.y, end.x - np.sign(dx) * end.width / 2, end.y
    return start.x, start.y + np.sign(dy) * start.height / 2, end.x, end.y - np.sign(dy) * end.height / 2


@cache.builder
def flow_diagram(nodes: Mapping[str, FlowNode], edges: Sequence[tuple[str, str] | tuple[str, str, str]], *,
                 title: str, alt: str, name: str, height: int = 420,
                 notes: Sequence[tuple[float, float, str]] = (), design_px: int = 780) -> Chart:
    """Boxes joined by arrows (a small computation graph), drawn with shapes so it exports like any figure.

    ``edges`` are (from, to) or (from, to, label); ``notes`` are free text (x, y, text). Box colours
    say what a box is (learned weights, fixed maps, activations), with a legend.
    """
    # Shapes and annotations are collected as plain dicts and set once: plotly's add_shape/add_annotation
    # validate and copy the whole layout on every call, which costs about 30 ms per box here.
    shapes, annotations = [], []
    for node in nodes.values():
        shapes.append(dict(type="rect", x0=node.x - node.width / 2, x1=node.x + node.width / 2,
                           y0=node.y - node.height / 2, y1=node.y + node.height / 2, layer="below",
                           fillcolor=FLOW_COLOURS.get(node.kind, FLOW_COLOURS["op"]),
                           line=dict(color="#555555", width=1.2)))
        annotations.append(dict(x=node.x, y=node.y, text=node.text, showarrow=False, font=dict(color="#1a1a1a")))
    # The arrows are one line trace whose segment ends carry arrow markers turned along the segment
    # (angleref="previous"): Plotly draws an annotation arrow by measuring its SVG path, which made every redraw of
    # a 14-arrow diagram cost about 80 ms in the browser, against about 35 ms this way.
    arrow_x, arrow_y, arrow_size = [], [], []
    for edge in edges:
        x0, y0, x1, y1 = _facing_sides(nodes[edge[0]], nodes[edge[1]])
        arrow_x += [float(x0), float(x1), None]
        arrow_y += [float(y0), float(y1), None]
        arrow_size += [0, ARROW_HEAD_PX, 0]
        if len(edge) == 3 and edge[2]:
            annotations.append(dict(x=float(x0 + x1) / 2, y=float(y0 + y1) / 2, text=edge[2], showarrow=False,
                                    yshift=10, font=dict(size=11)))
    for x, y, text in notes:
        annotations.append(dict(x=x, y=y, text=text, showarrow=False, align="left", xanchor="left",
                                font=dict(size=12)))
    fig = go.Figure(layout=dict(shapes=shapes, annotations=annotations))
    fig.add_trace(go.Scatter(x=arrow_x, y=arrow_y, mode="lines+markers", line=dict(color=FLOW_ARROW, width=1.6),
                             marker=dict(symbol="arrow", size=arrow_size, angleref="previous", color=FLOW_ARROW,
                                         standoff=ARROW_HEAD_PX / 2),
                             hoverinfo="skip", showlegend=False, name="arrows"))
    for kind in dict.fromkeys(node.kind for node in nodes.values()):  # legend entries, in order of first use
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=FLOW_KIND_LABELS.get(kind, kind),
                                 marker=dict(symbol="square", size=14, color=FLOW_COLOURS.get(kind),
                                             line=dict(color="#555555", width=1))))
    # the boxes' own edges bound the drawing, and a note (written rightwards from its x) starts inside it
    left = min([n.x - n.width / 2 for n in nodes.values()] + [x for x, _, _ in notes]) - 0.3
    right = max([n.x + n.width / 2 + 0.3 for n in nodes.values()] + [n.x + 1.0 for n in nodes.values()])
    ys = [n.y for n in nodes.values()] + [y for _, y, _ in notes]
    base_layout(fig, title, "", "", height)
    fig.update_xaxes(visible=False, range=[left, right])
    fig.update_yaxes(visible=False, range=[min(ys) - 0.7, max(ys) + 0.7])
    # meta.design_px: the chart width its boxes were sized for at 13 px text (page_kit/chart/figure_fit.js scales
    # the text to wider charts and lets narrower ones scroll)
    fig.update_layout(plot_bgcolor="rgba(0,0,0,0)", margin=dict(l=10, r=10, t=56, b=40),  # no axes to label
                      legend=dict(orientation="h", x=0.0, y=-0.02, yanchor="top"), meta=dict(design_px=design_px))
    table = {"box": np.array(list(nodes)), "text": np.array([n.text for n in nodes.values()]),
             "kind": np.array([n.kind for n in nodes.values()])}
    return Chart(fig, alt, name, table=table)
