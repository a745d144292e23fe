"""What the live class draws: the sidebar's room panel, the projector's join code, the student's bar above the
lesson, and the room's side of every predict-then-reveal question (a student's answer saved; the teacher's
count, spread and reveal).

Nothing a person typed (a room code, a nickname) and nothing from the URL is drawn as markdown or HTML: sentences
quote typed text only through ``rules.shown``, and nicknames are escaped into ``st.html``. Nicknames reach the
teacher's page only (the store gives them to the teacher key alone), behind toggles that start off, since the
teacher's screen is often the projector.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import segno
import streamlit as st

from live_class import ClassError, ClassUnreachable
from live_class.results import QuestionInfo
from page_kit import live
from page_kit.i18n import _, ngettext
from page_kit.live import outbox as live_outbox
from page_kit.live import poll as live_poll
from page_kit.live import spread as live_spread
from page_kit.live import teacher_panel as live_teacher

ss = st.session_state


def _start() -> None:
    try:
        room, key = live.classroom().start()
    except ClassError as error:
        ss["live_message"] = str(error)
        return
    ss.update(live_code=room, live_key=key, live_seat=None, live_message=None, live_show_code=True,
              live_set_cookie=True)
    live.keep_url()


def _join() -> None:
    try:
        live._enter(ss.get("live_join_code", ""), None, None, ss.get("live_join_nickname"))
        ss.update(live_message=None, live_fold_sidebar=True)
        live.keep_url()
    except ClassError as error:
        ss["live_message"] = str(error)


def _rename() -> None:
    try:
        ss["live_nickname"] = live.classroom().rename(live.code(), live.seat(), ss.get("live_nickname"))
        ss["live_message"] = None
    except ClassError as error:
        ss["live_message"] = str(error)


@st.fragment(run_every=live.POLL_S)
def _joined_count() -> None:
    state = ss.get("live_state")
    try:
        state = live.classroom().room(live.code())
    except ClassError:
        pass  # the last count read stays
    if state is not None:
        joined = ngettext("{n} joined", "{n} joined", state.seats).format(n=f"<strong>{state.seats}</strong>")
        st.html(f'<p class="live-joined" style="margin:0;font-size:clamp(1.2rem,3vw,2rem)">{joined}</p>')


def _join_code_body() -> None:
    """For the projector: the code in large letters, the link and its QR code (drawn here, no network), and how
    many have joined, counted as they do."""
    link = live.join_link()
    if not live.base_url()[1]:
        st.warning(_("Phones cannot open this link: this computer's only known address is its own (localhost). Open "
                   "the app at this computer's network address, or set POSENC_PUBLIC_URL to the address students "
                   "reach, then show the code again."), icon=":material/wifi_off:")
    # an <img> of the SVG (st.html's sanitiser drops inline SVG): black on white in either theme, as scanners want
    qr = segno.make(link, error="m").svg_data_uri(scale=7, dark="#000000", light="#ffffff")
    alt, label = html.escape(_("QR code of the join link")), html.escape(_("Room code"))
    open_link = html.escape(_("or open {link}")).format(link="<code>" + html.escape(link) + "</code>")
    # sizes follow the window: large on a projector, the code still on one line on a 390 px phone
    st.html(f'<div style="display:flex;gap:2rem;align-items:center;flex-wrap:wrap">'
            f'<img src="{qr}" alt="{alt}" class="live-qr" '
            f'style="width:clamp(200px,30vw,380px);height:auto"><div>'
            f'<p style="margin:0">{label}</p><p class="live-code" style="font-size:clamp(2.5rem,14vw,6rem);'
            f'font-weight:700;letter-spacing:0.3rem;margin:0;line-height:1.1">{html.escape(live.code())}</p>'
            f'<p style="margin:0;overflow-wrap:anywhere">{open_link}</p></div></div>')
    _joined_count()


def _join_code_dialog() -> None:
    """The dialog, decorated as it opens so that its title is in the teacher's language (a title given to st.dialog
    at import would be English)."""
    @st.dialog(_("Join the class"), width="large", on_dismiss="rerun")  # a rerun ends the count's timer
    def dialog() -> None:
        _join_code_body()

    dialog()


def join_code() -> None:
    """For the projector: the room's code, its link and QR code, and how many have joined."""
    _join_code_dialog()


def open_from_bar(url_path: str) -> None:
    """The presentation bar's Class button: start a room when there is none, then show its join code."""
    if not live.teacher():
        _start()
        ss.pop("live_show_code", None)  # shown below, now: the next run of the page must not open it again
        live.begin()  # this run's class set-up came before the click: the key goes to the browser's cookie now
        live_poll.publish(url_path)  # the sidebar's poll was drawn before this click: followers need the page now
    if live.teacher():
        join_code()


