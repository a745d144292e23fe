"""Pieces of the Extrapolation lab: its predict-then-reveal questions (answered by whatever run is shown), the code
that gives that run, and the page's closing reading (its numbers read from the shipped run).

No math here: the numbers come from ``posenc_core.lab`` (``findings.py``); this module only formats them.
"""

from __future__ import annotations

import contextlib

from page_kit import classroom, figures, formula, notice, show
from posenc_core.lab import (
    LAB_METHODS,
    TRAINED_METHODS,
    AttentionPanel,
    LabResult,
    lab_attention_panels,
    lab_by_method,
    lab_interpolation_question,
    lab_longest_question,
)

PANEL_MARGIN = {"l": 10, "r": 10, "t": 80, "b": 10}  # the figure title above the panel titles


def result_code(origin: str, args: tuple) -> str:
    """The line that gives ``result`` as shown: the shipped run, or the run these settings make (minutes)."""
    preset, train_len, steps, seed, methods, device = args
    names = methods.split(",")
    if origin == "shipped":
        return f"# the shipped full run\nresult = pc.lab.select_methods(pc.lab.shipped_lab_results(),\n    {names!r})"
    return (f"# trains every model: minutes\nresult = pc.lab.run_lab(\n    pc.lab.lab_settings({preset!r}, "
            f"train_len={train_len}, steps={steps}, seed={seed}, device={device!r}),\n    {names!r})")


def snippet(origin: str, args: tuple, *lines: str) -> None:
    classroom.snippet(result_code(origin, args), *lines)


def ask_longest(result: LabResult):
    """Which trained model keeps the highest accuracy at the longest test length (8T)? Asked only when exactly one
    option is right (``pc.lab.lab_longest_question``)."""
    q = lab_longest_question(result)
    if q is None:
        return contextlib.nullcontext()  # not asked: what it would hide shows at once
    labels = [LAB_METHODS[n].label for n in q.names]

    def reveal() -> str:
        scores = "; ".join(f"{LAB_METHODS[n].label} {q.accuracy[n]:.3f}" for n in q.names)
        return f"At {q.length} tokens: {scores}. The solid curves below, at the right."

    return classroom.predict("lab_longest", f"Each model learned the task at T = {result.train_len}. Which "
                             f"keeps the highest accuracy at {q.length} tokens?", labels,
                             q.names.index(q.best), reveal)


def ask_interpolation(result: LabResult):
    """RoPE + position interpolation at 2T, against the loss of a uniform guess (asked when it was run)."""
    q = lab_interpolation_question(result)
    if q is None:
        return contextlib.nullcontext()  # not asked: what it would hide shows at once

    def reveal() -> str:
        return (f"RoPE + PI's test loss at {q.length} tokens is {q.loss:.3g} nats; guessing uniformly costs "
                f"ln {q.vocab} = {q.guess:.3f} (the dotted line below). Dividing every frequency "
                "shrinks the offset the model learned to read" + (", so it is confidently wrong." if q.side == 2
                                                                   else "."))

    return classroom.predict("lab_pi", f"RoPE + position interpolation divides every rotary frequency by "
                             f"{q.factor:g} (= {q.length}/{result.train_len}) at test time, with no "
                             f"fine-tuning. Its test loss at {q.length} tokens?",
                             [f"below {q.low:.2f} nats: it still knows the answer",
                              f"{q.low:.2f} to {q.high:.2f} nats: about a uniform guess",
                              f"above {q.high:.2f} nats: confidently wrong"], q.side, reveal)


def panel_title(panel: AttentionPanel) -> str:
    """A panel's title: the method, then its head and its weight k back, or that it cannot run at that length."""
    label = LAB_METHODS[panel.method].short if panel.method in LAB_METHODS else panel.method
    if not panel.runs:
        return f"{label}: cannot run at {panel.length}"
    return f"{label} · L{panel.layer + 1} H{panel.head + 1} · {panel.mass:.2f} at -k"


