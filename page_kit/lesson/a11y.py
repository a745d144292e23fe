"""Accessibility rules every page shares, in one place: contrast, focus rings, reduced motion.

Streamlit's defaults fall short of WCAG 2.2 AA in a few places this app uses on every page (axe-core,
tests/test_a11y.py): grey captions and hints, the accent colour as text, and no focus ring on some custom
elements. The colours come from the active theme's variables, so light and dark both keep AA contrast.
"""

from __future__ import annotations

import streamlit as st

A11Y_CSS = """
<style>
/* The element that carries the script below takes no room: it pushed every lesson's figure 2-4 px down. */
.st-key-a11y_script { display: none; }
/* Captions, hints and the compute-backend note: Streamlit greys them to about 3.9:1; at 0.8 of the text
   colour (inherited from the page) they read above 4.5:1 on either theme's background. */
[data-testid="stCaptionContainer"], [data-testid="stWidgetLabel"] [data-testid="stTooltipIcon"],
[data-testid="stSidebar"] [data-testid="stCaptionContainer"] { color: inherit !important; opacity: .8; }
/* A visible focus ring on everything a keyboard can reach (some custom elements have none of their own);
   this blue has 4.2:1 against both themes' backgrounds (WCAG asks 3:1 of a focus indicator). */
a:focus-visible, button:focus-visible, summary:focus-visible, input:focus-visible, textarea:focus-visible,
[role="tab"]:focus-visible, [role="radio"]:focus-visible, [role="switch"]:focus-visible,
[tabindex]:not([tabindex="-1"]):focus-visible {
  outline: 2px solid #1c7bd9 !important; outline-offset: 2px; }
/* Fewer animations for readers who ask their system for it (WCAG 2.3.3). */
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { animation-duration: .01ms !important; animation-iteration-count: 1 !important;
                           transition-duration: .01ms !important; scroll-behavior: auto !important; }
}
/* An element's toolbar (a table's search, download and fullscreen buttons) floats above the element, where a tab
   panel's first table would lay it over the tab strip and its scroll button (target-size): room for it on a
   phone, where the toolbar always shows, when the strip scrolls. */
@media (max-width: 640px) {
  .stTabs:has([data-testid^="stTabsScroll"]) [role="tabpanel"] > [data-testid="stVerticalBlock"] >
    [data-testid="stElementContainer"]:first-child:has(
    [data-testid="stElementToolbar"]) { margin-top: 1.2rem; } }
[data-testid^="stTabsScroll"] { min-width: 24px; }
/* The sidebar's lesson links 28 px tall and not overlapping (Streamlit pulls gap-less elements 6 px
   together): WCAG 2.2's target size (2.5.8) asks 24 px per target. */
.st-key-lesson_nav > .stElementContainer { margin-top: -2px !important; margin-bottom: -2px !important; }
</style>
"""


# A formula or table wider than its column scrolls sideways (KaTeX's display box, st.table's wrapper, a code
# block), which a keyboard cannot do unless the box can take focus (WCAG 2.1.1; axe: scrollable-region-focusable).
# This gives every such box a tab stop and a name, and takes them away again when it fits (a wider window).
A11Y_SCRIPT = """
<script>
(() => {
  if (window.__posencA11y) return;
  window.__posencA11y = true;
  const SCROLLERS = '.katex-display, [data-testid="stTable"] div, [data-testid="stMain"] pre';
  const mark = () => {
    for (const box of document.querySelectorAll(SCROLLERS)) {
      const overflow = getComputedStyle(box).overflowX;
      const scrolls = (overflow === "auto" || overflow === "scroll") && box.scrollWidth > box.clientWidth + 1;
      if (scrolls && !box.hasAttribute("tabindex")) {
        box.tabIndex = 0;
        box.setAttribute("role", "group");
        const kind = box.matches(".katex-display") ? "Formula" : box.closest("pre") ? "Code" : "Table";
        box.setAttribute("aria-label", kind + " (scrolls sideways)");
      } else if (!scrolls && box.getAttribute("tabindex") === "0") {
        for (const name of ["tabindex", "role", "aria-label"]) box.removeAttribute(name);
      }
    }
  };
  // soon after a change, and again a second later: a table's width settles after its fonts and columns are
  // laid out. Throttled, not debounced: a chart that keeps redrawing must not keep pushing the marking back.
  const pending = {};
  const later = () => {
    for (const ms of [30, 300, 1000]) {
      if (!pending[ms]) pending[ms] = setTimeout(() => { pending[ms] = null; mark(); }, ms);
    }
  };
  // a lesson opens at its top: a page switch (Next, a sidebar link) reuses the scrolled column of the page before
  let shownPath = location.pathname;
  const toTop = () => {
    if (location.pathname === shownPath) return;
    shownPath = location.pathname;
    const main = document.querySelector('[data-testid="stMain"]');
    if (main) main.scrollTop = 0;
  };
  new MutationObserver(() => { toTop(); later(); }).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", later);
  document.fonts.ready.then(later);
  mark();
})();
</script>
"""


# A chosen multiselect option and a primary button are white on the accent colour. No red is both light enough
# for text on the dark page (4.5:1) and dark enough under white text (4.5:1), so on the dark theme their text
# takes the page's background colour instead (6:1 on #ec6d77).
DARK_CSS = """
<style>
[data-baseweb="tag"], [data-baseweb="tag"] span, [data-testid="stMultiSelect"] span[title],
button[kind="primary"], button[kind="primary"] * { color: #171614 !important; }
</style>
"""


def apply() -> None:
    """app.py calls this once per run, on every page."""
    from page_kit.controls.settings import dark

    st.html(A11Y_CSS + (DARK_CSS if dark() else ""))
    with st.container(key="a11y_script"):  # hidden (A11Y_CSS); a script still runs in a hidden element
        st.html(A11Y_SCRIPT, unsafe_allow_javascript=True)
