// What a reader sees on the first screen of a lesson, measured in the browser (tests/test_layout.py).
// Returns the first figure's top (px from the top of the viewport, and as a share of its height), the
// controls above it, and every display formula wider than its box without a scroll cue.
() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const figures = [...main.querySelectorAll(
    '.js-plotly-plot, [data-testid="stPlotlyChart"], [data-testid="stImage"], [data-testid="stVegaLiteChart"],' +
    ' [data-testid="stPyplot"], [data-testid="stDataFrame"], [class*="st-key-chart_"]')].filter(shown);
  const tops = figures.map((el) => el.getBoundingClientRect().top);
  const figureTop = tops.length ? Math.min(...tops) : null;
  // one entry per widget: Streamlit's element containers holding an input, outside the presentation bar,
  // the tab strip and folded sections (their contents are not on screen until opened)
  const inputs = 'input, select, textarea, [role="slider"], [role="combobox"], [role="radiogroup"], [role="switch"]';
  const controls = [...main.querySelectorAll('[data-testid="stElementContainer"]')]
    .filter((el) => el.querySelector(inputs) && shown(el))
    .filter((el) => !el.closest('.st-key-present_bar, details:not([open])'))
    .filter((el) => !el.querySelector('[data-testid="stElementContainer"]'))
    .filter((el) => figureTop === null || el.getBoundingClientRect().top < figureTop)
    .map((el) => (el.querySelector('label, [data-testid="stWidgetLabel"], .ls-label') || el).innerText.trim()
      .split("\n")[0].slice(0, 60));
  const formulas = [...main.querySelectorAll('.katex-display')].filter(shown).map((el) => {
    const box = el.getBoundingClientRect();
    const wide = el.scrollWidth > el.clientWidth + 1 || box.right > window.innerWidth + 1;
    const style = getComputedStyle(el);
    const scrolls = ["auto", "scroll"].includes(style.overflowX);
    const cue = scrolls && style.backgroundImage.includes("gradient");
    return { text: el.innerText.replace(/\s+/g, " ").slice(0, 60), wide, cue,
             right: Math.round(box.right), width: Math.round(box.width), scrollWidth: el.scrollWidth };
  });
  // labels that must read whole on one line: widget and metric labels, metric values, tabs, the presentation bar
  // (a predict question is a sentence: it may wrap)
  const lines = (el) => {  // rows of text (text only: an icon beside it sits higher), tops over half a letter apart
    const size = parseFloat(getComputedStyle(el).fontSize);
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const rects = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(node);
      rects.push(...range.getClientRects());
    }
    const tops = rects.filter((r) => r.width > 0).map((r) => r.top).sort((a, b) => a - b);
    return tops.filter((top, i) => i === 0 || top - tops[i - 1] > 0.6 * size).length;
  };
  const cut = [...main.querySelectorAll('[data-testid="stWidgetLabel"] p, .ls-label, [data-testid="stMetricLabel"] p,' +
    ' [data-testid="stMetricValue"] div, [role="tab"] p, .st-key-present_bar p')].filter(shown)
    .filter((el) => !el.closest('details:not([open]), [class*="st-key-predict_"]'))
    .filter((el) => el.scrollWidth > el.clientWidth + 1 || lines(el) > 1)
    .map((el) => el.innerText.trim().slice(0, 60));
  return { figureTop, height: window.innerHeight, controls, formulas, cut, figures: figures.length };
}
