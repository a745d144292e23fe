"""Cached core calls and figures of the lesson "What the engine reads" (lessons/inference/engine_metadata.py)."""

from __future__ import annotations

import hashlib
import json

import streamlit as st

from lessons.inference import engine_words_views as words
from lessons.inference.engine_examples_views import GGUF_EXAMPLES, SMOLLM2_CONFIG, gguf_example
from page_kit import figures
from posenc_core.inference import (
    MAX_HEADER_BYTES,
    SOURCES,
    EngineTable,
    GGUFArray,
    GGUFHeader,
    LlamaCppRope,
    engine_table,
    engine_wavelengths,
    full_turns,
    gguf_rope_keys,
    llama_cpp_flags,
    read_gguf_header,
    vllm_flags,
)

COLOURS = {words.SOURCE_LABELS[name]: i for i, name in enumerate(SOURCES)}
LENGTHS = [2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144]
UPLOAD_MB = MAX_HEADER_BYTES >> 20
LEGACY_CONSTANT = "(llama.cpp's older name)"  # the key gguf has no constant for (pc.inference.LEGACY_SCALE_KEY)


@st.cache_data(max_entries=8, show_spinner=False)
def example_header(key: str):
    """(GGUFHeader, config.json text) of one of the lesson's examples."""
    data, config = gguf_example(key)
    return read_gguf_header(data), json.dumps(config)


@st.cache_data(max_entries=4, show_spinner="Reading the header…")
def uploaded_header(data: bytes):
    return read_gguf_header(data)


@st.cache_data(max_entries=32, show_spinner="Reading every source through its own rules…")
def table_for(key: str, llama_text: str, vllm_text: str) -> EngineTable:
    header, config = example_header(key)
    return engine_table(header, json.loads(config), llama_text, vllm_text)


@st.cache_data(max_entries=16, show_spinner="Reading every source through its own rules…")
def upload_table(digest: str, data: bytes, config_text: str) -> EngineTable:  # digest: a short key for the bytes
    return engine_table(uploaded_header(data), json.loads(config_text))


@st.cache_data(max_entries=32, show_spinner=False)
def waves_for(key: str, llama_text: str, vllm_text: str):
    return engine_wavelengths(table_for(key, llama_text, vllm_text))


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def wave_chart(ex: str, L: int, lf: str, vf: str):  # noqa: N803 (the URL keys)
    """Each source's wavelength per rotary pair for example ``ex`` and the flags given, length ``L`` marked."""
    pairs, by_source = waves_for(ex, lf, vf)
    waves = {words.SOURCE_LABELS[name]: wave for name, wave in by_source.items()}
    label = GGUF_EXAMPLES[ex].label
    return figures.lines(pairs, waves, title=f"{label}: the wavelength of each pair, by source",
                         x_title="rotary pair i", y_title="wavelength (tokens)", log_y=True, name="engine_waves",
                         colours=COLOURS, dashed=("llama.cpp", "vLLM"), legend_right=True,
                         hlines=[(L, f"L = {L:,}")],
                         alt=f"Wavelength in tokens of each of {len(pairs)} rotary pairs for {label}, one curve per "
                             "source: " + ", ".join(waves) + f"; a line marks {L:,} tokens.")


@st.cache_data(max_entries=32, show_spinner=False)
def turns_for(key: str, llama_text: str, vllm_text: str, length: int) -> dict[str, int]:
    return full_turns(table_for(key, llama_text, vllm_text), length)


def frame(columns: dict) -> None:
    """A table tall enough for every row (no inner scroll bar)."""
    rows = len(next(iter(columns.values())))
    st.dataframe(columns, hide_index=True, width="stretch", height=36 * rows + 40)


def rows_table(table: EngineTable) -> None:
    """The comparison table, values that differ from config.json's marked ≠."""
    frame(words.row_columns(table))


def key_value(value) -> str:
    """A key's value in the keys table: an array not read whole as its length and item type."""
    if isinstance(value, GGUFArray):
        return f"{value.count:,} × {value.item_type}"
    return shown(value)


