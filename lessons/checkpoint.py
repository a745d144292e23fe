"""A section's checkpoint: a few questions on its lessons, each answer explained, the lesson to revisit when wrong.

One page serves every section (``?section=<key>``, the section's folder; the sidebar and the home page link
each). A question's first answer joins the learner's progress; they
may change their answer to read the other explanations, and the score counts the first try.
"""

import streamlit as st

from page_kit import _, course, header, ngettext, registry
from page_kit.lesson import checkpoints, misconceptions

SECTIONS = [s for s in registry.SECTIONS if checkpoints.questions(s.key)]
TITLES = {s.key: s.title for s in SECTIONS}


def _verdict(question: checkpoints.CheckpointQuestion, picked: int) -> None:
    """Right or not, why, and for a wrong answer the belief it stands for and the lesson to read again."""
    if picked == question.answer:
        st.success(_("Right.") + " " + _(question.why), icon=":material/check_circle:")
        return
    st.info(_("Not quite: the answer is *{answer}*.").format(answer=_(question.options[question.answer]))
            + " " + _(question.why),
            icon=":material/lightbulb:")
    belief = misconceptions.for_question(question.key, len(question.options), question.answer)[picked]
    if belief:
        st.markdown(_("**The belief behind that answer:** {belief}.").format(belief=_(belief)))
    lesson = registry.page(question.lesson)
    if lesson is not None:
        st.page_link(lesson.path, label=_("Revisit: {title}").format(title=_(lesson.title)), icon=":material/replay:")


def _ask(number: int, count: int, question: checkpoints.CheckpointQuestion) -> bool | None:
    """One question in its box; True / False once answered (right or not), None before."""
    with st.container(border=True, key=f"checkpoint_{question.key}"):
        st.markdown("**" + _("Question {number} of {count}.").format(number=number, count=count) + "** "
                    + _(question.question))
        picked = st.radio(_("Question {number} of {count}").format(number=number, count=count),
                          range(len(question.options)), index=None,
                          format_func=lambda i: _(question.options[i]), key=f"answer_{question.key}",
                          label_visibility="collapsed")
        if picked is None:
            return None
        course.answered(question.key, picked == question.answer)
        _verdict(question, picked)
        return picked == question.answer


if not SECTIONS:
    header(_("Checkpoint"), _("No section has a checkpoint yet."))
else:
    key = st.query_params.get("section", "")
    if key not in TITLES:  # no section, or one the course does not have: the first section's checkpoint
        key = st.query_params["section"] = SECTIONS[0].key
    asked = checkpoints.questions(key)
    header(_("Checkpoint: {section}").format(section=_(TITLES[key])),
           ngettext("{n} question on this section's lessons.", "{n} questions on this section's lessons.",
                    len(asked)).format(n=len(asked)) + " "
           + _("Answer each one: the explanation follows at once, and a wrong answer names the belief behind it "
               "and the lesson to read again. Your first answers join your progress."))
    results = [_ask(number, len(asked), q) for number, q in enumerate(asked, start=1)]
    if None not in results:
        right = course.checkpoint_right(key)
        st.markdown(_("**Your first tries:** {right} of {n} right.").format(right=right, n=len(asked)) + " "
                    + _("Change an answer to read the other explanations; your progress keeps the first."))
    course.next_up(course.CHECKPOINT_PATH, key)
