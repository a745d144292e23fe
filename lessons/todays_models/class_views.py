"""Predict-then-reveal questions (and snippet lines shared by several figures) of the Today's models lessons.

Each question's answer is read from the same core results the figure below it draws, so it holds at every
control value; the reveal sentence cites those numbers. Each ``ask_*`` returns a context manager: wrap the
block that answers the question in it (``with class_views.ask_x(...):``) so that block stays hidden until the
student answers (``classroom.Prediction``); where a setting leaves no single right answer it asks nothing and
returns a context that hides nothing.
"""

from __future__ import annotations

import contextlib
import json

import numpy as np

import posenc_core as pc
from page_kit import classroom
from page_kit.lesson import formula

# --- layer_strip ---


def config_lines(config_text: str) -> list[str]:
    """The snippet's first lines: the same config read the same way (a preset by name, else the pasted text)."""
    preset = next((k for k, p in pc.PRESETS.items() if json.dumps(p.config) == config_text), None)
    config = (f"config = {classroom.call('preset_config', preset)}" if preset else
              f"config = {classroom.call('parse_config_json', config_text)}")
    return [config, "reading, rows = pc.read_layers(config)  # rows: one LayerRow per layer"]


def ask_longer_prompt(rows, context: int) -> None:
    """Predict (a what-if about the strip's top row): with a prompt twice the context, in how many attention layers
    does a query meet keys farther back than any a context-long prompt holds? Those without a window or chunk
    narrower than the context; the count stays hidden until answered."""
    attention = [r for r in rows if r.is_attention]
    if not attention:  # nothing attends: the strip has no spans to ask about
        return
    spans = {r.index: r.window or r.chunk for r in attention}  # None: the whole prompt
    farther = [i for i, span in spans.items() if span is None or span > context]
    bounded = sorted({span for span in spans.values() if span is not None and span <= context})
    answer = 0 if len(farther) == len(attention) else 2 if not farther else 1

    def reveal() -> str:
        return (f"{len(farther)} of the {len(attention)} attention layers have no window or chunk narrower than "
                f"{context:,} tokens: with {2 * context:,} tokens their queries meet keys up to {2 * context - 1:,} "
                "positions back, twice as far as ever before."
                + (f" The other {len(attention) - len(farther)} see at most "
                   f"{' or '.join(f'{b:,}' for b in bounded)} tokens back (the window cells of the top row), "
                   "however long the prompt." if bounded else ""))

    with classroom.predict("strip_longer", f"Give this model a prompt of {2 * context:,} tokens, twice its "
                           f"{context:,}-token context. In how many of its attention layers does a query then meet "
                           f"a key farther back than {context - 1:,} positions?",
                           [f"all {len(attention)} of them", "some of them", "none of them"], answer, reveal):
        formula(r"\#\{\ell:\ \text{span}_\ell > $L\} = $k\ \text{of}\ $n\ \text{attention layers}",
                L=context, k=len(farther), n=len(attention))


# --- local_global ---


def ask_slowest(model: str, wl_local, wl_full) -> contextlib.AbstractContextManager:
    """Predict: which layer kind's slowest rotating pair has the longer wavelength (finite ones only)?"""
    slowest = {k: float(np.nanmax(np.where(np.isfinite(w), w, np.nan))) for k, w in
               (("local", wl_local), ("full", wl_full))}
    ratio = slowest["full"] / slowest["local"]
    answer = 0 if ratio > 1.0001 else 1 if ratio < 0.9999 else 2

    def reveal() -> str:
        return (f"The slowest rotating pair has a wavelength of {slowest['local']:,.0f} tokens in the sliding-window "
                f"layers and {slowest['full']:,.0f} in the full layers (×{ratio:.3g}): the highest point of each line "
                "below.")

    return classroom.predict(
        "lg_slowest", f"{model} has sliding-window and full-attention layers. Which kind's slowest "
                      "rotating pair has the longer wavelength?",
                      ["the full layers'", "the sliding-window layers'", "neither: they are equal"], answer, reveal)


