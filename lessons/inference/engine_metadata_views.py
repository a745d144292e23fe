"""Cached core calls and figures of the lesson "What the engine reads" (lessons/inference/engine_metadata.py)."""

from __future__ import annotations

import hashlib
import json

import streamlit as st

from page_kit import figures
from posenc_core.inference import (
    GGUF_EXAMPLES,
    MAX_HEADER_BYTES,
    SMOLLM2_CONFIG,
    SOURCES,
    engine_rows,
    engine_table,
    engine_wavelengths,
    full_turns,
    gguf_example,
    gguf_rope_keys,
    llama_cpp_flags,
    read_gguf_header,
    vllm_flags,
)

COLOURS = {name: i for i, name in enumerate(SOURCES)}
LENGTHS = [2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144]
UPLOAD_MB = MAX_HEADER_BYTES >> 20


@st.cache_data(max_entries=8, show_spinner=False)
def example_header(key: str):
    """(GGUFHeader, config.json text) of one of the lesson's examples."""
    data, config = gguf_example(key)
    return read_gguf_header(data), json.dumps(config)


@st.cache_data(max_entries=4, show_spinner="Reading the header…")
def uploaded_header(data: bytes):
    return read_gguf_header(data)


@st.cache_data(max_entries=32, show_spinner="Reading every source through its own rules…")
def table_for(key: str, llama_text: str, vllm_text: str) -> dict:
    header, config = example_header(key)
    return engine_table(header, json.loads(config), llama_text, vllm_text)


@st.cache_data(max_entries=16, show_spinner="Reading every source through its own rules…")
def upload_table(digest: str, data: bytes, config_text: str) -> dict:  # digest: a short cache key for the bytes
    return engine_table(uploaded_header(data), json.loads(config_text))


@st.cache_data(max_entries=32, show_spinner=False)
def waves_for(key: str, llama_text: str, vllm_text: str):
    return engine_wavelengths(table_for(key, llama_text, vllm_text))


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def wave_chart(ex: str, L: int, lf: str, vf: str):  # noqa: N803 (the URL keys)
    """Each source's wavelength per rotary pair for example ``ex`` and the flags given, length ``L`` marked."""
    pairs, waves = waves_for(ex, lf, vf)
    label = GGUF_EXAMPLES[ex].label
    return figures.lines(pairs, waves, title=f"{label}: the wavelength of each pair, by source",
                         x_title="rotary pair i", y_title="wavelength (tokens)", log_y=True, name="engine_waves",
                         colours=COLOURS, dashed=("llama.cpp", "vLLM"), legend_right=True,
                         hlines=[(L, f"L = {L:,}")],
                         alt=f"Wavelength in tokens of each of {len(pairs)} rotary pairs for {label}, one curve per "
                             "source: " + ", ".join(waves) + f"; a line marks {L:,} tokens.")


@st.cache_data(max_entries=32, show_spinner=False)
def turns_for(key: str, llama_text: str, vllm_text: str, length: int) -> dict:
    return full_turns(table_for(key, llama_text, vllm_text), length)


def frame(columns: dict) -> None:
    """A table tall enough for every row (no inner scroll bar)."""
    rows = len(next(iter(columns.values())))
    st.dataframe(columns, hide_index=True, width="stretch", height=36 * rows + 40)


def rows_table(table: dict) -> None:
    """The comparison table, values that differ from config.json's marked ≠."""
    rows = engine_rows(table)
    frame({col: [r[col] for r in rows] for col in rows[0]})


def keys_table(header) -> None:
    rows = gguf_rope_keys(header)
    frame({"gguf constant": [r["constant"] for r in rows], "key": [r["key"] for r in rows],
            "type": [r["type"] or "absent" for r in rows],
            "value": [shown(r["value"]) if r["present"] else "—" for r in rows]})


# llama.cpp's settings as the Engine flags tab lists them: label -> key of pc.inference.llama_cpp_rope's dict
LLAMA_FIELDS = {"context (-c)": "n_ctx", "trained context": "n_ctx_train", "base (rope_freq_base)": "freq_base",
                "scale (rope_freq_scale = 1/factor)": "freq_scale", "scaling type": "scaling_type",
                "YaRN original context": "n_ctx_orig_yarn", "YaRN ext_factor": "ext_factor",
                "YaRN beta_fast": "beta_fast", "YaRN beta_slow": "beta_slow", "factor on cos and sin": "mscale",
                "rotated dimensions": "n_rot"}
# the flag that sets each field (pc.inference.llama_cpp_flags' names)
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


# the GGUF's own value of each field (pc.inference.llama_cpp_rope's "gguf" dict), where the file sets one
LLAMA_GGUF_FIELDS = {"n_ctx": "n_ctx_train", "n_ctx_train": "n_ctx_train", "freq_base": "rope_freq_base",
                     "freq_scale": "rope_freq_scale", "scaling_type": "rope_scaling_type",
                     "n_ctx_orig_yarn": "n_ctx_orig_yarn", "n_rot": "n_rot"}


def llama_table(llama: dict) -> None:
    """llama.cpp's settings: what the GGUF says, whether a flag replaced it, and what runs."""
    given, gguf = set(llama["given"]), llama["gguf"]
    frame({"setting": list(LLAMA_FIELDS),
            "GGUF (or llama.cpp's default)": [shown(gguf.get(LLAMA_GGUF_FIELDS.get(k, ""))) for k in
                                              LLAMA_FIELDS.values()],
            "flag given": ["yes" if LLAMA_FLAG_FIELDS.get(k) in given else "" for k in LLAMA_FIELDS.values()],
            "llama.cpp uses": [shown(llama[k]) for k in LLAMA_FIELDS.values()]})


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
