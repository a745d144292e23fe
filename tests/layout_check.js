// What a reader sees on the first screen of a lesson, measured in the browser (tests/browser_views.py).
// Returns the first figure's top (px from the top of the viewport, and as a share of its height), the
// controls above it, every display formula and whether it is wider than its box, labels cut or wrapped, text
// the browser cuts with an ellipsis, the
// room a figure has between the screen's chrome (presentation bar, phone header, docked controls) and where
// each chart lies, and presentation-bar text under the screen's minimum size.
() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const figures = [...main.querySelectorAll(
    '.js-plotly-plot, [data-testid="stPlotlyChart"], [data-testid="stImage"], [data-testid="stVegaLiteChart"],' +
    ' [data-testid="stPyplot"], [data-testid="stDataFrame"], [data-testid="stTable"], [class*="st-key-chart_"]')].filter(shown);
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
    // KaTeX's struts reach 2 px past a formula's box (.vlist-t2's margin): nothing a reader sees
    const wide = el.scrollWidth > el.clientWidth + 2 || box.right > window.innerWidth + 1;
    const style = getComputedStyle(el);
    const scrolls = ["auto", "scroll"].includes(style.overflowX);
    const cue = scrolls && style.backgroundImage.includes("gradient");
    return { text: el.innerText.replace(/\s+/g, " ").slice(0, 60), wide, cue,
             right: Math.round(box.right), width: Math.round(box.width), scrollWidth: el.scrollWidth };
  });
  // labels that must read whole on one line: widget labels, metric values, tabs, the presentation bar (a predict
  // question is a sentence, a metric's label a phrase under which its value stands: they may wrap)
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
  const cut = [...main.querySelectorAll('[data-testid="stWidgetLabel"] p, .ls-label,' +
    ' [data-testid="stMetricValue"] div, [role="tab"] p, .st-key-present_bar p')].filter(shown)
    .filter((el) => !el.closest('details:not([open]), [class*="st-key-predict_"]'))
    .filter((el) => el.scrollWidth > el.clientWidth + 1 || lines(el) > 1)
    .map((el) => el.innerText.trim().slice(0, 60));
  // and any text the browser cuts with an ellipsis (a chosen option, a page link's title): nothing is elided
  const elided = [...main.querySelectorAll('span, p, div, a, label')].filter(shown)
    .filter((el) => !el.closest('details:not([open])') && getComputedStyle(el).textOverflow === 'ellipsis')
    .filter((el) => el.scrollWidth > el.clientWidth + 1)
    .map((el) => el.innerText.trim().slice(0, 50))
    .concat([...main.querySelectorAll('input[role="combobox"]')].filter(shown)  // a select box's chosen option
      .filter((el) => !el.closest('details:not([open])') && el.scrollWidth > el.clientWidth + 1)
      .map((el) => `${el.value.slice(0, 50)} (a select box's value)`));
  // the room a figure has: under the pinned presentation bar (or a phone's header), above the phone's docked
  // controls (sticky at the bottom while the figure column is in view)
  const bar = document.querySelector('.st-key-present_bar');
  const header = document.querySelector('header[data-testid="stHeader"]');
  const side = main.querySelector('.st-key-stage_side');
  const column = side && side.closest('[data-testid="stColumn"]');
  const docked = column && getComputedStyle(column).position === 'sticky' && shown(column) ?
    column.getBoundingClientRect() : null;
  const top = Math.max(bar && shown(bar) ? bar.getBoundingClientRect().bottom : 0,
                       header && shown(header) ? header.getBoundingClientRect().bottom : 0);
  const bottom = docked && docked.bottom >= window.innerHeight - 1 ? docked.top : window.innerHeight;
  const charts = [...main.querySelectorAll('.js-plotly-plot')].filter(shown).map((plot) => {
    const box = plot.getBoundingClientRect();
    const title = plot.querySelector('.gtitle');
    return { name: (title ? title.textContent : '(untitled)').slice(0, 60), top: Math.round(box.top),
             bottom: Math.round(box.bottom), height: Math.round(box.height) };
  });
  const minText = parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--min-text')) || 0;
  const small = bar && minText ? [...bar.querySelectorAll('p')].filter(shown)
    .filter((p) => parseFloat(getComputedStyle(p).fontSize) < minText - 0.05)
    .map((p) => `${p.innerText.trim().slice(0, 30)} (${getComputedStyle(p).fontSize})`) : [];
  return { figureTop, height: window.innerHeight, controls, formulas, cut, elided, figures: figures.length,
           room: { top: Math.round(top), bottom: Math.round(bottom), docked: Boolean(docked) }, charts, small };
}