# --- nope_layers ---


def ask_scout(rows) -> contextlib.AbstractContextManager:
    """Predict: which of Llama 4 Scout's layers see the whole context? (read from its config, not the map)"""
    whole = {row.rotates for row in rows if row.chunk is None and row.window is None}
    answer = {frozenset({False}): 0, frozenset({True}): 1, frozenset({True, False}): 2}.get(frozenset(whole), 3)
    full = [row.index for row in rows if row.chunk is None and row.window is None]
    chunks = sorted({row.chunk for row in rows if row.chunk})

    def reveal() -> str:
        listed = ", ".join(str(i) for i in full[:4]) + (", ..." if len(full) > 4 else "")
        return (f"{len(full)} of Scout's {len(rows)} layers attend to the whole context of "
                f"{rows[0].max_position_embeddings:,} positions (layers {listed}), and none of them rotates; the "
                f"other {len(rows) - len(full)} rotate but see only chunks of "
                f"{', '.join(f'{c:,}' for c in chunks) or 'no'} tokens.")

    return classroom.predict("nope_scout", "Llama 4 Scout splits its context into chunks in some layers. Which "
                             "of its layers see the whole context?",
                             ["the layers without positions", "the rotating layers", "every layer", "none"],
                             answer, reveal)


def ask_first_step(grid, period: int) -> contextlib.AbstractContextManager:
    """Predict: which rule leaves 1 first? Read from the rules at scale 1 on the drawn positions."""
    first = {name: int(grid[np.argmax(curve > 1)]) if (curve > 1).any() else None for name, curve in
             zip(("llama", "mistral"), (pc.llama4_attn_temperature(grid, 1.0, 8192),
                                       pc.llama_4_scaling_beta(grid, 1.0, period)), strict=True)}
    if None in first.values():
        return contextlib.nullcontext()  # a context shorter than a period: no step to ask about
    answer = 0 if first["llama"] < first["mistral"] else 1 if first["mistral"] < first["llama"] else 2

    def reveal() -> str:
        return (f"Llama 4's multiplier first leaves 1 at p = {first['llama']:,} and Mistral's at "
                f"p = {first['mistral']:,} (with original_max_position_embeddings {period:,}).")

    return classroom.predict("nope_first_step", f"Mistral's original_max_position_embeddings is {period:,}. Which "
                      "multiplier steps above 1 first?", ["Llama 4's", "Mistral's", "both at the same position"],
                      answer, reveal)


# --- hybrids ---


def ask_all_drop() -> contextlib.AbstractContextManager:
    """Predict: do hybrids drop positions from their attention? Read from the table's own rows."""
    without = [name for name, m in pc.HYBRID_MODELS.items() if m.rotates.startswith("none")]
    rotating = [name for name in pc.HYBRID_MODELS if name not in without]
    answer = 0 if not rotating else 2 if not without else 1

    def reveal() -> str:
        return (f"Of the {len(pc.HYBRID_MODELS)} hybrids in the table, {len(without)} give attention no positions "
                f"({', '.join(without) or 'none'}) and {len(rotating)} rotate q and k in it "
                f"({', '.join(rotating) or 'none'}).")

    return classroom.predict("hybrid_drop", "Hybrids fill most layers with mixers that read the sequence in order. "
                      "Which of them drop positions from their attention layers?",
                      ["every one of them", "some drop them, some keep RoPE", "none of them"],
                      answer, reveal)


