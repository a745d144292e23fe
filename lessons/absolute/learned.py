import html

import streamlit as st

from lessons.absolute import learned_views as views
from page_kit import (
    N_,
    _,
    classroom,
    controls,
    figures,
    formula,
    guard,
    header,
    hero,
    literal,
    notice,
    show,
    source,
    stage,
    why,
)
from page_kit.lesson.code_lines import fold
from posenc_core.absolute import (
    learned_lookup,
    load_position_table,
    principal_components,
    sampled_similarity,
)

header(_("Learned absolute embeddings"),
       _("Instead of a formula, a table P with one trainable row per position: row p is added to the token at "
         "position p, and a longer input than the table has nowhere to look."))
WHY = _("Instead of a formula, give the model a table P with one trainable row per position, T_max rows of C "
        "numbers, and add row p to the token at position p. Training shapes the rows however helps the task. "
        "BERT, GPT-2 and the original ViT work this way. The price: the table has exactly T_max rows, so a "
        "longer input has nowhere to look.")


def table_chart(rows: int, src: str, file_id: str, filename: str, tensor: str) -> figures.Chart:
    """The first ``rows`` rows of the table (``rows`` is the 'Positions analysed' slider's URL key)."""
    full = views.table_for(src, file_id, filename, tensor)
    total, cols = full.shape
    summary = views.analysis(src, file_id, filename, tensor, rows)["summary"]
    # a file name is the uploader's text: escaped, since a chart title reads <a>, <b> and <br> as markup
    label = views.SOURCES[src] if src == "minilm" else html.escape(filename, quote=False)
    return figures.heatmap(
        full[:rows], title=_("{label}: P has {total} rows x {cols} channels (showing positions 0-{last})").format(
            label=label, total=total, cols=cols, last=rows - 1),
        x_title=_("channel"), y_title=_("position p"), value_name="P[p, c]", name="learned_table", signed=True,
        robust=99,
        alt=_("Heatmap of a learned position table with {total} rows and {cols} channels, positions 0 to {last}; "
              "row norms run from {low:.2f} to {high:.2f}.").format(total=total, cols=cols, last=rows - 1,
                                                                    low=summary.min_norm, high=summary.max_norm))


def lookup_chart(src: str, file_id: str, filename: str, tensor: str, **slider) -> figures.Chart:
    length = slider["len"]  # the slider's URL key, a builtin's name
    rows = views.table_for(src, file_id, filename, tensor).shape[0]
    rows_used = views.lookup(src, file_id, filename, tensor, length)
    alt = (_("Heatmap of the rows looked up for {length} positions from a table of {rows}; below row {last} the plot "
             "is empty.") if length > rows else
           _("Heatmap of the rows looked up for {length} positions from a table of {rows}."))
    return figures.heatmap(
        rows_used, title=_("Rows looked up for {length} positions (blank: no row exists)").format(length=length),
        x_title=_("channel"), y_title=_("position p"), value_name="P[p, c]", name="learned_lookup", signed=True,
        robust=99, alt=alt.format(length=length, rows=rows, last=rows - 1))


def table_tab(page, v) -> None:
    rows, cols, summary, table_code = v["rows"], v["cols"], v["info"]["summary"], v["table_code"]
    src, file_id, filename, tensor = v["key"]
    show(hero(table_chart, rows=v["shown"], src=src, file_id=file_id, filename=filename, tensor=tensor))
    classroom.snippet(*table_code)

    def rows_reveal() -> str:
        return _("{missing} A model with a learned table refuses (or truncates) longer inputs; the '{tab}' tab "
                 "shows the lookup running out.").format(
            missing=views.missing_rows_message(rows, 2 * rows), tab=_("Past the last row"))

    with classroom.predict("learned_rows", _("P has {rows} rows and {cols} channels. How many positions can the "
                                             "model give a position vector?").format(rows=rows, cols=cols),
                           [_("as many as P has rows"), _("as many as P has channels"),
                            _("any number: it extends the pattern"), _("any number: the rows repeat")], 0,
                           rows_reveal):
        formula(r"P \in \mathbb{R}^{T_{\max}\times C} = \mathbb{R}^{$rows\times $cols},\qquad x_p = E[w_p] + P[p]",
                rows=rows, cols=cols)
        formula(r"\overline{\lVert P[p]\rVert} = $norm", norm=summary.mean_norm)
        notice(_("Every row is just a vector of numbers the optimiser moved, with no formula behind it. Yet the table "
                 "is not noise: some channels drift smoothly down the positions, and the first rows often look "
                 "different from the rest (they are seen in every training example). "
                 "Row norms run from {low:.2f} to {high:.2f}.").format(low=summary.min_norm, high=summary.max_norm))


