"""The pieces every lesson page has: notice box, formula with this view's values, source view, error guard."""

from __future__ import annotations

import contextlib
import inspect
import logging
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import streamlit as st

from page_kit.controls import url_values as _url
from page_kit.controls.folds import folded, is_unseen, unseen  # noqa: F401 (pages take them from here)
from page_kit.controls.settings import presentation
from page_kit.i18n import N_, _, coverage, current, in_every_language
from page_kit.lesson import formula_lines, guide
from page_kit.navigation.registry import page
from page_kit.navigation.sidebar import TAB_KEY, shown_page


def fmt(value, digits: int = 4) -> str:
    """A number as it should read in a formula: integers plain, floats to `digits` significant figures."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer() and abs(value) < 1e15):
        return f"{int(value):,}".replace(",", r"{,}")
    text = f"{value:.{digits}g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        return rf"{mantissa}\times 10^{{{int(exponent)}}}"
    return text


def formula(tex: str, *, digits: int = 4, **values) -> None:
    """Show a LaTeX formula where $name placeholders are replaced by the current values; on a projector, one
    too long for the figure column is set on several lines (formula_lines)."""
    tex = string.Template(tex).safe_substitute({k: fmt(v, digits) if not isinstance(v, str) else v
                                                for k, v in values.items()})
    st.latex(formula_lines.broken(tex, formula_lines.PROJECTOR_CHARS) if presentation() else tex)


def header(title: str, intro: str, guide_steps: Sequence[guide.Step] = ()) -> None:
    """Every page starts here: the title and the intuition; a guided lesson's *Guide me* beside its title."""
    if not guide_steps:
        st.title(title)
    else:
        with st.container(horizontal=True, vertical_alignment="center", gap="small", key="lesson_title"):
            st.title(title)
            guide.start_button(guide_steps)
    english_only_note()
    st.markdown(intro)


def english_only_note() -> None:
    """Under the title of a page its reader's language does not cover yet: say that its text is English."""
    info = page(shown_page() or "")
    if info is not None and not coverage.page_translated(info.path, current()):
        st.caption(":material/translate: " + _("This lesson's text is not translated yet: it is shown in English."))


@dataclass(frozen=True)
class Stage:
    """Where a picture-first lesson puts things (see ``stage``)."""

    main: object  # the figure column: the lesson's tabs, figures, captions and formulas
    side: object  # at most four controls that drive the figure beside them (under it on a phone)
    more: object  # "More settings": the controls a first look does not need, folded (None: no such fold)

    def sections(self, labels: Sequence[str], key: str = TAB_KEY):
        """The lesson's tabs, in the figure column (``sections``)."""
        with self.main:
            return sections(labels, key)

    def walk(self, tabs: Sequence[tuple[str, Callable]], *args, key: str = TAB_KEY, **kwargs) -> None:
        """The lesson's tabs from its ``TABS`` list of (label, function): only the open one runs, as
        ``function(*args, **kwargs)`` inside its tab, so a lesson reads as one small function per tab."""
        for tab, (_label, draw) in zip(self.sections([label for label, _draw in tabs], key), tabs, strict=True):
            if tab.open:
                with tab:
                    draw(*args, **kwargs)


def stage(more_label: str | None = N_("More settings")) -> Stage:
    """The picture-first layout every lesson uses: the figure leads, its few controls beside it.

    Call it inside the lesson's fragment, right after ``header(title, lead)`` (a lead of one or two sentences).
    Streamlit draws containers where they are created and fills them in code order, so a control written
    into ``side`` after the tabs still shows beside the figure, and a tab can put its own controls there.
    On a 1,280 px projector the figure column starts under the tab strip with the controls to its right; on
    a phone the columns stack, so the figure comes first and the controls follow it (docked at the bottom of
    the screen while the figure is in view, see ``settings.GLOBAL_CSS``). Widget keys do not change, so
    links keep working. The longer intro goes under the figure with ``why(text)``::

        header("Sinusoidal encoding", "Position p gets a fixed vector of sines and cosines.")

        @st.fragment
        def lesson():
            page = stage()
            with page.side:  # at most four: the controls the hero figure answers to
                n = controls.slider("Positions", "n", 8, 2048, 128, step=8)
            with page.more:  # the rest, folded
                layout = controls.choice("Column layout", "layout", ["interleaved", "concat"], "interleaved")
            tab_table, tab_cell = page.sections(["The table", "One cell"])
            if tab_table.open:
                with tab_table:
                    show(table_chart(n, layout))

        lesson()
        why("The original Transformer ... (the long intro, moved, never deleted)")
    """
    main, side_column = st.columns([3, 1], gap="medium")
    side = side_column.container(key="stage_side")
    controls_box = side.container()
    # a lesson whose every control drives the figure passes more_label=None: no empty "More settings" fold
    more = side.expander(_(more_label), icon=":material/tune:", key="stage_more") if more_label else None
    return Stage(main=main, side=controls_box, more=more)


