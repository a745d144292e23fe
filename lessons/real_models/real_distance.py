import numpy as np
import streamlit as st

import posenc_core as pc
from lessons.real_models.real_views import attention_summary, summary_code
from page_kit import classroom, controls, figures, formula, guard, header, notice, show, source, stage, why
from posenc_core.rope import rope_decay_bound

real = pc.real_models
LAYER_CHOICES = list(range(1, 31))
DEFAULT_LAYERS = [1, 8, 15, 22, 30]
NEAR = 32  # the first figure's last offset: the question asks about keys further back

header("Attention against distance, measured",
       "SmolLM2 reading real text: how much attention does a key get at each distance from its query, layer by "
       "layer, against attention spread evenly?")
WHY = (
    "The RoPE pages draw RoFormer's promise that a score fades as two tokens move apart, for random vectors. "
    "Here is the same question asked of SmolLM2-135M reading real text: at each offset m − n between a query and "
    "an earlier key, the mean attention weight and the mean raw score q·k, layer by layer (averaged over the 9 "
    "heads; the first token, the attention sink, is left out and measured on the *Which rotary pairs* page)."
)


def profile_code(layers: list[int], *lines: str) -> None:
    classroom.snippet(summary_code(), f"profile = pc.real_models.distance_profile(summary, {tuple(layers)!r})",
                      *lines)


def weight_chart(profile: dict, summary: dict, layers: list[int], last: int, log: bool, name: str, title: str):
    """Mean attention weight at offsets 1 to ``last`` for the chosen layers, uniform attention dashed."""
    offsets = np.arange(1, last + 1)
    series = {f"layer {layer}": profile.layer_weight[layer - 1, 1:last + 1] for layer in layers}
    series["uniform attention"] = summary.uniform_weight[1:last + 1]
    scale = " (log scale)" if log else ""
    show(figures.lines(offsets, series, title=title, x_title=f"offset m − n (tokens{', log scale' if log else ''})",
                       y_title=f"mean weight{scale}", log_x=log, log_y=log, dashed=["uniform attention"],
                       legend_right=True, name=name, hover_format=".2e",
                       alt=f"Mean attention weight against offset 1 to {last} for layers "
                           f"{', '.join(map(str, layers))}{', log-log' if log else ''}, with uniform attention "
                           "dashed."))


def weight_tab(page, profile: dict, summary: dict, layers: list[int]):
    last = profile.layer_weight.shape[1] - 1
    far, ratio = int(profile.offsets[-1]), profile.far_ratio
    with page.side:
        log = controls.toggle("Log axes", "logw", True, help="Both axes logarithmic: the weights span orders of "
                                                              "magnitude.")
    weight_chart(profile, summary, layers, NEAR, log, "real_distance_weight",
                 f"Mean attention weight at offsets 1 to {NEAR} (mean over heads)")

    def far_share() -> str:
        return (f"At offset {far} the chosen layers give a key {ratio:.2f} times the uniform share "
                f"({profile.weight_at[-1]:.2e} against {profile.uniform[-1]:.2e}); at offset "
                f"{int(profile.offsets[0])} {profile.near_ratio:.1f} times.")

    with classroom.predict("real_distance_far", f"The curves above stop at offset {NEAR}. Further back, a key {far} "
                           "tokens before its query: compared with attention spread evenly over all earlier keys "
                           "(the dashed line), how much weight does it get (mean of the chosen layers)?",
                           ["less than half the even share", "between half and twice the even share",
                            "more than twice the even share"], 0 if ratio < 0.5 else 1 if ratio <= 2 else 2,
                           far_share):
        weight_chart(profile, summary, layers, last, log, "real_distance_weight_all",
                     f"Every offset, 1 to {last} (mean over heads)")
        weight_numbers(profile, layers, last)
    formula(r"\bar A(r) = \frac{1}{N_r}\sum_{m-n=r,\ n\ge1} A_{m,n}")
    formula(r"\text{uniform: }\frac{1}{N_r}\sum_{m=r+1}^{T-1}\frac{1}{m+1},\quad T = $t", t=summary.tokens)
    source(real.distance_profile)


