"""The lesson "What the engine reads" in words: the sources' names, each reading field's meaning, a sentence per
``pc.inference.Disagreement`` and per note code, and the comparison table's cells (lessons/inference/
engine_metadata.py)."""

from __future__ import annotations

from typing import Any

from posenc_core.inference import FREQ_FACTORS, SOURCES, Disagreement, EngineCell, EngineTable, engine_rows

# pc.inference.SOURCES: each source's name on the page
SOURCE_LABELS = {"config": "config.json", "transformers": "GGUF → transformers", "llama.cpp": "llama.cpp",
                 "vllm": "vLLM"}

# pc.inference.READING_FIELDS: what each means, as the comparison sentences name it
FIELD_WORDS = {
    "model_type": "the model type",
    "rotary_dim": "the rotated dimensions per head",
    "rope_theta": "the RoPE base (rope_theta / freq_base)",
    "rope_type": "the scaling type",
    "factor": "the scaling factor",
    "original_max_position_embeddings": "the original context of the scaling",
    "beta_fast": "YaRN's beta_fast",
    "beta_slow": "YaRN's beta_slow",
    "attention_factor": "the factor on cos and sin (YaRN's attention scaling)",
    "context": "the context length (max_position_embeddings, or the length an engine serves)",
}
SCALING_WORDS = {FREQ_FACTORS: "rope_freqs tensor"}  # a rope_type code shown as more than its name


def value_text(value: Any) -> str:
    """A reading's value in the comparison table and its sentences."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:,.6g}" if value < 1e6 or not value.is_integer() else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return SCALING_WORDS.get(value, str(value))


# pc.inference.DISAGREEMENT_KINDS: (disagreement, first source's name, second's) -> a sentence
DISAGREEMENT_WORDS = {
    "freq_factors": lambda d, first, second: (
        f"{second} divides each pair's frequency by the file's own factors (a rope_freqs tensor, written at "
        f"conversion, whose values lie past the header) where {first} has {d.first} scaling."),
    "dropped": lambda d, first, second: f"{second} drops the {d.first} scaling that {first} has: plain RoPE.",
    "added": lambda d, first, second: f"{second} adds {d.second} scaling that {first} does not have.",
    "differs": lambda d, first, second: (f"They disagree on {FIELD_WORDS[d.field]}: {value_text(d.first)} in "
                                         f"{first}, {value_text(d.second)} in {second}."),
}


def said(found: tuple[Disagreement, ...], first: str, second: str) -> list[str]:
    """One sentence per disagreement between two sources, named ``first`` and ``second``."""
    return [DISAGREEMENT_WORDS[d.kind](d, first, second) for d in found]


def disagreement_sentences(table: EngineTable) -> dict[str, list[str]]:
    """{source code: its sentences against config.json}."""
    return {source: said(found, SOURCE_LABELS["config"], SOURCE_LABELS[source])
            for source, found in table.disagreements.items()}


# pc.inference.ENGINE_NOTES: what a header cannot show, as a sentence
NOTE_WORDS = {
    "freq_factor_tensors": lambda t: (
        f"The file carries {', '.join(t.llama.freq_factors)}: per-pair factors llama.cpp divides each frequency "
        "by. Their values are tensor data, past the header, so llama.cpp's curve is left out."),
    "tensor_list_cut": lambda t: (
        "The bytes end before the file's tensor list, so a rope_freqs tensor (how a conversion carries llama3 and "
        "LongRoPE scaling to llama.cpp) could not be looked for: send more of the file."),
}


def notes(table: EngineTable) -> list[str]:
    return [NOTE_WORDS[code](table) for code in table.notes]


def _cell_text(cell: EngineCell, first_row: bool) -> str:
    if cell.status == "failed":
        return "cannot load" if first_row else ""
    if cell.status == "refused":
        return "≠ refused"
    return ("≠ " if cell.differs else "") + value_text(cell.value)


def row_columns(table: EngineTable) -> dict[str, list[str]]:
    """The comparison table's columns: the field, then one per source; a value that differs from config.json's
    starts with "≠ ", and a source that could not load says so once, in the first row."""
    rows = engine_rows(table)
    columns: dict[str, list[str]] = {"field": [row.field for row in rows]}
    for source in SOURCES:
        columns[SOURCE_LABELS[source]] = [_cell_text(row.cells[source], i == 0) for i, row in enumerate(rows)]
    return columns


def wave_notice(table: EngineTable, turning: dict[str, int], length: int, said: dict[str, list[str]]) -> str:
    """How many pairs of each source turn within ``length``, and which sources agree with config.json (``said``:
    each source's sentences against it)."""
    pairs = table.readings["config"].rotary_dim // 2
    same = [SOURCE_LABELS[name] for name, s in said.items() if not s and name in turning]
    return (f"Pairs that complete a full turn within {length:,} tokens: " +
            "; ".join(f"{SOURCE_LABELS[k]} {v} of {pairs}" for k, v in turning.items()) + ". " +
            (f"Agreeing with config.json on every field: {', '.join(same)}." if same else
             "No source agrees with config.json on every field."))
