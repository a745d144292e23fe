"""Where a learner stands, in words and links: the sidebar's marks, the home page's progress and *Continue*, and
the "Next" that closes every lesson. Nothing is locked: these only point the way."""

from __future__ import annotations

import streamlit as st

from live_class import ClassError
from page_kit import live
from page_kit.i18n import _, ngettext, number
from page_kit.lesson import checkpoints, course, course_map
from page_kit.lesson.course_map import Stop, Tally
from page_kit.navigation import progress as pg
from page_kit.navigation import registry
from page_kit.navigation.progress import Progress
from page_kit.navigation.sidebar import DONE_MARK, Marks

CHECKPOINT_PATH = course_map.CHECKPOINT_PATH


def marks(url_path: str) -> Marks:
    """The sidebar's view of this learner's progress: lessons read, a note per section, its checkpoint (and which
    checkpoint is open, on the page ``url_path``)."""
    progress = course.progress()
    notes, ends = {}, {}
    for section in registry.SECTIONS:
        tally = course_map.tally(section.key, progress)
        if tally.read:
            notes[section.title] = _("{read} of {lessons} read").format(read=tally.read, lessons=tally.lessons)
        stop = course_map.stop_of(course_map.CHECKPOINT_PATH, section.key)
        if stop is not None:
            ends[section.title] = (section.key, stop.done(progress))
    done = frozenset(s.url_path for s in course_map.stops() if not s.is_checkpoint and progress.mark(s.url_path))
    here = None
    if url_path == CHECKPOINT_PATH and ends:  # a section the course lacks opens the first one's (lessons/checkpoint.py)
        keys = [key for key, _ in ends.values()]
        here = st.query_params.get("section") if st.query_params.get("section") in keys else keys[0]
    return Marks(done, notes, ends, here)


def tally_text(tally: Tally) -> str:
    """A section's progress as a sentence (also what a screen reader reads for its bar)."""
    parts = [ngettext("{read} of {n} lesson read", "{read} of {n} lessons read", tally.lessons).format(
        read=tally.read, n=tally.lessons)]
    if tally.questions:
        parts.append(ngettext("{answered} of {n} question answered, {right} right at the first try",
                              "{answered} of {n} questions answered, {right} right at the first try",
                              tally.questions).format(answered=tally.answered, n=tally.questions, right=tally.right))
    if tally.checkpoint_questions:
        parts.append(_("checkpoint {right} of {n} right").format(right=tally.checkpoint_right,
                                                                 n=tally.checkpoint_questions)
                     if tally.checkpoint_answered == tally.checkpoint_questions else
                     _("checkpoint {answered} of {n} answered").format(answered=tally.checkpoint_answered,
                                                                       n=tally.checkpoint_questions))
    return _("; ").join(parts)


def section_progress(section: registry.Section) -> None:
    """A section's bar and sentence on the home page, once the learner has started it."""
    tally = course_map.tally(section.key, course.progress())
    if not (tally.read or tally.answered or tally.checkpoint_answered):
        return
    steps = tally.lessons + tally.questions + tally.checkpoint_questions
    done = tally.read + tally.answered + tally.checkpoint_answered
    st.progress(done / steps, text=tally_text(tally))


def _link(stop: Stop, label: str, **kwargs) -> None:
    path, params = course.page_of(stop)
    st.page_link(path, label=label, query_params=params or None, **kwargs)


def continue_link() -> None:
    """*Continue* (or *Start the course*) to the next stop to do; a sentence when the whole course is done."""
    progress = course.progress()
    stop = course_map.next_to_do(progress)
    if stop is None:
        st.success(_("You have read every lesson and answered every question and checkpoint of the course."),
                   icon=":material/school:")
        return
    left = stop.left(progress)
    where = (" " + ngettext("({n} question left)", "({n} questions left)", left).format(n=left)
             if progress and left and progress.mark(stop.url_path) else "")
    label = (_("Continue: {title}") if progress else _("Start the course: {title}")).format(title=_(stop.title))
    _link(stop, f"**{label}**{where}", icon=":material/play_circle:")