def why(text: str, label: str = N_("Why this matters")) -> None:
    """The longer intuition of a lesson, under its figure (a picture-first page opens on the figure)."""
    if not isinstance(text, str):  # a stray comma once made it a tuple, printed with its brackets and quotes
        raise TypeError(f"why() takes the text as one string, not {type(text).__name__}")
    st.markdown(f"## {_(label)}")  # h2 under the page title: a screen reader's outline skips no level
    st.markdown(text)


def sections(labels: Sequence[str], key: str = TAB_KEY):
    """A lesson's parts as tabs that run only while open, and whose choice lives in the URL.

    Each Plotly figure costs the browser tens of milliseconds to draw, so a page that redraws all of
    them on every slider move cannot feel instant; with lazy tabs a move redraws one section.
    Use ``if tab.open:`` around each section's body.
    """
    shown = [_(label) for label in labels]
    # A tab's name is the reader's language, in the address too; a link or a session that names it in another
    # language (a shared link, a switch of language) opens the same tab.
    named = {name: index for index, label in enumerate(labels) for name in in_every_language(label)}

    def same_tab(raw: list[str]) -> list[str] | None:
        picked = _url.options(raw, list(named), exactly=1)
        return [shown[named[picked[0]]]] if picked else None

    _url.fix(key, same_tab)  # a link names one of these tabs
    held = st.session_state.get(key)
    if isinstance(held, str) and held not in shown and held in named:
        st.session_state[key] = shown[named[held]]
    return st.tabs(shown, key=key, on_change="rerun", bind="query-params")


def notice(text: str) -> None:
    """The 'what to notice' caption under a figure."""
    with st.container(border=True):
        st.markdown(":material/visibility: **" + _("What to notice.") + f"** {text}")


def source(*functions, label: str = N_("Show the code that computed this")) -> None:
    """A collapsed view of the core functions behind a figure: the code on screen is the code that ran."""
    with folded(_(label), "src_" + "_".join(f.__name__ for f in functions), icon=":material/code:") as is_open:
        if is_open:
            for function in functions:
                st.code(inspect.getsource(function), language="python")


_PUNCTUATION = re.compile(r"([!-/:-@\[-^_{-~])")  # ASCII punctuation but the backtick: CommonMark escapes it


def literal(text: str) -> str:
    """A sentence that may quote what a user gave (a config value, a file name), as Streamlit's markdown shows
    it letter for letter: every punctuation mark escaped, so no link, image, emphasis or formula can form.
    Closed `code spans` stay as they are (markdown shows them literally already); an odd backtick is escaped too."""
    parts = text.split("`")
    if len(parts) % 2 == 0:
        return _PUNCTUATION.sub(r"\\\1", text).replace("`", "\\`")
    return "`".join(p if i % 2 else _PUNCTUATION.sub(r"\\\1", p) for i, p in enumerate(parts))


# The last line of defence logs here; the test suites fail on any record of it (tests/conftest.py).
FALLBACK_LOG = logging.getLogger("posenc_explorer.fallback")
FALLBACK_MESSAGE = N_("Something went wrong here that the page did not expect; the details were logged for the "
                      "developers. Try other values or a preset, or open the page again from the sidebar.")


def report_unexpected(error: Exception) -> None:
    """Show a sentence with what to try instead of Streamlit's redacted exception box, and log the traceback."""
    FALLBACK_LOG.error("Unexpected %s on %s", type(error).__name__, st.query_params.to_dict() or "a page",
                       exc_info=error)
    st.error(f"{_(FALLBACK_MESSAGE)} ({type(error).__name__})", icon=":material/bug_report:")


@contextlib.contextmanager
def guard():
    """Turn the core's ValueError into an error box with its sentence, never a traceback.

    Any other exception is a bug: it is logged with its traceback and the page says what to try
    (``report_unexpected``). Streamlit's own rerun and stop signals are BaseExceptions and pass through.
    """
    try:
        yield
    except ValueError as error:
        st.error(literal(str(error)), icon=":material/error:")
    except Exception as error:  # noqa: BLE001 (the last line: every bug becomes a message and a log record)
        report_unexpected(error)


def see_also(*url_paths: str) -> None:
    """Links to the lessons that continue this one, in the given order; pages not registered are skipped."""
    pages = [info for info in (page(u) for u in url_paths) if info is not None]
    if pages:
        st.markdown("**" + _("See also") + "**")
        for info in pages:
            st.page_link(info.path, label=_(info.title), icon=info.icon)
