"""Predict-then-reveal questions about models' layers as their configs declare them (Layer by layer, Layers without
positions, Hybrids), and the config lines their snippets start with.

Each answer is read from the same rows or core results the figure draws, so it holds for every model and control
value; ``ask_*`` returns a context manager that hides the block answering it (``classroom.predict``), or one that
hides nothing where a setting leaves no single right answer.
"""

from __future__ import annotations

import contextlib
import json

import posenc_core as pc
from lessons.todays_models.words import HYBRID_NAMES, MIXER_NAMES
from page_kit import classroom
from page_kit.lesson import formula
from posenc_core.todays_models import HYBRID_MODELS, OrderTest, query_scale_first_steps

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
    first = query_scale_first_steps(grid, period)
    if first.llama is None or first.mistral is None:
        return contextlib.nullcontext()  # a context shorter than a period: no step to ask about
    answer = 0 if first.llama < first.mistral else 1 if first.mistral < first.llama else 2

    def reveal() -> str:
        return (f"Llama 4's multiplier first leaves 1 at p = {first.llama:,} and Mistral's at "
                f"p = {first.mistral:,} (with original_max_position_embeddings {period:,}).")

    return classroom.predict("nope_first_step", f"Mistral's original_max_position_embeddings is {period:,}. Which "
                      "multiplier steps above 1 first?", ["Llama 4's", "Mistral's", "both at the same position"],
                      answer, reveal)


# --- hybrids ---


def ask_all_drop() -> contextlib.AbstractContextManager:
    """Predict: do hybrids drop positions from their attention? Read from the table's own rows."""
    without = [HYBRID_NAMES[code] for code, m in HYBRID_MODELS.items() if m.rotates == "none"]
    rotating = [HYBRID_NAMES[code] for code, m in HYBRID_MODELS.items() if m.rotates != "none"]
    answer = 0 if not rotating else 2 if not without else 1

    def reveal() -> str:
        return (f"Of the {len(HYBRID_MODELS)} hybrids in the table, {len(without)} give attention no positions "
                f"({', '.join(without) or 'none'}) and {len(rotating)} rotate q and k in it "
                f"({', '.join(rotating) or 'none'}).")

    return classroom.predict("hybrid_drop", "Hybrids fill most layers with mixers that read the sequence in order. "
                      "Which of them drop positions from their attention layers?",
                      ["every one of them", "some drop them, some keep RoPE", "none of them"],
                      answer, reveal)


def ask_blind(result: OrderTest, kind: str) -> contextlib.AbstractContextManager:
    """Predict: which mixer cannot see the reordering? The one whose outputs only move with the tokens."""
    blind = [MIXER_NAMES[code] for code in result.blind]
    largest = {MIXER_NAMES[code]: v for code, v in result.largest.items()}
    errors = [MIXER_NAMES[code] for code in result.errors]
    if len(blind) != 1:
        return contextlib.nullcontext()  # a setting where the answer is not a single mixer: no question

    def reveal() -> str:
        return (f"Only {blind[0]} gives the reordered outputs exactly (largest difference "
                f"{largest[blind[0]]:.0e}, rounding); the others differ by up to "
                + ", ".join(f"{v:.2f} ({n})" for n, v in largest.items() if n != blind[0]) + ".")

    return classroom.predict(
        "hybrid_blind", f"Apply a {kind} to the input tokens. Which mixer's output is just the old "
                      "output reordered the same way, as if it could not see order?", errors,
                      errors.index(blind[0]), reveal)