def _why(stop: Stop, here: Stop) -> str:
    """Why ``stop`` comes after ``here``: the next lesson's summary, a checkpoint's purpose, a new section's story."""
    if stop.is_checkpoint:
        count = len(checkpoints.questions(stop.section))
        return ngettext("{n} question on this section's lessons, its answer explained: see what stayed before the "
                        "next section.",
                        "{n} questions on this section's lessons, each answer explained: see what stayed before the "
                        "next section.", count).format(n=count)
    if stop.section != here.section:
        section = registry.section(stop.section)
        return _(section.story) if section else ""
    info = registry.page(stop.url_path)
    return _(info.summary) if info else ""


def next_up(url_path: str, section: str | None = None) -> None:
    """What comes after this lesson (or checkpoint) on the course, and why: the close of every page."""
    if url_path == course_map.CHECKPOINT_PATH and section is None:
        return  # the checkpoint page closes with its own section's next stop
    here = course_map.stop_of(url_path, section)
    after = course_map.after(here) if here else None
    if after is None:
        return
    st.divider()
    with st.container(key="course_next"):
        _link(after, "**" + _("Next: {title}").format(title=_(after.title)) + "**", icon=":material/arrow_forward:")
        st.caption(_why(after, here))


def answered(key: str, right: bool) -> None:
    """A checkpoint's (or a lesson's) question was answered: see ``course.answered``."""
    course.answered(key, right)


def announce() -> None:
    """Say once whether a progress link or code this browser tab was given was taken."""
    message = course.restored_message()
    if message:
        kind, text = message
        st.toast(text, icon=":material/check_circle:" if kind == "success" else ":material/error:")


def summary_text(progress) -> str:
    """The whole course's progress in one sentence."""
    whole = course_map.overall(progress)
    return (ngettext("{read} of {n} lesson read", "{read} of {n} lessons read", whole.lessons).format(
        read=whole.read, n=whole.lessons) + _("; ") + ngettext(
        "{answered} of {n} question answered, {right} right at the first try.",
        "{answered} of {n} questions answered, {right} right at the first try.", whole.questions).format(
        answered=whole.answered, n=whole.questions, right=whole.right))


def home_panel() -> None:
    """The home page's progress: *Continue*, the whole course in a sentence, and what the learner can do with it
    (carry it to another device, add one carried here, clear it)."""
    progress = course.progress()
    with st.container(border=True, key="course_panel"):
        continue_link()
        if progress:
            st.caption(summary_text(progress) + " " + _("Kept in this browser only; nothing is sent anywhere."))
        else:
            st.caption(_("Your progress (lessons read, questions answered) is kept in this browser only, with no "
                         "sign-up; nothing is sent anywhere."))
        with st.expander(_("Your progress: carry it, bring it, clear it"), icon=":material/sync_alt:"):
            if progress:
                _carry()
            _paste()
            if progress:
                _clear()


def _carry() -> None:
    """The learner's link and code, to open their progress on another device."""
    code = course.code()
    st.markdown(_("**Take it to another device:** open this link there, or paste the code into this box there."))
    st.code(course.link(code), language=None, wrap_lines=True)
    st.caption(_("Code: `{code}`").format(code=code))


def _paste() -> None:
    """A code (or link) copied on another device, added to this browser's progress."""
    with st.form("course_paste", border=False, enter_to_submit=True):
        text = st.text_input(_("A progress code or link from another device"), max_chars=course.MAX_PASTE,
                             key="course_code")
        if st.form_submit_button(_("Add it to this browser"), icon=":material/add:"):
            try:
                added = course.restore(text)
            except ValueError as error:
                st.error(str(error), icon=":material/error:")
            else:  # the panel above is drawn again with the added progress; the toast says what was added
                course.announce_later("success", _("Added: {summary}").format(summary=summary_text(added)))
                st.rerun()


