import contextlib

import numpy as np
import streamlit as st

import posenc_core as pc
from lessons.real_models.real_views import models_ready, run_with_progress
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from page_kit.lesson import folded

real = pc.real_models
LABEL = {name: m.label for name, m in real.LONG_METHODS.items()}  # the summaries are keyed by method name
COLOURS = {m.label: i for i, m in enumerate(real.LONG_METHODS.values())}
LIVE_LENGTHS = [256, 512, 1024, 2048]
LIVE_OFFSETS = [0, 4096, 8192, 12288, 16384]


@st.cache_data(show_spinner=False)
def shipped(bin_size: int) -> tuple[real.LongContextSummary, dict]:
    result = real.shipped_long_context()
    return real.long_context_summary(result, bin_size), {"command": result.command, "model": result.model}


header("Past the context window, for real",
       "SmolLM2-135M was trained on up to 8,192 tokens. Here is its loss at every position of a 16,384-token "
       "text, with its own RoPE and with each context-extension method.")
WHY = (
    "SmolLM2-135M was trained on sequences of up to 8,192 tokens. What happens when it reads 16,384? Here is "
    "its loss at every position of *The Devil's Dictionary*, with the RoPE it was trained with and with each "
    "context-extension method of the *Long context* pages switched on at scale factor s = 2. Each method is "
    "applied through transformers' own rotary code (`LlamaRotaryEmbedding` with the method's `rope_parameters`), "
    "so these are the numbers those methods really give this model, with no fine-tuning."
)


def loss_chart(s: real.LongContextSummary, bins: int, bin_size: int, name: str, title: str):
    """The binned loss of every method over the first ``bins`` bins, the trained context marked."""
    return figures.lines(s.start[:bins] + bin_size / 2, {LABEL[k]: v[:bins] for k, v in s.loss.items()}, title=title,
                     x_title="position in the sequence (tokens)", y_title="mean loss (nats)", name=name,
                     colours=COLOURS, legend_right=True, vlines=[(s.context, "trained context 8,192")],
                     alt=f"Mean loss per bin of {bin_size} positions from 0 to {bins * bin_size:,} for "
                         f"{len(s.loss)} methods: " + ", ".join(LABEL[k] for k in s.loss) + "; the trained context "
                         "8,192 is marked.")


def inside_chart(bin: int):  # the bin slider's URL key: a hero figure builds its frames by it
    s, _ = shipped(bin)
    return loss_chart(s, s.inside_bins, bin, "real_long_loss", "SmolLM2-135M: loss inside its trained 8,192")


def whole_chart(bin: int):
    s, _ = shipped(bin)
    return loss_chart(s, len(s.start), bin, "real_long_loss_all", f"The whole {s.tokens:,} tokens")


def curve_tab(page):
    with page.side:
        bin_size = controls.select_slider("Bin width (positions)", "bin", [64, 128, 256, 512, 1024], 256)
    s, made = shipped(bin_size)
    show(hero(inside_chart, bin=bin_size))
    with past_question(s):
        show(hero(whole_chart, bin=bin_size))
        classroom.snippet(f"s = pc.real_models.long_context_summary(pc.real_models.shipped_long_context(), "
                          f"{bin_size})", "# (bins,) first position of each bin; {method: (bins,) mean loss in nats}",
                          "start, losses = s.start, s.loss")
        notice(findings(s))
    st.caption(f"Shipped results: {s.windows} stretch of {s.tokens:,} tokens of the text, {made['model']}; "
               f"{s.minutes:.0f} min of forward passes in all.")
    with folded("How the shipped results were made", "real_long_made", icon=":material/terminal:") as is_open:
        if is_open:
            commands = made["command"] if isinstance(made["command"], list) else [made["command"]]
            st.markdown("On the project machine (2 CPU cores shared with other work), as parallel processes, each "
                        "kept for the methods it finished and merged with `python -m posenc_core.real_models merge`:")
            st.code("\n".join(commands), language="bash", wrap_lines=True)
    formula(r"\ell_p = -\log p_\theta(x_{p+1}\mid x_{0..p})")
    formula(r"\bar\ell_{[a,b)} = \frac{1}{b-a}\sum_{p=a}^{b-1}\ell_p,\qquad \text{bins of } $b", b=bin_size)
    source(real.position_losses, real.smollm2_forward)


