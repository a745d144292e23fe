import numpy as np
import streamlit as st

import posenc_core as pc
from lessons.real_models.porting_bugs_views import card, short, title
from page_kit import classroom, controls, figures, formula, guard, header, notice, show, source, stage, why
from page_kit.lesson import folded

real = pc.real_models
BUGS = list(real.PORTING_BUGS)
COLOURS = {"correct": 0, "with the bug": 3, "SmolLM2 as it is": 7}

header("Porting bugs",
       "Seven RoPE bugs that shipped in real ports, each switched on in SmolLM2-135M: the loss it costs on the same "
       "text, what its users saw, and the one-line test that would have caught it.")
WHY = (
    "A model rarely goes wrong through a new idea; it goes wrong in a port that rotates the wrong pairs, rounds "
    "the frequencies, or forgets a factor. None of these bugs raises an error: shapes stay valid and the text "
    "stays fluent for a while. Each card here is a failure reported in a public tracker, run on a real model with "
    "the correct and the buggy function side by side, so the damage is a measurement, not a guess. Where SmolLM2 "
    "lacks the feature (partial rotary, YaRN, dynamic NTK, left padding), the card says what was run instead."
)


LENGTHS = [real.BUG_TOKENS, real.SHIPPED_LONG_TOKENS]  # the shipped runs


@st.cache_data(show_spinner=False)
def shipped(n: int) -> real.PortingBugRun:
    return real.shipped_porting_bugs(n)


@st.cache_data(show_spinner=False)
def summary(bug: str, n: int) -> real.BugSummary:
    return real.porting_bug_summary(shipped(n), bug)


def loss_chart(bug: str, on: bool, n: int):
    """Mean loss per bin of positions with the correct computation, and with the bug when it is on."""
    s = summary(bug, n)
    series = {"correct": s.correct_curve}
    if on:
        series["with the bug"] = s.buggy_curve
    if s.setup not in ("smollm2", "meta_rows"):  # the bug ran on a variant of SmolLM2: the original, dashed
        series["SmolLM2 as it is"] = s.plain_curve
    state = "on" if on else "off"
    prompt = [(real.LEFT_PAD_PROMPT, "prompt ends")] if bug == "left_pad" else []
    return figures.lines(s.position, series, title=f"{short(bug)}: bug {state}", x_title="position in the text",
                         y_title=f"mean loss per {s.bin_size} positions (nats)", name="porting_bugs_loss",
                         colours=COLOURS, dashed=["SmolLM2 as it is"], legend_right=True, vlines=prompt,
                         alt=f"Loss per position of SmolLM2 over {s.tokens:,} tokens, correct (mean {s.correct:.3f} "
                             "nats)" + (f" and with the bug (mean {s.buggy:.3f})" if on else "; the bug is off")
                             + ".")


def weight_chart(bug: str, on: bool, n: int):
    s = summary(bug, n)
    series = {"correct": s.weight_correct, **({"with the bug": s.weight_buggy} if on else {})}
    return figures.lines(s.offsets, series, title="Layer 1: mean attention weight by offset",
                         x_title="offset m − n (tokens)", y_title="mean weight", name="porting_bugs_weight",
                         colours=COLOURS, legend_right=True, hover_format=".4f",
                         alt=f"Layer 1's mean attention weight at offsets 0 to {s.offsets[-1]}, correct"
                             + (" and with the bug" if on else "") + f": at offset 1 {s.weight_correct[1]:.4f}"
                             + (f" and {s.weight_buggy[1]:.4f}" if on else "") + ".")