def _student_panel() -> None:
    st.caption(_("You are in room **{code}**. No other student sees your answers or your nickname. Your teacher "
                 "sees how far the room is through the course, counted over the seats, while you are in it.").format(
        code=live.code()))
    with st.form("live_nickname_form", border=False, enter_to_submit=True):
        st.text_input(_("Nickname (optional, only the teacher sees it)"), key="live_nickname",
                      placeholder=_("anonymous"))
        st.form_submit_button(_("Save nickname"), on_click=_rename)
    st.button(_("Leave the class"), icon=":material/logout:", key="live_leave", on_click=live.leave)


def sidebar(url_path: str) -> None:
    """Start or join a class; in a class, its state and the one-click ways out (``url_path``: this page)."""
    with st.sidebar, st.container(key="live_panel"):
        st.markdown("**" + _("Live class") + "**")
        if ss.get("live_message"):
            st.info(ss["live_message"])  # sentences quote typed text only through rules.shown: no markup
        state = ss.get("live_state")
        if live.teacher() and state:
            live_teacher.panel(state, join_code)
        elif live.code() and state:
            _student_panel()
        elif not ss.get("live_pending"):
            with st.form("live_join_form", border=False, enter_to_submit=True):
                st.text_input(_("Room code"), key="live_join_code", max_chars=12,
                              placeholder=_("e.g. {code}").format(code="K7RAX"))
                st.text_input(_("Nickname (optional)"), key="live_join_nickname", placeholder=_("anonymous"),
                              help=_("Only the teacher sees it; no other student does."))
                st.form_submit_button(_("Join"), icon=":material/login:", on_click=_join)
            st.button(_("Start a class"), icon=":material/co_present:", key="live_start", on_click=_start,
                      help=_("A room for this class: a code and QR code for the projector; the answers gathered."))
        live_poll.watch(url_path)
    if ss.pop("live_show_code", False):
        join_code()
    if ss.pop("live_fold_sidebar", False):
        # a phone that joined by typing the code: the sidebar folds away over the lesson (a wide screen keeps it)
        st.html("<script>(() => { if (window.innerWidth < 768) { const b = document.querySelector("
                "'[data-testid=\"stSidebarCollapseButton\"] button'); if (b) b.click(); } })();</script>",
                unsafe_allow_javascript=True)


def _toggle_follow() -> None:
    ss["live_follow"] = not ss.get("live_follow", True)
    live.keep_url()


def student_bar() -> None:
    """Above a student's lesson: the room, and the one control that stops (or starts) following the teacher; once
    out of the room, why (the class ended, the teacher removed the seat), where a folded sidebar would hide it."""
    notice = ss.pop("live_notice", None)
    if notice and live.code() is None:
        st.info(notice, icon=":material/groups:")
    if live.seat() is None or ss.get("live_state") is None:
        return
    following = ss.get("live_follow", True)
    row = st.container(horizontal=True, vertical_alignment="center", gap="small", key="live_student_bar")
    row.caption(":material/groups: " + _("Room **{code}**").format(code=live.code())
                + (" · " + _("following the teacher") if following else ""))
    row.button(_("Stop following") if following else _("Follow the teacher"), key="live_follow_button",
               type="tertiary", icon=":material/pause:" if following else ":material/play_arrow:",
               on_click=_toggle_follow,
               help=_("Following opens the lesson and tab the teacher shows, when the teacher moves on."))


def round_of(question: str) -> int:
    """The round a question is in for this room (2 once the teacher opened the second vote), 1 outside a class."""
    state = ss.get("live_state")
    return state.round_of(question) if live.code() and state else 1


def seed(question: str, options: Sequence[str], round: int, widget: str) -> None:
    """A student's question starts from their own saved answer (a reload, a second tab, a reconnect): the store's
    choice is read back into the widget before it is drawn."""
    if live.seat() is None or widget in ss:
        return
    choice = live_outbox.saved(question, round)
    if choice is not None and 0 <= choice < len(options):
        ss[widget] = options[choice]


def record(question: str, options: Sequence[str], picked: str | None, round: int = 1) -> None:
    """A student's answer, sent to the room once per change and kept until the room has it."""
    if live.seat() is None or picked is None:
        return
    live_outbox.send(question, list(options).index(picked), len(options), round)