def attention_tab(result: LabResult, code: tuple):
    """The page's "Attention maps" tab: one head per model at T and at 4T."""
    T, k = result.train_len, result.task.k
    trained = [m for m in result.attention or {} if m in TRAINED_METHODS]
    panels = lab_attention_panels(result, "T", trained)
    if panels:
        show(figures.small_multiples(
            [p.grid for p in panels], [panel_title(p) for p in panels], cols=min(3, len(panels)),
            title=f"One head per model at T = {T} (query rows, key columns)", value_name="attention",
            name="lab_attention_T", cell_px=260, margin=PANEL_MARGIN,
            alt="Attention weights of one head per model on a test sequence of the training length."))
        snippet(*code, f"# one ({T}, {T}) map per model, with its head and its weight {k} back",
                f"panels = pc.lab.lab_attention_panels(result, 'T', {trained!r})", "grids = [p.grid for p in panels]")
    panels = lab_attention_panels(result, "4T")
    if panels:
        show(figures.small_multiples(
            [p.grid for p in panels], [panel_title(p) for p in panels],
            title=f"The same heads at 4T = {4 * T}", cols=min(3, len(panels)),
            value_name="attention", name="lab_attention_4T", cell_px=260, max_side=128,
            margin=PANEL_MARGIN,
            alt="The same heads on a sequence four times longer; the learned table's panel is empty "
                "because it cannot run there."))
    notice(f"Each panel is the head that puts the most weight exactly {k} keys back at length T (its "
           f"layer L and head H, and that weight, are in the title). A model that solved the task by "
           f"offset shows a thin line {k} below the diagonal; at 4T look whether the line continues past "
           f"row {T} or smears out. The RoPE variants are identical to RoPE at T (no scaling is needed "
           "there), so only the 4T figure shows them.")
    formula(r"m_{-k} = \frac{1}{L-k}\sum_{t=k}^{L-1} a_{t,\,t-k},\qquad k = $k,\ L \in \{$T, $T4\}",
            k=k, T=T, T4=4 * T)


def reading(shipped: LabResult) -> str:
    """The closing reading, its numbers those of the shipped full run (``shipped``)."""
    acc = lab_by_method(shipped, "accuracy")
    return READING.format(alibi_t=acc["alibi"][0], none_t=acc["none"][0], sin_2t=acc["sinusoidal"][1],
                          rope_2t=acc["rope"][1], t5_2t=acc["t5"][1], rope_8t=acc["rope"][-1], t5_8t=acc["t5"][-1],
                          alibi_8t=acc["alibi"][-1], yarn_8t=acc["rope_yarn"][-1])


READING = """
**What the experiment shows.** The task rewards exactly one thing: knowing *the offset* between two tokens.
Encodings that put the offset into the attention score (RoPE, ALiBi, T5 buckets) hand the model that number directly
at any length, so a rule learned at T can still apply at 8T. Encodings that add an absolute position to the input
(sinusoidal, learned) make the model learn *where* things are, and beyond T it meets positions it never saw. The
learned table cannot even be asked: a sequence longer than T needs rows that were never created, so the plot has no
point there rather than an invented one. In the shipped full run every encoding learns the task at T (100%, ALiBi
{alibi_t:.1%}; with no encoding only {none_t:.0%}), and then: sinusoidal falls to {sin_2t:.0%} at 2T, RoPE and T5
hold at 2T ({rope_2t:.0%} and {t5_2t:.0%}) and fade by 8T ({rope_8t:.0%} and {t5_8t:.0%}), ALiBi stays flat at
{alibi_8t:.1%}.

**Why relative methods still fade.** At 8T every query spreads its softmax over eight times as many keys, and small
logits on far keys add up (*attention dilution*). The T5 model also meets distance buckets it never trained (they
grow logarithmically up to 128 and start at zero), and the RoPE model's slow pairs turn through angles it never saw.
ALiBi's penalty grows with distance, so far keys fade out on their own: that is why its curve is flat. Its heads do
not single out the key 2 back, though (see the attention maps): its bias always favours the nearest key, so the two
layers share the work.

**The RoPE variants change nothing but the frequencies, at test time.** Position interpolation divides every
frequency by L/T, so the 2-step offset the model learned shrinks to a fraction of a step: without fine-tuning (for
which it was designed) it collapses to chance. NTK-aware scaling and YaRN keep the fast pairs, which carry short
offsets, almost unchanged and stretch only the slow ones; YaRN also sharpens the softmax by its attention factor,
which counters dilution, and in the shipped run it keeps {yarn_8t:.0%} at 8T. (A common misconception has this
backwards: that high frequencies are interpolated and low ones extrapolated; it is the other way round.)

**What a tiny model cannot show.** This is one synthetic task, two layers, minutes of training and one seed: change
the seed or the steps and the numbers move (in the quick preset ALiBi usually has not learned the task at all yet,
and the model without an encoding stays near 30%). A language model uses position for many things at once (syntax,
recency, counting), trains on far more data, and is usually fine-tuned after a context extension; on real text these
methods can rank differently. Read the curves as a demonstration of mechanisms, what each encoding makes easy or
impossible, not as a benchmark.
"""
