// Fitting a figure to the width it is drawn at, before Plotly draws it (page_kit/chart/plotly_element.py puts this file
// in front of plotly_element.js). The kit builds a figure once for every screen; Plotly itself never wraps a
// title, stacks a legend row into the title above it, and draws a diagram's text at the template's size whatever
// the boxes. On a 390 px phone and with a projector's fonts those ran off the edge or into each other
// (tests/figure_check.js finds them). The chart keeps the height the page reserved for it throughout: what the
// top needs more is taken from the plot.

const NARROW_PX = 600; // below this a legend never sits beside or above the plot
const LEGEND_ITEM_PX = 44; // a legend entry's symbol and gaps beside its text
const LINE = 1.3; // Plotly's line height, in font sizes
const LEGEND_ROW = 1.6; // a legend row's height, in font sizes
const TEXT_SAFETY = 1.06; // the web font may not have loaded when this measures: a little room for the swap
const PANEL_TITLE_MIN_PX = 9;
const COLOURBAR_PX = 80; // what a colour bar and its title take from the plot's width
const SQUARE_SAFETY = 0.9; // the top band may still grow (fitTop), leaving a square panel a little less height
const DESIGN_FONT_PX = 13; // a diagram's boxes are sized for text of this size at its meta.design_px
const SHRINK_LIMIT = 0.85; // a diagram's text shrinks to 85% before the diagram scrolls sideways instead
const SCROLLBAR_PX = 16;
const CUE_PX = 28; // the scroll cue's line (.pe-scroll-cue in plotly_element.py)

let measureCanvas = null;
function textWidth(text, font) {
  measureCanvas = measureCanvas || document.createElement("canvas");
  const context = measureCanvas.getContext("2d");
  context.font = font;
  return context.measureText(String(text).replace(/<[^>]+>/g, "")).width * TEXT_SAFETY;
}

function wrapWords(text, fits) {
  const lines = [];
  let line = "";
  for (const word of String(text).split(" ")) {
    const next = line ? line + " " + word : word;
    if (line && !fits(next)) { lines.push(line); line = word; } else { line = next; }
  }
  return [...lines, line];
}

// What the template says, under what the figure says: Plotly merges the two the same way.
function styleOf(layout) {
  const base = (layout.template && layout.template.layout) || {};
  const font = base.font || {};
  return {
    base, size: font.size || DESIGN_FONT_PX, family: font.family || "sans-serif",
    margin: { ...(base.margin || {}), ...(layout.margin || {}) },
    title: { ...(base.title || {}), ...(typeof layout.title === "string" ? { text: layout.title } : layout.title || {}) },
    legend: { ...(base.legend || {}), ...(layout.legend || {}) },
  };
}

// How many rows a horizontal legend takes: Plotly fills a row with entries and starts the next when one does
// not fit.
function legendRows(layout, data, style, width) {
  const size = (style.legend.font && style.legend.font.size) || style.size;
  const font = `${size}px ${style.family}`;
  const names = [...new Set(data.filter((t) => t.name && t.showlegend !== false && t.visible !== false)
    .map((t) => String(t.name)))];
  const room = width - (style.margin.l || 0) - (style.margin.r || 0);
  let rows = names.length ? 1 : 0, used = 0;
  for (const name of names) {
    const entry = textWidth(name, font) + LEGEND_ITEM_PX;
    if (used && used + entry > room) { rows += 1; used = 0; }
    used += entry;
  }
  return { rows, height: rows * size * LEGEND_ROW };
}

function legendAbove(style) {
  const legend = style.legend;
  return legend.orientation === "h" && legend.y > 1 && (legend.yref || "paper") === "paper";
}