def _clear() -> None:
    """Forget the progress, after a second press (a miss-tap on a phone should not lose a course)."""
    if st.toggle(_("I want to clear my progress"), key="course_clear_armed"):
        if st.button(_("Clear my progress in this browser"), icon=":material/delete:", type="primary"):
            course.clear()
            st.session_state.pop("course_clear_armed", None)
            st.rerun()


def read() -> frozenset[str]:
    """url_paths of the lessons this learner has opened."""
    return marks("").done


def done_mark(done: bool) -> str:
    """What follows a title once done (the sidebar's mark, a character a screen reader says)."""
    return f" {DONE_MARK}" if done else ""


def checkpoint_link(section: registry.Section) -> None:
    """The link to a section's checkpoint, with its result once taken."""
    stop = course_map.stop_of(course_map.CHECKPOINT_PATH, section.key)
    if stop is None:
        return
    tally = course_map.tally(section.key, course.progress())
    result = (" " + _("({right} of {n} right)").format(right=tally.checkpoint_right, n=tally.checkpoint_questions)
              if tally.checkpoint_answered == tally.checkpoint_questions else "")
    count = len(stop.questions)
    _link(stop, ngettext("Checkpoint: {n} question on this section", "Checkpoint: {n} questions on this section",
                         count).format(n=count) + result, icon=registry.CHECKPOINT.icon)


def checkpoint_right(section: str) -> int:
    """How many of section ``section``'s checkpoint questions this learner got right at the first try."""
    return course_map.tally(section, course.progress()).checkpoint_right


def _room_rows(courses: list[Progress]) -> list[dict[str, object]]:
    """Per section: how many of the room's reporting seats started it, read every lesson, answered every question,
    took the checkpoint, and their mean checkpoint score."""
    rows = []
    for section in registry.SECTIONS:
        tallies = [course_map.tally(section.key, p) for p in courses]
        taken = [t for t in tallies if t.checkpoint_questions and t.checkpoint_answered == t.checkpoint_questions]
        mean = (_("{mean} of {n}").format(mean=number(sum(t.checkpoint_right for t in taken) / len(taken), 1),
                                          n=taken[0].checkpoint_questions) if taken else "")
        rows.append({_("Section"): _(section.title), _("Started"): sum(t.read > 0 for t in tallies),
                     _("Read every lesson"): sum(t.read == t.lessons for t in tallies),
                     _("Answered every question"): sum(t.answered == t.questions for t in tallies if t.questions),
                     _("Took the checkpoint"): len(taken), _("Checkpoint right (mean)"): mean})
    return rows


def _room_course() -> None:
    """The dialog, titled in the teacher's language (a title given to st.dialog at import would be English)."""
    st.dialog(_("The room's progress through the course"), width="large")(_room_course_body)()


def _room_course_body() -> None:
    try:
        record = live.classroom().results(live.code(), st.session_state.get("live_key"))
    except ClassError as error:
        st.error(str(error))
        return
    courses = [pg.from_cookie(text) for text in record.courses.values()]
    st.caption(ngettext("Room **{code}** · {n} seat reported its course progress.",
                        "Room **{code}** · {n} seats reported its course progress.", len(courses)).format(
        code=record.code, n=len(courses)) + " " + _(
        "Each student's browser keeps its own progress and sends it to the room only while seated; the table "
        "names nobody."))
    if courses:
        st.dataframe(_room_rows(courses), hide_index=True, width="stretch")


def teacher_view() -> None:
    """In the teacher's class panel: the room's progress through the course (seats counted, nobody named)."""
    if not live.teacher():
        return
    if st.sidebar.button(_("Course progress"), icon=":material/school:", key="course_room",
                         help=_("How far the students in this room are through the course (nobody is named).")):
        _room_course()  # a dialog opens from the script's run, not from a button's callback