def bug_tab(page, bug: str, on: bool, n: int):
    s = summary(bug, n)
    show(loss_chart(bug, on, n))
    notice(f"Bug {'on' if on else 'off'}: the mean loss over the {s.tokens - 1:,} predictions is {s.correct:.4f} "
           "nats correct" + (f" and {s.buggy:.4f} with the bug ({s.change:+.4f}); the curves are furthest apart near "
                             f"position {s.worst_position:,.0f}." if on else ". Switch the bug on to add its curve."))
    card(bug, s)
    one = s.previous_ratio

    def reveal() -> str:
        return (f"Layer 1 gives the previous token {s.weight_correct[1]:.4f} of its attention correctly and "
                f"{s.weight_buggy[1]:.4f} with the bug (x {one:.2f}); at offset 0 (itself) {s.weight_correct[0]:.4f}"
                f" and {s.weight_buggy[0]:.4f}.")

    with classroom.predict("bugs_previous", f"Layer 1 reads the same embeddings with or without the bug; only the "
                           f"rotation differs. With '{title(bug)}', how does the attention it gives the previous "
                           "token (offset 1) change?", ["falls by more than 10%", "stays within 10%",
                                                        "rises by more than 10%"],
                           0 if one < 0.9 else 1 if one <= 1.1 else 2, reveal):
        show(weight_chart(bug, True, n))
    classroom.snippet(f"s = pc.real_models.porting_bug_summary(pc.real_models.shipped_porting_bugs({n}), {bug!r})",
                      f"# (bins,) mean loss per {s.bin_size} positions, correct and with the bug; layer 1's weight "
                      "by offset",
                      "correct, buggy = s.correct_curve, s.buggy_curve",
                      "weight_correct, weight_buggy = s.weight_correct, s.weight_buggy")
    # two lines, so a phone shows both whole; five digits: the notice's four decimals
    formula(r"\bar\ell = -\frac{1}{$n}\sum_{p=0}^{$last}\log p_\theta(x_{p+1}\mid x_{0..p})", n=s.tokens - 1,
            last=s.tokens - 2)
    formula(r"\bar\ell_{\text{correct}} = $c,\qquad \bar\ell_{\text{bug}} = $b", digits=5, c=s.correct, b=s.buggy)
    source(real.PORTING_BUGS[bug].correct, real.PORTING_BUGS[bug].buggy)


def all_tab(page, bug: str, on: bool, n: int):
    changes = {b: summary(b, n).change for b in BUGS}
    show(figures.bars([short(b) for b in BUGS], {"loss with the bug − correct": np.array(list(changes.values()))},
                      title=f"What each bug costs over {n:,} tokens (nats)", x_title="bug", y_title="change (nats)",
                      name="porting_bugs_all", horizontal=True, height=420,
                      alt="Change of the mean loss each bug causes: " + "; ".join(
                          f"{short(b)} {v:+.4f} nats" for b, v in changes.items()) + "."))
    worst, yarn = max(changes, key=changes.__getitem__), changes["yarn_mscale"]
    (bf_short, bf_long), (pad_short, pad_long) = ([summary(b, length).change for length in LENGTHS]
                                                  for b in ("bf16_inv_freq", "left_pad"))
    notice(f"'{title(worst)}' costs the most: {changes[worst]:+.3f} nats over {n - 1:,} predictions. The bugs "
           f"that turn the wrong dimensions cost at once. Over {LENGTHS[0]:,} and {LENGTHS[1]:,} tokens, bfloat16 "
           f"frequencies change the mean loss by {bf_short:+.4f} and {bf_long:+.4f} nats and a position one too far "
           f"by {pad_short:+.4f} and {pad_long:+.4f}: too little to see in a loss over these lengths, so a test of the "
           f"computation is what catches them. Dropping YaRN's factor {'lowers' if yarn < 0 else 'raises'} the loss "
           f"of a model never trained with YaRN ({yarn:+.4f} nats): the reports' damage is in models fine-tuned with "
           "it, at long context.")
    classroom.snippet(f"run = pc.real_models.shipped_porting_bugs({n})",
                      "changes = {b: pc.real_models.porting_bug_summary(run, b).change",
                      "           for b in pc.real_models.PORTING_BUGS}  # the bars")
    made(shipped(n))
    source(real.porting_bug_run)


def made(run: real.PortingBugRun) -> None:
    with folded("How the shipped results were made", "porting_bugs_made", icon=":material/terminal:") as is_open:
        if is_open:
            st.markdown(f"{run.model}, tokens {run.start:,} to {run.start + run.tokens - 1:,} of the shipped text, "
                        f"on {run.date} ({run.machine}); {sum(run.seconds.values()):.0f} s in all, the model's load "
                        "included. "
                        "`tests/test_porting_bugs.py` measures the 128-token run again and compares; the 1,024-token "
                        "run's first 127 losses are the 128-token run's.")
            st.code(run.command, language="bash", wrap_lines=True)


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("One bug", bug_tab),
    ("All seven", all_tab),
]


@st.fragment
def lesson():
    page = stage()
    with guard():
        with page.side:
            bug = controls.select("Bug", "bug", BUGS, format_func=short)
            on = controls.toggle("Switch the bug on", "on", True, help="Off: only the correct computation's loss.")
            n = controls.choice("Tokens of text", "n", LENGTHS, real.BUG_TOKENS, format_func=lambda v: f"{v:,}")
        page.walk(TABS, page, bug, on, n)


lesson()
why(WHY)
