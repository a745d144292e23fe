"""Each extension method's rule as a formula with the current values (Extension lesson).

One function a method, keyed by the method (``pc.long_context.EXTENSION_METHODS``), all with one signature; the
numbers the formulas print come from the core.
"""

from __future__ import annotations

from page_kit.lesson import formula
from posenc_core.long_context import dynamic_ntk_base, ntk_stretched_base
from posenc_core.rope import yarn_ramp_bounds


def _linear_formula(view) -> None:
    formula(r"\theta'_i = \theta_i / s = \theta_i / $s", s=view["factor"])


def _ntk_formula(view) -> None:
    formula(r"\begin{gathered}b' = b\,s^{d/(d-2)} = $b\cdot $s^{$d/$dm} = $nb\\ \theta'_i = b'^{-2i/d}"
            r"\end{gathered}",
            b=view["base"], s=view["factor"], d=view["head_dim"], dm=view["head_dim"] - 2,
            nb=ntk_stretched_base(view["head_dim"], view["base"], view["factor"]))


def _ntk_alpha_formula(view) -> None:
    alpha = view["knobs"]["alpha"]
    formula(r"\begin{gathered}b' = b\,\alpha^{d/(d-2)} = $b\cdot $a^{$d/$dm} = $nb\\ \theta'_i = b'^{-2i/d}"
            r"\end{gathered}",
            b=view["base"], a=alpha, d=view["head_dim"], dm=view["head_dim"] - 2,
            nb=ntk_stretched_base(view["head_dim"], view["base"], alpha))


def _dynamic_formula(view) -> None:
    seq_len = view["seq_len"]
    formula(r"\begin{gathered}b' = b\left(\frac{s\,n}{L} - (s-1)\right)^{d/(d-2)}\\ n = \max(\text{seq len}, L) "
            r"= $n,\quad b' = $nb\end{gathered}", n=max(seq_len, view["original"]),
            nb=dynamic_ntk_base(view["head_dim"], view["base"], view["factor"], seq_len, view["original"]))


def _yarn_formula(view) -> None:
    knobs = view["knobs"]
    low, high = yarn_ramp_bounds({"beta_fast": knobs["beta_fast"], "beta_slow": knobs["beta_slow"],
                                     "truncate": knobs["truncate"]}, view["head_dim"], view["base"], view["original"])
    # one rule a line: on one line it ran past a phone's width
    formula(r"\begin{gathered}\theta'_i = (1-\gamma_i)\frac{\theta_i}{s} + \gamma_i\theta_i\\ \gamma_i = "
            r"1 - \mathrm{clip}\!\left(\frac{i - $lo}{$hi - $lo}, 0, 1\right)\\ "
            r"i_{\text{lo,hi}} = \frac{d\,\ln\!\big(L/(2\pi\beta)\big)}{2\ln b}\end{gathered}", lo=low, hi=high)


def _llama3_formula(view) -> None:
    knobs, original = view["knobs"], view["original"]
    formula(r"\begin{gathered}\lambda_i < \frac{L}{\text{high}} = $a \Rightarrow \theta_i;\quad "
            r"\lambda_i > \frac{L}{\text{low}} = $b \Rightarrow \frac{\theta_i}{s}\\ \text{between: } "
            r"(1-w)\frac{\theta_i}{s} + w\,\theta_i,\ w = \frac{L/\lambda_i - \text{low}}{\text{high}-\text{low}}"
            r"\end{gathered}",
            a=original / knobs["high_ff"], b=original / knobs["low_ff"])


def _longrope_formula(view) -> None:
    which = "long" if view["seq_len"] > view["original"] else "short"
    formula(r"\begin{gathered}\theta'_i = \frac{\theta_i}{f_i},\quad f = \text{$which\_factor}\\ "
            r"\text{(sequence } $n \text{ tokens vs } L = $L)\end{gathered}", which=which, n=view["seq_len"],
            L=view["original"])


METHOD_FORMULAS = {"linear": _linear_formula, "ntk": _ntk_formula, "ntk_alpha": _ntk_alpha_formula,
                   "dynamic": _dynamic_formula, "yarn": _yarn_formula, "llama3": _llama3_formula,
                   "longrope": _longrope_formula}


def method_formula(view) -> None:
    """The method's rule with the current values."""
    METHOD_FORMULAS[view["method"]](view)
