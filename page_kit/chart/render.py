"""Put a Chart on the page: the plot, its description, and downloads of its numbers."""

from __future__ import annotations

import io

import numpy as np
import streamlit as st

from page_kit.chart import figure_control, hero_frames, plotly_element
from page_kit.controls.folds import folded, is_unseen
from page_kit.controls.settings import dark, export_format, presentation
from page_kit.figures import Chart, cache
from page_kit.figures.theme import template_name
from page_kit.i18n import _, number

MAX_CSV_VALUES = 1_000_000  # bigger matrices download as .npy only
# "Show the numbers" lists at most this much: a table a screen reader can walk row by row (the downloads
# have everything).
MAX_TABLE_ROWS, MAX_TABLE_COLUMNS = 50, 12


def _table_csv(table: dict[str, np.ndarray]) -> str:
    buffer = io.StringIO()
    columns = list(table)
    buffer.write(",".join(f'"{c}"' for c in columns) + "\n")
    data = [np.asarray(table[c]) for c in columns]
    for row in zip(*data, strict=True):
        buffer.write(",".join(f"{v:.7g}" if isinstance(v, (float, np.floating)) else str(v) for v in row) + "\n")
    return buffer.getvalue()


def _matrix_csv(matrix: np.ndarray) -> str:
    m = matrix.reshape(-1, matrix.shape[-1]) if matrix.ndim > 2 else matrix
    buffer = io.StringIO()
    np.savetxt(buffer, m, delimiter=",", fmt="%.7g")
    return buffer.getvalue()


def _npy(matrix: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(matrix), allow_pickle=False)
    return buffer.getvalue()


def _cell(value) -> str:
    return f"{value:.4g}" if isinstance(value, (float, np.floating)) else str(value)


def _axis_title(chart: Chart, axis: str) -> str:
    title = getattr(getattr(chart.materialised().layout, axis), "title", None)
    return str(getattr(title, "text", None) or "")


def numbers_table(chart: Chart) -> tuple[list[str], list[list[str]], str] | None:
    """The data behind a chart as (header, rows, what was left out), from what its downloads offer; None if none.

    Columns come from the chart's table (one per series) or, for a matrix, one per column index, the row
    index first; more than MAX_TABLE_ROWS x MAX_TABLE_COLUMNS is cut, and the last item says so."""
    if chart.table:
        names = list(chart.table)
        columns = [np.asarray(chart.table[name]) for name in names]
        total_rows = len(columns[0])
        rows = [[_cell(column[r]) for column in columns[:MAX_TABLE_COLUMNS]]
                for r in range(min(total_rows, MAX_TABLE_ROWS))]
        header, total_columns = names[:MAX_TABLE_COLUMNS], len(names)
    elif chart.matrix is not None:
        matrix = np.asarray(chart.matrix)
        matrix = matrix.reshape(-1, matrix.shape[-1]) if matrix.ndim > 2 else matrix.reshape(matrix.shape[0], -1)
        total_rows, total_columns = matrix.shape
        y_title, x_title = _axis_title(chart, "yaxis") or "row", _axis_title(chart, "xaxis") or "column"
        header = [f"{y_title} / {x_title}"] + [str(j) for j in range(min(total_columns, MAX_TABLE_COLUMNS))]
        rows = [[str(r)] + [_cell(v) for v in matrix[r, :MAX_TABLE_COLUMNS]]
                for r in range(min(total_rows, MAX_TABLE_ROWS))]
    else:
        return None
    cut = []
    if total_rows > MAX_TABLE_ROWS:
        cut.append(_("the first {shown} of {total} rows").format(shown=MAX_TABLE_ROWS, total=number(total_rows, 0)))
    if total_columns > MAX_TABLE_COLUMNS:
        cut.append(_("the first {shown} of {total} columns").format(shown=MAX_TABLE_COLUMNS,
                                                                   total=number(total_columns, 0)))
    note = _("Showing {what}; the download has all of them.").format(what=_(" and ").join(cut)) if cut else ""
    return header, rows, note


def show_numbers(chart: Chart) -> None:
    """A folded table of the numbers behind the chart, built and sent only while it is open."""
    if chart.table or chart.matrix is not None:
        with folded(_("Show the numbers"), f"numbers_{chart.name}", icon=":material/table:") as is_open:
            if is_open:
                header, rows, note = numbers_table(chart)
                st.table({name: [row[i] for row in rows] for i, name in enumerate(header)})
                if note:
                    st.caption(note)


def plot_config(name: str) -> dict:
    return {"displaylogo": False, "modeBarButtonsToRemove": ["lasso2d", "select2d"],
            "toImageButtonOptions": {"format": export_format(), "filename": name, "scale": 2}}


def show(chart: Chart) -> None:
    """Render a Chart with the active template, alt text, and CSV / .npy downloads (nothing in a block nobody
    can see yet, ``lesson.unseen``)."""
    if is_unseen():
        return
    active = template_name(dark(), presentation())
    if plotly_element.available():  # updated in place: one Plotly draw per move, no remount
        key = f"chart_{chart.name}"
        control = chart.control
        current = cache.spec(chart, active)  # built once per view and theme
        sent, height, digest = current
        plotly_element.plotly_element(
            sent, height=height, digest=digest, key=key, alt=chart.alt, config=plot_config(chart.name),
            ahead=hero_frames.payload(chart, active, current),
            frames=chart.frames, control=figure_control.browser_spec(control),
            # this run's targets: the event answers the figure the student saw
            on_hand=(lambda: figure_control.apply(control, plotly_element.hand_event(key))) if control else None)
    else:
        st.plotly_chart(chart.materialised().update_layout(template=active), theme=None,
                        config=plot_config(chart.name), alt=chart.alt,
                        key=f"chart_{chart.name}")
    # one row block, not columns (a flex, two columns and a button row: four blocks a figure on every move);
    # the caption takes the row, the buttons its right end, or the line under it on a phone (settings.GLOBAL_CSS)
    row = st.container(horizontal=True, vertical_alignment="top", gap="small", key=f"under_chart_{chart.name}")
    row.caption(f"{chart.alt} {chart.note}".strip(), width="stretch")
    if chart.table:
        row.download_button("CSV", data=lambda: _table_csv(chart.table), file_name=f"{chart.name}.csv",
                            mime="text/csv", key=f"csv_{chart.name}", on_click="ignore",
                            icon=":material/download:", type="tertiary")
    elif chart.matrix is not None and chart.matrix.size <= MAX_CSV_VALUES:
        row.download_button("CSV", data=lambda: _matrix_csv(chart.matrix), file_name=f"{chart.name}.csv",
                            mime="text/csv", key=f"csv_{chart.name}", on_click="ignore",
                            icon=":material/download:", type="tertiary")
    if chart.matrix is not None:
        row.download_button(".npy", data=lambda: _npy(chart.matrix), file_name=f"{chart.name}.npy",
                            mime="application/octet-stream", key=f"npy_{chart.name}",
                            on_click="ignore", icon=":material/download:", type="tertiary")
    show_numbers(chart)