def ask_blind(errors: dict, kind: str, exact: float) -> contextlib.AbstractContextManager:
    """Predict: which mixer cannot see the reordering? The one whose outputs only move with the tokens."""
    blind = [name for name, e in errors.items() if float(e.max()) <= exact]
    if len(blind) != 1:
        return contextlib.nullcontext()  # a setting where the answer is not a single mixer: no question

    def reveal() -> str:
        return (f"Only {blind[0]} gives the reordered outputs exactly (largest difference "
                f"{float(errors[blind[0]].max()):.0e}, rounding); the others differ by up to "
                + ", ".join(f"{float(e.max()):.2f} ({n})" for n, e in errors.items() if n != blind[0]) + ".")

    return classroom.predict(
        "hybrid_blind", f"Apply a {kind} to the input tokens. Which mixer's output is just the old "
                      "output reordered the same way, as if it could not see order?", list(errors),
                      list(errors).index(blind[0]), reveal)


# --- attention_sinks ---


def ask_row_sum(kept: float, sink_share: float, w: int) -> contextlib.AbstractContextManager:
    """Predict: do a row's probabilities on real keys still sum to 1 once the sink joins the softmax?"""
    answer = 1 if kept < 1 - 1e-12 else 0

    def reveal() -> str:
        return (f"In the last row the {w} real keys get {kept:.4f} in total and the sink column {sink_share:.4f}; "
                "the two add up to 1, and the sink's share is dropped before the values are mixed.")

    return classroom.predict("sink_row_sum", "The sink logit joins every row of the softmax. Add up one row's "
                      "probabilities on the real keys: what do you get?",
                      ["exactly 1: softmax always hands out everything", "less than 1: the sink's share is gone",
                       "more than 1"], answer, reveal)


def ask_window(full: float, windowed: float, window: int, position: int) -> contextlib.AbstractContextManager:
    """Predict: far down the sequence, does the sink keep more of the query's attention with or without a window?"""
    answer = 0 if full > windowed else 1 if windowed > full else 2

    def reveal() -> str:
        return (f"At position {position:,} the sink takes {full:.3g} under full attention ({position + 1:,} keys) "
                f"and {windowed:.3g} in a window of {window} keys: the last point of each line below.")

    return classroom.predict(
        "sink_window", f"A query at position {position:,}. Where does the sink take a larger share: "
                      f"under full attention or in a sliding window of {window}?",
                      ["full attention", f"the window of {window}", "the same in both"], answer, reveal)


# --- latent_attention ---


def scores_code(preset: str, heads: int, tokens: int, start: int, interleave: bool, name: str = "out") -> str:
    """The snippet line that computes the latent-attention scores the figures show."""
    return f"{name} = {classroom.call('mla_demo_scores', preset, heads, tokens, start, 0, interleave)}"


def ask_shift(preset: str, heads: int, tokens: int, start: int, out: dict) -> contextlib.AbstractContextManager:
    """Predict: move every token by the same number of positions; what happens to the position term?"""
    limit = pc.MLA_PRESETS[preset].max_position_embeddings - tokens
    moved_start = start + 1000 if start + 1000 <= limit else max(0, start - 1000)
    moved = pc.mla_demo_scores(preset, heads, tokens, moved_start, 0, pc.MLA_PRESETS[preset].rope_interleave)
    causal = np.tril(np.ones((tokens, tokens), bool))
    change = float(np.abs(moved["position"] - out["position"])[:, causal].max())
    size = float(np.abs(out["position"][:, causal]).max())
    answer = 0 if change <= 0.1 * size else 1  # float32 angles far out round by a few hundredths of a radian

    def reveal() -> str:
        return (f"Starting at {moved_start:,} instead of {start:,}, the position term changes by at most "
                f"{change:.2g} (its entries reach {size:.3g}): float32 rounding. The same tokens keep the same "
                "offsets i − j, and that is all the rotated slice sees.")

    return classroom.predict("mla_shift", f"Move all {tokens} tokens so they start at position {moved_start:,} instead "
                      f"of {start:,}. What happens to the middle panel, the position term?",
                      ["nothing, up to rounding", "it changes everywhere", "it fades towards 0"], answer, reveal)


# --- fewer_frequencies ---


