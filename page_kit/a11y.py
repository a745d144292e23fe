"""Accessibility rules every page shares, in one place: contrast, focus rings, reduced motion.

Streamlit's defaults fall short of WCAG 2.2 AA in a few places this app uses on every page (axe-core,
tests/test_a11y.py): grey captions and hints, the accent colour as text, and no focus ring on some custom
elements. The colours come from the active theme's variables, so light and dark both keep AA contrast.
"""

from __future__ import annotations

import streamlit as st

A11Y_CSS = """
<style>
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
/* The sidebar's lesson links 28 px tall and no longer overlapping (Streamlit pulls gap-less elements 6 px
   together): WCAG 2.2's target size (2.5.8) asks 24 px per target. */
.st-key-lesson_nav > .stElementContainer { margin-top: -2px !important; margin-bottom: -2px !important; }
</style>
"""


# A formula wider than its column scrolls sideways (KaTeX's display box), which a keyboard cannot do unless the
# box can take focus (WCAG 2.1.1; axe: scrollable-region-focusable). This gives every such box a tab stop and a
# name, and takes them away again when the formula fits (a wider window, presentation mode left).
A11Y_SCRIPT = """
<script>
(() => {
  if (window.__posencA11y) return;
  window.__posencA11y = true;
  const mark = () => {
    for (const box of document.querySelectorAll(".katex-display")) {
      const scrolls = box.scrollWidth > box.clientWidth + 1;
      if (scrolls && !box.hasAttribute("tabindex")) {
        box.tabIndex = 0;
        box.setAttribute("role", "group");
        box.setAttribute("aria-label", "Formula (scrolls sideways)");
      } else if (!scrolls && box.getAttribute("tabindex") === "0") {
        for (const name of ["tabindex", "role", "aria-label"]) box.removeAttribute(name);
      }
    }
  };
  let timer = null;
  const later = () => { clearTimeout(timer); timer = setTimeout(mark, 150); };
  new MutationObserver(later).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", later);
  mark();
})();
</script>
"""


def apply() -> None:
    """app.py calls this once per run, on every page."""
    st.html(A11Y_CSS)
    st.html(A11Y_SCRIPT, unsafe_allow_javascript=True)