def past_tab(page, v) -> None:
    rows, cols, table_code = v["rows"], v["cols"], v["table_code"]
    with page.side:
        length = controls.slider(_("Sequence length"), "len", 1, 2 * rows, min(2 * rows, rows + rows // 4),
                                 help=_("How many positions the input has."))
    message = views.missing_rows_message(rows, length)  # words are made here, outside the cached lookup
    src, file_id, filename, tensor = v["key"]
    show(hero(lookup_chart, src=src, file_id=file_id, filename=filename, tensor=tensor, len=length))
    classroom.snippet(table_code[0], fold(f"rows_used = pc.absolute.learned_lookup(P, {length}, strict=False)",
                                          f"({length}, {cols}), NaN: no row"))
    formula(r"x_p = E[w_p] + P[p]\ \text{ needs }\ p < T_{\max} = $rows", rows=rows)
    formula(r"\text{longest position asked for: } $last", last=length - 1)
    if message:
        st.warning(literal(_("What the model would say: {message}").format(message=message)), icon=":material/block:")
        notice(_("This is not a rounding problem a better formula could fix: the rows beyond the table were never "
                 "created, so a model with a learned table must refuse (or truncate) longer inputs. BERT-style models "
                 "stop at 512 tokens for exactly this reason. A formula such as the sinusoidal table can at least "
                 "produce a row for any position."))
    else:
        notice(_("All {length} positions have a row. Push the slider past {rows} to see where the table "
                 "ends.").format(length=length, rows=rows))


def similarity_tab(page, v) -> None:
    info, shown, table_code = v["info"], v["shown"], v["table_code"]
    sim = info["similarity"]
    title = (_("Cosine similarity between the rows of P (one row in {stride})").format(stride=sim.stride)
             if sim.stride > 1 else _("Cosine similarity between the rows of P"))
    show(figures.heatmap(
        sim.similarity, x=sim.positions, y=sim.positions,
        title=title, x_title=_("position j"),
        y_title=_("position i"), value_name=_("cosine"), name="learned_similarity",
        alt=_("Heatmap of the cosine similarity between every pair of positions: a bright band along "
              "the diagonal.")))
    classroom.snippet(*table_code, fold("sim = pc.absolute.sampled_similarity(table)",
                                        f"sim.similarity ({len(sim.positions)}, "
                                        f"{len(sim.positions)}) float32: rows 0, {sim.stride}, "
                                        "..."))
    formula(r"\cos(i, j) = \frac{P[i]\cdot P[j]}{\lVert P[i]\rVert\,\lVert P[j]\rVert},\quad "
            r"\cos(0, 1) = $a,\ \cos(0, $far) = $b", a=float(info["ends"][0, 1]),
            far=shown - 1, b=float(info["ends"][0, 2]))
    notice(_("Nobody told the model that position 41 is close to position 42, but training found it: "
             "the dark band along the diagonal means neighbouring rows point in similar directions. Away "
             "from the diagonal the similarity does not simply fade; it ripples in stripes, because the "
             "table contains periodic, wave-like directions (the {tab} tab shows them). "
             "In all-MiniLM-L6-v2, look for a seam near position 128: its model card says fine-tuning "
             "limited sequences to 128 tokens, so the rows after that were shaped by pre-training alone.").format(
        tab=_("Principal components")))


# The lesson's tabs in order: label, and the function that draws it from the chosen table's view ``v``.
# Labels are marked N_() and shown translated by page.walk.
TABS = [
    (N_("The table"), table_tab),
    (N_("Past the last row"), past_tab),
    (N_("Similarity"), similarity_tab),
    (N_("Dimensions as curves"), views.dims_tab),
    (N_("Principal components"), views.pca_tab),
]


def table_view(page, src: str, file_id: str, filename: str, tensor: str) -> dict:
    """What every tab reads: the table (first ``shown`` rows), its size, label, analysis and snippet lines."""
    with st.spinner(_("Reading the position table...")):  # shown only when the cached read takes half a second
        full = views.table_for(src, file_id, filename, tensor)
    rows, cols = full.shape
    with page.side:
        shown = controls.slider(_("Positions analysed"), "rows", min(8, rows), rows, rows,
                                help=_("Zoom into the first rows, which training sees most often; every tab except "
                                       "'{tab}' uses positions 0 to this value - 1.").format(
                                    tab=_("Past the last row")))
    # the snippets' first lines: the same table, read the same way (an upload from the student's own file)
    load = ("P = pc.absolute.minilm_position_table()" if src == "minilm" else
            f"P = pc.absolute.load_position_table(open({filename!r}, 'rb').read(), {filename!r}, {tensor!r})")
    with st.spinner(_("Analysing the table...")):
        info = views.analysis(src, file_id, filename, tensor, shown)
    return {"table": full[:shown], "rows": rows, "cols": cols, "shown": shown, "key": (src, file_id, filename, tensor),
            "info": info,
            "table_code": (fold(load, f"({rows}, {cols}) float32: the whole table"),
                           f"table = P[:{shown}]  # ({shown}, {cols}): the positions analysed")}


@st.fragment
def lesson():
    page = stage(more_label=None)  # every control here drives the figure beside it
    chosen = views.choose_table(page)
    if chosen is None:
        return
    with guard():
        v = table_view(page, *chosen)
        page.walk(TABS, page, v)
    why(WHY)


lesson()
source(learned_lookup, principal_components, sampled_similarity, load_position_table)
