"""PosEnc Explorer: entry point. Page config, navigation (from page_kit.navigation.registry), global sidebar."""

from pathlib import Path

import streamlit as st

from page_kit import live
from page_kit.controls import settings
from page_kit.i18n import _, choice
from page_kit.lesson import a11y, course, course_panel, guard, report_unexpected
from page_kit.live import panel as live_panel
from page_kit.navigation import sidebar as nav
from page_kit.runtime import server_guard, streamlit_runtime
from page_kit.runtime.heap import freeze_import_heap

streamlit_runtime.apply()  # once per process in effect: see page_kit/runtime/streamlit_runtime.py
server_guard.apply()  # whom the server believes about addresses, and its headers: page_kit/runtime/server_guard.py

# A presentation link (?present=true) opens with the sidebar folded away: less chrome on a projector. "auto"
# folds it on narrow screens too, so a phone opens on the lesson, not on a drawer covering it. The presentation
# bar's Next / Previous switch pages with a clean URL, before the bound toggle writes present=true back: the
# session's toggle says it is still a presentation, so the sidebar stays folded there too.
# a local icon: a material one would be fetched from Google's font servers, which a classroom offline (or a
# privacy policy) does not reach
FAVICON = str(Path(__file__).resolve().parent / "assets" / "favicon.png")
presenting = st.query_params.get("present") == "true" or bool(st.session_state.get("present"))
st.set_page_config(page_title="PosEnc Explorer", page_icon=FAVICON, layout="wide",
                   initial_sidebar_state="collapsed" if presenting else "auto")


language = choice.choose()  # the address's ?lang=, the reader's choice, or the browser's language (page_kit/i18n)
home, sections = nav.pages()
# Streamlit routes every URL path; the sidebar's list is ours, valid for screen readers (nav.py).
routes = {"": [home, nav.checkpoint_page()], **{title: list(pages) for title, pages in sections.items()}}
navigation = nav.runnable(st.navigation(routes, position="hidden"))
st.set_page_config(page_title=f"{_(navigation.title)} · PosEnc Explorer")  # each lesson names its browser tab
course.arrive(navigation.url_path)  # the learner's progress, kept in their browser (page_kit/lesson/course.py)
nav.sidebar_links([("", [home]), *sections.items()], course_panel.marks(navigation.url_path))
course_panel.announce()  # whether a progress link or code was taken
settings.sidebar(language)  # imports torch, when present, to ask for CUDA
with guard():  # the class never takes the lesson down: a store that cannot be reached is one sentence
    live.begin()  # a live class: join from the link, read the room once for this run
    live_panel.sidebar(navigation.url_path)  # in a class, also the room's 1 s poll (page_kit/live/poll.py)
    course_panel.teacher_view()  # the room's progress through the course, for its teacher
    live_panel.student_bar()  # a student's room and the control to stop following, above the lesson
a11y.apply()
settings.presentation_bar([("Home", [home]), *sections.items()], navigation)
nav.arrive(navigation.url_path)
try:
    navigation.run()
except Exception as error:  # noqa: BLE001 (outside any guard(): a logged bug and a sentence, not a redacted box)
    report_unexpected(error)
with guard():
    course_panel.next_up(navigation.url_path)  # every lesson closes on what comes next, and why
    course.save()
    live.report_course()  # a seated student's progress, for the teacher's view of the room
freeze_import_heap()  # after the page, so the modules it imported on first use are frozen too