def ask_same_speeds(info: dict, fraction: float) -> contextlib.AbstractContextManager:
    """Predict: with the same fraction, do partial rotary and p-RoPE turn at the same speeds?"""
    partial, p_rope = info["partial rotary"]["longest_wavelength"], info["p-RoPE"]["longest_wavelength"]
    answer = 0 if abs(partial - p_rope) <= 1e-9 * partial else 1 if partial > p_rope else 2

    def reveal() -> str:
        slow = {m: float(info[m]["inv_freq"][info[m]["inv_freq"] > 0].min()) for m in ("partial rotary", "p-RoPE")}
        return (f"The slowest turning pair has a wavelength of {partial:,.0f} positions under partial rotary "
                f"(ω = {slow['partial rotary']:.3g} rad per position) and {p_rope:,.4g} under p-RoPE "
                f"(ω = {slow['p-RoPE']:.3g}); RoPE's own slowest is {info['RoPE']['longest_wavelength']:,.0f}. "
                "The highest point of each line in the chart below.")

    return classroom.predict(
        "fewer_same", f"Partial rotary and p-RoPE both rotate a fraction {fraction:g} of the head. "
                      "How do the speeds of their turning dimensions compare?",
                      ["the same: the same fraction gives the same frequencies",
                       "partial rotary still reaches RoPE's slowest speed, p-RoPE keeps only the fastest",
                       "p-RoPE keeps the slowest speeds, partial rotary the fastest"], answer, reveal)


# --- drope ---


def result_code(wanted, shipped_run: bool) -> str:
    """The line that gives the snippet the run the page shows: the shipped file, or the same live call."""
    if shipped_run:
        return ('result = pc.load_drope_result("assets/drope_seed0.json")  # the shipped run (from the repository '
                'root)')
    steps, recalibration, seed = wanted
    return (f"result = {classroom.call('drope_experiment', steps=steps, recalibration=recalibration, seed=seed)}"
            "  # about a minute on CPU")


def ask_dropped(acc: dict, t: int) -> contextlib.AbstractContextManager:
    """Predict: a trained RoPE model with its rotations removed, before any recalibration, at length T."""
    drop = acc["rope"][0] - acc["dropped"][0]
    answer = 1 if drop > 0.05 else 2 if drop < -0.05 else 0

    def reveal() -> str:
        return (f"At T = {t} the RoPE model scores {acc['rope'][0]:.0%} and the same weights without rotations "
                f"{acc['dropped'][0]:.0%} (the leftmost points of the first two lines below).")

    return classroom.predict("drope_dropped", f"Take the trained RoPE model and remove every rotation, with no further "
                      f"training. At its training length T = {t}, its accuracy...",
                      ["it stays about the same", "it falls", "it rises"], answer, reveal)


# --- cope ---


def example_code(text: str, unit: str, target: int, sharpness: float, *lines: str) -> None:
    """A snippet that rebuilds the counting example the CoPE figures draw, then ``lines`` reading from it."""
    classroom.snippet(f"ex = {classroom.call('cope_counting_example', text, unit, target, sharpness)}", *lines)


def ask_how_many(ex: dict, unit: str, target: int) -> contextlib.AbstractContextManager:
    """Predict: how many keys share the position the query asks for?"""
    found = int(ex["at_target"].sum())
    answer = 0 if found == 1 else 1 if found > 1 else 2

    def reveal() -> str:
        keys = [t for t, hit in zip(ex["tokens"], ex["at_target"], strict=True) if hit]
        return (f"Counting {unit}, {found} key{'s sit' if found != 1 else ' sits'} at position {target}"
                + (f" ({' '.join(keys)}), and together they get {ex['target_mass']:.1%} of the attention."
                   if found else ": the text is too short to reach it."))

    return classroom.predict("cope_how_many", f"The query asks for position {target}, counting {unit}. How many keys "
                      "sit at that position?", ["exactly one", "several: a whole unit shares one position",
                                                "none"], answer, reveal)

