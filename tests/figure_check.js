// Read by tests/test_browser.py: what every visible Plotly figure of the page looks like once rendered.
// fonts: figures whose text did not resolve to the page's own, loaded "Source Sans" (a fallback);
// overlaps: a legend or annotation box that intersects the title, an axis title, the colour-bar title,
// the legend or another annotation, and a tick label on an axis title, the legend or an annotation;
// clipped: a title or annotation that runs past the figure's left or right edge (a long title on a phone);
// series: [name, colour, dash] of every named line;
// small: text drawn under the screen's minimum size (--min-text, set on a projector and a phone).
() => {
  const out = {fonts: [], overlaps: [], clipped: [], figures: 0, series: [], small: []};
  // the screen's minimum text size (page_kit/settings.SCREEN_CSS: a projector and a phone; 0 elsewhere)
  const minText = parseFloat(getComputedStyle(document.documentElement).getPropertyValue('--min-text')) || 0;
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return {l: r.left, t: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height};
  };
  const hit = (a, b) => Math.min(a.r, b.r) - Math.max(a.l, b.l) > 1.5 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 1.5;
  const faceLoaded = [...document.fonts].some(
    (f) => f.family.replace(/["']/g, '') === 'Source Sans' && f.status === 'loaded');
  for (const plot of document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')) {
    if (!plot.offsetParent) continue;  // inside a closed tab
    out.figures += 1;
    for (const trace of plot.data || []) {
      if (trace.name && trace.line && trace.line.color) {
        out.series.push([trace.name, trace.line.color, trace.line.dash || 'solid']);
      }
    }
    const name = (plot.querySelector('.gtitle') || {}).textContent || '(untitled)';
    const text = plot.querySelector('.main-svg text');
    if (text) {
      const family = getComputedStyle(text).fontFamily;
      const first = family.split(',')[0].trim().replace(/["']/g, '');
      if (first !== 'Source Sans' || !faceLoaded || !document.fonts.check(`13px ${family}`)) {
        out.fonts.push(`${name}: ${family} (face loaded: ${faceLoaded})`);
      }
    }
    if (minText) {
      for (const t of plot.querySelectorAll('.main-svg text')) {
        if (!t.textContent.trim() || t.closest('.hoverlayer')) continue;
        const size = parseFloat(getComputedStyle(t).fontSize);
        if (size < minText - 0.05) out.small.push(`${name}: "${t.textContent.trim().slice(0, 30)}" at ${size} px`);
      }
    }
    const items = [];
    const title = plot.querySelector('.gtitle');
    if (title && title.textContent) items.push(['title', box(title)]);
    for (const t of plot.querySelectorAll('[class^="g-x"][class$="title"] text, [class^="g-y"][class$="title"] text')) {
      if (t.textContent) items.push([`axis title "${t.textContent}"`, box(t)]);
    }
    const legend = plot.querySelector('.legend .bg');
    if (legend && box(legend).w > 0) items.push(['legend', box(legend)]);
    for (const a of plot.querySelectorAll('.annotation')) {
      const label = a.textContent.trim();
      if (label) items.push([`annotation "${label.slice(0, 40)}"`, box(a.querySelector('.annotation-text-g') || a)]);
    }
    const frame = box(plot);
    for (const [n, b] of items) {
      if ((n === 'title' || n.startsWith('annotation')) && (b.r > frame.r + 1 || b.l < frame.l - 1)) {
        out.clipped.push(`${name}: ${n} runs past the figure's edge (${Math.round(b.l - frame.l)} to ` +
                         `${Math.round(b.r - frame.l)} px of ${Math.round(frame.w)})`);
      }
    }
    const colourbar = plot.querySelector('.cbtitle text');
    if (colourbar && colourbar.textContent) items.push(['colour-bar title', box(colourbar)]);
    // tick labels may touch each other (plotly thins them), but not an axis title, the legend or a label
    const ticks = [...plot.querySelectorAll('.xtick text, .ytick text, [class*="tick"] > text')]
      .filter((t) => t.textContent.trim() && box(t).w > 0);
    for (const t of ticks) {
      for (const [n, b] of items) {
        if (n !== 'title' && n !== 'colour-bar title' && hit(box(t), b)) {
          out.overlaps.push(`${name}: tick label "${t.textContent}" overlaps ${n}`);
        }
      }
    }
    for (let i = 0; i < items.length; i++) {
      for (let j = i + 1; j < items.length; j++) {
        const [na, a] = items[i], [nb, b] = items[j];
        const movable = [na, nb].some((n) => n === 'legend' || n.startsWith('annotation'));
        if (movable && hit(a, b)) out.overlaps.push(`${name}: ${na} overlaps ${nb}`);
      }
    }
  }
  return out;
}
