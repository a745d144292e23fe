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


def apply() -> None:
    """app.py calls this once per run, on every page."""
    st.html(A11Y_CSS)