def past_question(s: real.LongContextSummary):
    """What the plain model's loss does past 8,192, asked under the curves that stop there."""
    plain = "none"
    if plain not in s.inside:
        return contextlib.nullcontext()  # nothing to ask: the whole curves show at once
    rise = s.rise[plain]

    def past() -> str:
        return (f"With its own RoPE the mean loss goes from {s.inside[plain]:.3f} nats before position 8,192 "
                f"to {s.past[plain]:.3f} past it ({rise:+.3f} nats; perplexity {s.inside_ppl[plain]:.1f} "
                f"→ {s.past_ppl[plain]:.1f}): the curve marked '{LABEL[plain]}' below.")

    return classroom.predict("real_long_past", f"The curves above stop at 8,192, the longest text SmolLM2 was "
                             f"trained on. It reads on to {s.tokens:,} with the RoPE it was trained with (no "
                             "extension). Past 8,192, what does its mean loss do?",
                             ["falls: more text to read helps", "changes by less than 0.1 nats",
                              "rises by 0.1 to 1 nat", "rises by more than 1 nat"],
                             0 if rise < -0.1 else 1 if rise <= 0.1 else 2 if rise <= 1 else 3, past)


def findings(s: real.LongContextSummary) -> str:
    plain = "none"
    parts = []
    if plain in s.inside:
        parts.append(f"With the RoPE it was trained with, the mean loss is {s.inside[plain]:.3f} nats over "
                     f"positions 0 – 8,191 and {s.past[plain]:.3f} past 8,192 (perplexity "
                     f"{s.inside_ppl[plain]:.1f} → {s.past_ppl[plain]:.1f}).")
        if s.past_change:
            parts.append("Each method against it, past 8,192: " + "; ".join(
                f"{LABEL[k]} {v:+.3f}" for k, v in s.past_change.items()) + " nats; inside 8,192: " + "; ".join(
                f"{LABEL[k]} {v:+.3f}" for k, v in s.inside_change.items()) + " nats (a method that changes every "
                "frequency also changes what the model reads inside its window).")
    if s.best_past is not None:
        parts.append(f"Lowest loss past 8,192: **{LABEL[s.best_past]}** ({s.past[s.best_past]:.3f} nats).")
    return " ".join(parts)


def table_tab(page):
    s, _ = shipped(256)
    names = list(s.inside)
    with page.side:
        ppl = controls.toggle("Show perplexity", "ppl", False, help="Perplexity is e to the mean loss.")
    inside, past, unit = ("inside_ppl", "past_ppl", "perplexity") if ppl else ("inside", "past", "mean loss (nats)")
    before, after = getattr(s, inside), getattr(s, past)  # {method: value}
    show(figures.bars([LABEL[k] for k in names], {"before 8,192": np.array([before[k] for k in names]),
                                                  "past 8,192": np.array([after[k] for k in names])},
                      title=f"{unit.capitalize()} inside and past the trained context", x_title="method",
                      y_title=unit, name="real_long_table",
                      alt=f"{unit.capitalize()} of each method over the first and the second 8,192 positions: "
                          + "; ".join(f"{LABEL[k]} {before[k]:.3f} and {after[k]:.3f}" for k in names) + "."))
    classroom.snippet("s = pc.real_models.long_context_summary(pc.real_models.shipped_long_context(), 256)",
                      f"# {{method: {unit}}} over the first 8,192 positions and past them",
                      f"before, past = s.{inside}, s.{past}")
    rows = [f"{LABEL[k]}: {s.inside[k]:.3f} → {s.past[k]:.3f} nats (perplexity {s.inside_ppl[k]:.1f} → "
            f"{s.past_ppl[k]:.1f})" for k in names]
    notice("Measured, first 8,192 positions → the rest: " + "; ".join(rows) + ". Position interpolation and the "
           "NTK methods change the frequencies of every position, so they move the loss inside 8,192 too; dynamic "
           "NTK in one forward pass of 16,384 tokens uses the frequencies for 16,384 at every position (that is "
           "what transformers does without a cache). The *Long context* pages draw what each method does to each "
           "pair; this is what it does to a real model that was never fine-tuned for it.")
    formula(r"\mathrm{PPL} = e^{\bar\ell}")
    source(real.long_context_summary, real.method_rope_parameters)