// On a narrow chart a legend beside the plot squeezes it to a sliver, and one above it that needs two rows
// crowds the title: either goes under the plot, in the chart's own box ("container"), where Plotly makes room.
function narrowLegend(layout, data, width) {
  const style = styleOf(layout);
  if (width >= NARROW_PX || layout.showlegend === false) return;
  const beside = style.legend.orientation === "v" && style.legend.x > 1;
  const above = legendAbove(style) && legendRows(layout, data, style, width).rows > 1;
  if (!beside && !above) return;
  layout.legend = { ...(layout.legend || {}), orientation: "h", x: 0, xanchor: "left", xref: "container",
                    y: 0, yanchor: "bottom", yref: "container" };
  if (beside && style.margin.r > 40) layout.margin = { ...(layout.margin || {}), r: 20 };
}

// A long title is broken at spaces into lines that fit the chart. Plotly centres the extra lines of a title
// anchored at its top about the first, so the title is pushed down by half of them to stay in the chart.
function fitTitle(layout, width) {
  const style = styleOf(layout);
  const title = style.title;
  if (!title.text || String(title.text).includes("<br>")) return;
  const size = (title.font && title.font.size) || style.size;
  const font = `${size}px ${style.family}`;
  const room = width - ((title.pad && title.pad.l) || 0) - 8;
  const lines = wrapWords(title.text, (line) => textWidth(line, font) <= room);
  if (lines.length < 2) return;
  const pad = { ...(title.pad || {}) };
  pad.t = (pad.t || 0) + Math.ceil((lines.length - 1) * size * LINE / 2);
  layout.title = { ...(typeof layout.title === "object" ? layout.title : {}), text: lines.join("<br>"), pad };
}

// Panel titles of small multiples (figures.PANEL_TITLE) were broken for a laptop's panel width; side by side on
// a phone their panels are a third as wide. Each line is broken again to its panel's share of the plot.
// A panel kept square (figures.square_panels: the y axis anchored to the x axis, constrained to its domain) is
// narrower than its share of the width where the height is what limits it: its title must fit what is drawn.
function panelWidth(layout, data, name, plotWidth, plotHeight) {
  const suffix = name.slice("xaxis".length);
  const xaxis = layout[name], yaxis = layout[`yaxis${suffix}`] || {};
  const wide = (xaxis.domain[1] - xaxis.domain[0]) * plotWidth;
  if (!yaxis.scaleanchor || !yaxis.domain) return wide;
  const trace = data.find((t) => (t.xaxis || "x") === `x${suffix}` && t.z && t.z.shape);
  const [rows, cols] = trace ? String(trace.z.shape).split(",").map(Number) : [1, 1];
  const tall = (yaxis.domain[1] - yaxis.domain[0]) * plotHeight * SQUARE_SAFETY;
  return Math.min(wide, tall * (cols / rows || 1));
}

function fitPanelTitles(layout, data, width, min) {
  const style = styleOf(layout);
  const plotWidth = width - (style.margin.l || 0) - (style.margin.r || 0) - (layout.coloraxis ? COLOURBAR_PX : 0);
  const plotHeight = (layout.height || 450) - (style.margin.t || 0) - (style.margin.b || 0);
  const axes = Object.keys(layout).filter((k) => k.startsWith("xaxis") && layout[k] && layout[k].domain);
  for (const note of layout.annotations || []) {
    if (note.name !== "panel_title") continue;
    const axis = axes.find((k) => layout[k].domain[0] <= note.x && note.x <= layout[k].domain[1]);
    if (!axis) continue;
    let size = (note.font && note.font.size) || style.size;
    const room = panelWidth(layout, data, axis, plotWidth, plotHeight) - 4;
    // a word longer than the panel is wide cannot be broken: the title's text gets smaller instead
    const words = String(note.text).split(/<br>| /);
    const longest = Math.max(...words.map((w) => textWidth(w, `${size}px ${style.family}`)));
    if (longest > room) {
      size = Math.max(PANEL_TITLE_MIN_PX, min, Math.floor(size * room / longest));
      note.font = { ...(note.font || {}), size };
    }
    const font = `${size}px ${style.family}`;
    note.text = String(note.text).split("<br>")
      .flatMap((line) => wrapWords(line, (l) => textWidth(l, font) <= room)).join("<br>");
  }
}

