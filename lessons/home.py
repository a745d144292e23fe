import streamlit as st

from page_kit import _, course, header, registry

header(
    "PosEnc Explorer",
    _("How does a transformer know *where* a token is? Self-attention compares every token with every "
    "other token, but the comparison itself ignores order: shuffle the input and each token receives "
    "exactly the same attention. Everything a model knows about position has to be put there on purpose. "
    "This explorer follows that story, one encoding at a time, with every figure computed live by the "
    "same formulas real models run.")
)
course.home_panel()  # Continue, the learner's progress, carrying and clearing it
st.markdown(_("Follow the course in order, or pick any lesson below or in the sidebar: nothing is locked. Every "
              "slider is stored in the page's address, so a link you copy opens exactly the view you are looking "
              "at."))

read = course.read()  # the lessons this learner has opened, for every card's mark
for number, section in enumerate(registry.SECTIONS, start=1):
    # "##" is a level-2 heading under the page's title (st.subheader would skip to level 3 for a screen reader)
    st.markdown(f"## {number}. {_(section.title)}")
    st.markdown(_(section.story))
    course.section_progress(section)
    for start in range(0, len(section.pages), 2):  # two lesson cards per row, rows aligned
        for column, page in zip(st.columns(2), section.pages[start:start + 2], strict=False):
            with column, st.container(border=True, height="stretch"):
                st.page_link(page.path, label=f"**{_(page.title)}**" + course.done_mark(page.url_path in read),
                             icon=page.icon)
                st.markdown(_(page.summary))
    course.checkpoint_link(section)

st.divider()
st.markdown(_("Conventions follow the code models run: Hugging Face `transformers` for RoPE and T5, the ALiBi "
              "authors' slope code, MAE's 2D sin-cos. Where a paper and its code disagree, the page says so."))