def weight_numbers(profile: dict, layers: list[int], last: int):
    """The code of the curves and the weights at the marked offsets: what answers the question."""
    profile_code(layers, f"# mean weight at offsets 1 to {last} (mean over heads), one curve per layer",
                 "weights = {f'layer {layer}': profile.layer_weight[layer - 1, 1:]",
                 f"           for layer in {list(layers)!r}}}",
                 "uniform = summary.uniform_weight[1:]  # the dashed line")
    rows = [f"offset {o}: {w:.4f} (uniform {u:.4f})" for o, w, u in
            zip(profile.offsets, profile.weight_at, profile.uniform, strict=True)]
    lo, hi = profile.far_range
    far = int(profile.offsets[-1])
    notice("Mean over the chosen layers: " + "; ".join(rows) + f". At offset {int(profile.offsets[0])} a key "
           f"gets {profile.near_ratio:.1f} times the uniform share, at offset {far} {profile.far_ratio:.2f} "
           f"times. The layers do not share one decay curve: at offset {far} they range from {lo:.1e} to {hi:.1e}, "
           "and within a layer the weight a head gives is set by content as much as by distance (the R² on the "
           "*Which rotary pairs* page).")


def score_tab(page, profile: dict, summary: dict, layers: list[int]):
    offsets = np.arange(1, profile.layer_score.shape[1])
    with page.side:
        log = controls.toggle("Log offset axis", "logs", False, help="Spreads out the short offsets, where most "
                                                                     "of the change happens.")
    x_title = f"offset m − n (tokens{', log scale' if log else ''})"
    series = {f"layer {layer}": profile.layer_score[layer - 1, 1:] for layer in layers}
    show(figures.lines(offsets, series, title="Mean raw score q·k at each offset (mean over heads)",
                       x_title=x_title, y_title="mean q·k", legend_right=True, log_x=log,
                       name="real_distance_score",
                       alt=f"Mean raw query-key score against offset for layers {', '.join(map(str, layers))}; "
                           "change from offset 0 at the marked offsets: "
                           + ", ".join(f"{o}: {d:+.1f}" for o, d in zip(profile.offsets, profile.score_change,
                                                                        strict=True)) + "."))
    show(figures.lines(offsets, {"RoFormer bound, relative to offset 0": profile.bound[1:]}, log_x=log,
                       title="RoFormer's decay bound for head_dim 64, base 100,000", x_title=x_title,
                       y_title="bound / bound at 0", name="real_distance_bound", colours={"RoFormer bound, relative "
                                                                                           "to offset 0": 7},
                       alt="RoFormer's relative upper bound on the score against offset, for SmolLM2's settings: "
                           + ", ".join(f"{b:.2f} at {o}" for o, b in zip(profile.offsets, profile.bound_at,
                                                                         strict=True)) + "."))
    profile_code(layers, f"# mean raw score q·k at offsets 1 to {offsets[-1]} (mean over heads), one curve per layer",
                 "scores = {f'layer {layer}': profile.layer_score[layer - 1, 1:]",
                 f"          for layer in {list(layers)!r}}}",
                 "bound = profile.bound[1:]  # RoFormer's bound divided by its value at offset 0")
    rows = [f"offset {o}: {d:+.1f}" for o, d in zip(profile.offsets, profile.score_change, strict=True)]
    bound_rows = [f"{o}: {b:.2f}" for o, b in zip(profile.offsets, profile.bound_at, strict=True)]
    notice("Change of the mean score from offset 0, averaged over the chosen layers: " + "; ".join(rows) +
           ". RoFormer's bound (relative to offset 0) at the same offsets: " + "; ".join(bound_rows) + ". "
           + (f"The mean score of these layers first falls below zero at offset {profile.first_negative} and is "
              f"lowest at offset {profile.lowest_offset} ({profile.lowest_score:.1f}). "
              if profile.first_negative is not None else "")
           + "The bound caps |q·k| for fixed content, so it says nothing about the sign or the mean of real "
           "scores: trained queries and keys are not random, and the distance preference they learned is "
           "the model's, not the bound's.")
    formula(r"\bar s(r) = \frac{1}{N_r}\sum_{m-n=r} q_m^\top R_{(n-m)\theta}\, k_n")
    formula(r"B(r) = \frac{1}{32}\sum_{j=1}^{32}\Big|\sum_{i<j} e^{\mathrm{i} r\theta_i}\Big|")
    source(rope_decay_bound)


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Mean attention weight", weight_tab),
    ("Mean q·k and RoFormer's bound", score_tab),
]


@st.fragment
def lesson():
    page = stage()
    with guard():
        with page.side:
            layers = controls.multiselect("Layers", "layers", LAYER_CHOICES, DEFAULT_LAYERS, max_selections=8,
                                          help="Up to eight layers; each curve is the mean over the layer's 9 "
                                               "heads.")
            summary, where = attention_summary()  # an expander of its own: not inside "More settings"
            st.caption(where)
        if not layers:
            with page.main:
                st.info("Choose at least one layer.", icon=":material/info:")
            return
        profile = real.distance_profile(summary, tuple(layers))
        page.walk(TABS, page, profile, summary, layers)


lesson()
why(WHY)