def keys_table(header: GGUFHeader) -> None:
    rows = gguf_rope_keys(header)
    frame({"gguf constant": [r.constant or LEGACY_CONSTANT for r in rows], "key": [r.key for r in rows],
           "type": [r.type or "absent" for r in rows],
           "value": [key_value(r.value) if r.present else "—" for r in rows]})


# llama.cpp's settings as the Engine flags tab lists them: label -> field of pc.inference.LlamaCppRope
LLAMA_FIELDS = {"context (-c)": "n_ctx", "trained context": "n_ctx_train", "base (rope_freq_base)": "freq_base",
                "scale (rope_freq_scale = 1/factor)": "freq_scale", "scaling type": "scaling_type",
                "YaRN original context": "n_ctx_orig_yarn", "YaRN ext_factor": "ext_factor",
                "YaRN beta_fast": "beta_fast", "YaRN beta_slow": "beta_slow", "factor on cos and sin": "mscale",
                "rotated dimensions": "n_rot"}
# the flag that sets each field (pc.inference.LlamaCppFlags' fields)
LLAMA_FLAG_FIELDS = {"n_ctx": "n_ctx", "freq_base": "rope_freq_base", "freq_scale": "rope_freq_scale",
                     "scaling_type": "rope_scaling_type", "n_ctx_orig_yarn": "yarn_orig_ctx",
                     "ext_factor": "yarn_ext_factor", "beta_fast": "yarn_beta_fast", "beta_slow": "yarn_beta_slow",
                     "mscale": "yarn_attn_factor"}


def shown(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) >= 1e15:
        return f"{float(value):.3g}"  # past any real context: its digits say nothing
    if isinstance(value, float):
        return f"{value:,.0f}" if value.is_integer() and abs(value) >= 1e4 else f"{value:,.6g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def example_config_text() -> str:
    return json.dumps(SMOLLM2_CONFIG, indent=2)


# the GGUF's own value of each field (pc.inference.LlamaCppTrain, LlamaCppRope.gguf), where the file sets one
LLAMA_GGUF_FIELDS = {"n_ctx": "n_ctx_train", "n_ctx_train": "n_ctx_train", "freq_base": "rope_freq_base",
                     "freq_scale": "rope_freq_scale", "scaling_type": "rope_scaling_type",
                     "n_ctx_orig_yarn": "n_ctx_orig_yarn", "n_rot": "n_rot"}


def llama_table(llama: LlamaCppRope) -> None:
    """llama.cpp's settings: what the GGUF says, whether a flag replaced it, and what runs."""
    given, gguf = set(llama.given), llama.gguf
    frame({"setting": list(LLAMA_FIELDS),
           "GGUF (or llama.cpp's default)": [shown(getattr(gguf, LLAMA_GGUF_FIELDS[k], None))
                                             if k in LLAMA_GGUF_FIELDS else shown(None) for k in LLAMA_FIELDS.values()],
           "flag given": ["yes" if LLAMA_FLAG_FIELDS.get(k) in given else "" for k in LLAMA_FIELDS.values()],
           "llama.cpp uses": [shown(getattr(llama, k)) for k in LLAMA_FIELDS.values()]})


@st.cache_data(max_entries=64, show_spinner=False)
def usable_flags(llama_text: str, vllm_text: str) -> tuple[str, str, list[str]]:
    """The two command lines as the figure uses them: one that cannot be read is replaced by no flags, with
    the core's sentence saying why (a link may carry any text)."""
    problems = []
    try:
        llama_cpp_flags(llama_text)
    except ValueError as error:
        problems.append(f"The llama.cpp command cannot be read: {error} It is left out below.")
        llama_text = ""
    try:
        vllm_flags(vllm_text)
    except ValueError as error:
        problems.append(f"The vLLM command cannot be read: {error} It is left out below.")
        vllm_text = ""
    return llama_text, vllm_text, problems