def _note(question: str, picked: str, round: int) -> str:
    state = live_outbox.status(question, round)
    if state == "saving":
        return _("Saving your answer “{answer}”… The class cannot be reached just now; it is sent as soon as the "
                 "class is back.").format(answer=picked)
    if state not in (None, "saved"):
        return state  # a refusal's sentence (a limit, a seat the teacher removed, a vote closed)
    return _("Your answer “{answer}” is saved. The teacher reveals the answer to the room.").format(answer=picked)


def answer_note(question: str, options: Sequence[str], picked: str | None, round: int) -> None:
    """What a student in a room reads under the question until the teacher reveals it: no verdict yet."""
    if round == 2:
        first = live_outbox.saved(question, 1)
        mine = (" " + _("Your first vote: “{answer}”.").format(answer=options[first])
                if first is not None and first < len(options) else "")
        st.caption(":material/forum: " + _("**Second vote.** Discuss with your neighbour, then answer again.")
                   + mine)
    if picked is None:
        st.caption(_("The teacher reveals the answer to the room once everyone has answered."))
    else:
        st.caption(_note(question, picked, round))  # "saving" turns "saved" by the poll's rerun of the page


def own_choice(question: str, options: Sequence[str]) -> str | None:
    """A student's last answer to ``question`` as the store has it (second vote first), for their own verdict."""
    for round in (2, 1):
        choice = live_outbox.saved(question, round)
        if choice is not None and 0 <= choice < len(options):
            return options[choice]
    return None


def describe(info: QuestionInfo) -> None:
    """Keep what the teacher's page asks, once per change of its text or options, for the room's results."""
    if not live.teacher():
        return
    described = ss.setdefault("live_described", {})
    text = info.to_json()
    if described.get(info.question) != text:
        try:
            live.classroom().describe(live.code(), ss.get("live_key"), info)
            described[info.question] = text
        except ClassError:
            pass  # unreachable or ended: tried again on the page's next run


def room_answers(question: str, options: Sequence[str], answer: int) -> None:
    """The teacher's view of one question, next to it (nothing, and no timer, for anyone else)."""
    if live.teacher():
        _room_answers(question, options, answer)


@st.fragment  # no timer here (page_kit/live/poll.py): the poll reruns the page when the room moved on
def _room_answers(question: str, options: Sequence[str], answer: int) -> None:
    """How many answered, each round's spread on demand, the second vote, the reveal."""
    if not live.teacher():
        return
    try:
        reading = live_poll.read_room(question, options, answer)
    except ClassError as error:
        if isinstance(error, ClassUnreachable):
            st.caption(str(error))
        return  # the room ended: the next full run says so in the sidebar
    live_poll.drawn(question, options, answer, reading)
    row = st.container(horizontal=True, vertical_alignment="center", gap="small", key=f"live_row_{question}")
    vote = " " + _("(second vote)") if reading.round == 2 else ""
    ended = " · " + _("the class has ended") if reading.ended else ""
    answered = sum(reading.counts[-1])
    row.markdown(":material/groups: " + ngettext("**{answered}** of {n} answered", "**{answered}** of {n} answered",
                                                 answered).format(answered=answered, n=reading.seats) + vote + ended)
    done = question in reading.revealed  # the count and the reveal first: they are what a class needs most
    # an ended class answers no more: the spread stays, the votes' buttons go
    if not reading.ended and row.button(_("Revealed") if done else _("Reveal to the room"),
                                        key=f"live_reveal_{question}", disabled=done, icon=":material/visibility:",
                                        type="primary", on_click=live_teacher.act, args=("reveal", question)):
        st.rerun(scope="app")
    if reading.round == 1 and not done and not reading.ended:
        row.button(_("Second vote"), key=f"live_round_{question}", icon=":material/forum:",
                   on_click=live_teacher.act, args=("open_round", question),
                   help=_("Peer instruction: the room discusses with neighbours, then everyone answers again. The "
                          "first vote closes; both spreads stay side by side."))
    spread = row.toggle(_("Spread"), key=f"live_spread_{question}", help=_("The room's answers, per option and vote."))
    who = row.toggle(_("Who"), key=f"live_who_{question}", help=_("Nicknames of who answered and who has not yet. "
                     "Only your screen shows them: keep this off while projecting."))
    if who and reading.names is not None:  # read above: the toggle's value is in the session before this run
        done_names, waiting = reading.names
        st.html('<div class="live-who">' + live_teacher.names(_("Answered:"), done_names)
                + live_teacher.names(_("Not yet:"), waiting) + "</div>")
    if spread:
        st.html(live_spread.spread_html(options, list(map(list, reading.counts)), answer if done else None,
                                        reading.moved))