// The band above the plot holds the title and then either the legend rows or the top row's panel titles; the
// figure was given a top margin for one title line and one legend row at the laptop's font size. Where the
// wrapped title, a projector's font or a legend of several rows need more, the plot gives it.
function fitTop(layout, data, width) {
  const style = styleOf(layout);
  const title = style.title;
  let needed = 0;
  if (title.text) {
    const size = (title.font && title.font.size) || style.size + 3;
    const lines = String(title.text).split("<br>").length;
    needed = ((title.pad && title.pad.t) || 0) + lines * size * LINE + 6;
  }
  let band = 0;
  if (layout.showlegend !== false && legendAbove(style)) {
    const legend = legendRows(layout, data, style, width);
    if (legend.rows) band = legend.height + 6; // and the 2% gap between the legend and the plot
  }
  const notes = (layout.annotations || []).filter((a) => a.name === "panel_title");
  if (notes.length) {
    const top = Math.max(...notes.map((a) => a.y));
    for (const note of notes.filter((a) => a.y === top)) {
      const size = (note.font && note.font.size) || style.size;
      band = Math.max(band, String(note.text).split("<br>").length * size * LINE + 4);
    }
  }
  needed = Math.ceil(needed + band);
  if ((style.margin.t || 0) < needed) layout.margin = { ...(layout.margin || {}), t: needed };
}

// A diagram (figures.flow_diagram) places its boxes in data units, sized for 13 px text on a chart of
// layout.meta.design_px: its text follows the chart's width (up to the template's size, down to 85%), and on a
// phone the diagram keeps its designed width and scrolls sideways, with a cue, rather than piling its labels up.
function fitDiagram(root, plot, layout, width, min) {
  const design = layout.meta && layout.meta.design_px;
  let cue = root.querySelector(".pe-scroll-cue");
  // a diagram whose notes would shrink under the screen's smallest type keeps its design size and scrolls instead
  const fit = design ? Math.min(styleOf(layout).size / DESIGN_FONT_PX, width / design) : 1;
  const smallest = Math.min(...(layout.annotations || []).map((n) => (n.font && n.font.size) || DESIGN_FONT_PX));
  const narrow = Boolean(design) && (width < SHRINK_LIMIT * design || (min > 0 && smallest * fit < min));
  if (design) {
    const scale = narrow ? 1 : fit;
    for (const note of layout.annotations || []) {
      const size = (note.font && note.font.size) || DESIGN_FONT_PX;
      note.font = { ...(note.font || {}), size: Math.round(size * scale * 10) / 10 };
    }
  }
  // the page reserved the chart's height: the cue (and, under a mouse, the scroll bar) take their share
  const bar = window.matchMedia && window.matchMedia("(pointer: coarse)").matches ? 0 : SCROLLBAR_PX;
  if (narrow && layout.height) layout.height -= CUE_PX + bar;
  plot.style.minWidth = narrow ? `${design}px` : "";
  root.style.overflowX = narrow ? "auto" : "";
  root.style.overflowY = narrow ? "hidden" : "";
  // a region that scrolls takes the keyboard's focus, or arrow keys cannot scroll it (axe:
  // scrollable-region-focusable); it keeps its role and name as a figure
  if (narrow) root.tabIndex = 0; else root.removeAttribute("tabindex");
  if (narrow && !cue) {
    cue = document.createElement("p");
    cue.className = "pe-scroll-cue";
    cue.textContent = root.dataset.cue || "The diagram is wider than the screen: scroll it sideways \u2192";
    root.insertBefore(cue, plot);
  } else if (!narrow && cue) cue.remove();
}

// The screen's type scale and the height a figure may take (page_kit/settings.SCREEN_CSS, from theme.MIN_TEXT_PX
// and theme.FIGURE_ROOM_VH): set on a projector in presentation mode and on a phone, unset elsewhere.
function minText() {
  return parseFloat(getComputedStyle(document.documentElement).getPropertyValue("--min-text")) || 0;
}