def live_tab(page):
    st.markdown("A shorter version you can run here: a stretch of the text placed at a chosen position, so that it "
                "sits before or past 8,192 without reading 16,384 tokens. It measures the positions, not a long "
                "context: the model sees only this stretch.")
    with page.side:
        tokens = controls.select_slider("Tokens", "n", LIVE_LENGTHS, 512)
        offset = controls.select_slider("First position", "p0", LIVE_OFFSETS, 12288, format_func=lambda v: f"{v:,}")
        factor = controls.select_slider("Scale factor s", "s", [1.5, 2.0, 4.0], 2.0)
        methods = controls.multiselect("Methods", "methods", list(real.LONG_METHODS), ["none", "linear", "yarn"],
                                       format_func=LABEL.get)
    key = f"real_long_live/{tokens}/{offset}/{factor}/{','.join(methods)}"  # this view's finished run
    if st.button("Run", key="run", type="primary", icon=":material/play_arrow:") and methods:
        if models_ready(real.SMOLLM2_NAME):
            losses = {}
            for m in methods:
                losses[m] = run_with_progress(
                    lambda progress, m=m: real.position_losses(m, factor, 0, tokens, position_offset=offset,
                                                               progress=progress),
                    f"{LABEL[m]}: SmolLM2 over {tokens} tokens at positions {offset:,}+…")
            st.session_state[key] = losses
    losses = st.session_state.get(key)
    if not losses:
        st.info("Press **Run**: each method takes a few seconds per 512 tokens on two CPU cores.",
                icon=":material/info:")
        return
    curves = real.stretch_losses(losses, offset, 32)
    series = {LABEL[k]: v for k, v in curves.loss.items()}  # keyed by method name, drawn by label
    show(figures.lines(curves.position, series, title=f"The same {tokens} tokens at positions {offset:,}+",
                       colours=COLOURS, x_title="position (tokens)", y_title="mean loss per 32 positions (nats)",
                       name="real_long_live", legend_right=True,
                       alt=f"Loss of {len(losses)} methods over {tokens} tokens placed at positions {offset:,}+, "
                           "in bins of 32 positions."))
    classroom.snippet(f"# {{method: ({tokens - 1},) loss at each position, nats}}: SmolLM2 runs, seconds each",
                      f"losses = {{m: pc.real_models.position_losses(m, {float(factor)!r}, 0, {tokens}, "
                      f"position_offset={offset})\n          for m in {list(methods)!r}}}",
                      f"curves = pc.real_models.stretch_losses(losses, {offset}, 32)  # curves.loss: plotted")
    notice("Mean loss over the stretch: " + "; ".join(f"{LABEL[k]} {v:.3f}" for k, v in curves.mean.items()) + ". Move "
           "the first position below and past 8,192 to see which methods keep the loss where it was.")


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Loss by position", curve_tab),
    ("Inside vs past 8,192", table_tab),
    ("Run it here", live_tab),
]


@st.fragment
def lesson():
    page = stage()
    with guard():
        page.walk(TABS, page)


lesson()
why(WHY)