// Every font of the figure below the screen's minimum is raised to it: a builder's small print (a small multiple's
// 10 px ticks) was made for a laptop at arm's length. Data arrays are not walked, only settings objects.
function raiseFonts(node, min) {
  for (const [key, value] of Object.entries(node)) {
    if (!value || typeof value !== "object" || key === "template") continue;
    if (Array.isArray(value) && typeof value[0] !== "object") continue;
    if (/font$/i.test(key) && !Array.isArray(value)) {
      if (typeof value.size === "number" && value.size < min) value.size = min;
    } else if (!Array.isArray(value) || key === "annotations") raiseFonts(value, min);
  }
}

function fitText(layout, data, min) {
  if (!min) return;
  raiseFonts(layout, min);
  for (const trace of data) raiseFonts(trace, min);
}

// A figure taller than the room its box is given (a max-height from --figure-room) is drawn to the room: the
// whole figure on the first screen, above the presentation bar or the phone's control dock.
const FIGURE_MIN_PX = 240;
function fitHeight(root, layout) {
  const room = parseFloat(getComputedStyle(root.parentElement).maxHeight);
  const height = layout.height || 450;
  if (!(room > 0) || height + (root.__barPx || 0) <= room) return;
  layout.height = Math.max(FIGURE_MIN_PX, Math.floor(room - (root.__barPx || 0)));
}

// A row of square panels built for a laptop's column (figures.square_panels) is drawn narrower on a phone: its
// panels are then as small as the width makes them, and the height above and below them is left blank. The
// figure and the box the page reserved for it take the height the panels use.
function fitSquare(root, layout, data, width) {
  const style = styleOf(layout);
  const plotWidth = width - (style.margin.l || 0) - (style.margin.r || 0) - (layout.coloraxis ? COLOURBAR_PX : 0);
  let plotHeight = 0;
  for (const name of Object.keys(layout).filter((k) => /^xaxis\d*$/.test(k) && layout[k] && layout[k].domain)) {
    const suffix = name.slice("xaxis".length), yaxis = layout[`yaxis${suffix}`] || {};
    if (!yaxis.scaleanchor || !yaxis.domain) { plotHeight = 0; break; } // a panel that is not square: keep the height
    const trace = data.find((t) => (t.xaxis || "x") === `x${suffix}` && t.z && t.z.shape);
    const [rows, cols] = trace ? String(trace.z.shape).split(",").map(Number) : [1, 1];
    const wide = (layout[name].domain[1] - layout[name].domain[0]) * plotWidth;
    plotHeight = Math.max(plotHeight, wide * (rows / cols || 1) / (yaxis.domain[1] - yaxis.domain[0]));
  }
  const needed = Math.ceil(plotHeight / SQUARE_SAFETY + (style.margin.t || 0) + (style.margin.b || 0));
  // Streamlit sizes the component's box, its wrapper and its element container to the height the page asked for
  const boxes = [root.parentElement, root.parentElement.closest(".stBidiComponent"),
    root.parentElement.closest('[data-testid="stElementContainer"]')].filter(Boolean);
  if (!plotHeight || !layout.height || needed >= layout.height) {
    for (const box of boxes) { box.style.removeProperty("height"); box.style.removeProperty("flex-basis"); }
    return;
  }
  layout.height = needed;
  for (const box of boxes) box.style.height = box.style.flexBasis = `${needed + (root.__barPx || 0)}px`;
}

function fitFigure(root, plot, figure, width) {
  if (!width) return;
  const layout = figure.layout;
  const min = minText();
  fitHeight(root, layout);
  fitText(layout, figure.data, min);
  narrowLegend(layout, figure.data, width);
  fitTitle(layout, width);
  fitPanelTitles(layout, figure.data, width, min);
  fitDiagram(root, plot, layout, width, min);
  fitText(layout, figure.data, min);
  fitTop(layout, figure.data, width);
  fitSquare(root, layout, figure.data, width);
}
