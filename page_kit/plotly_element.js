// One mounted Plotly instance per chart key, updated in place with Plotly.react.
//
// Streamlit's own st.plotly_chart remounts its chart whenever the figure changes, and Plotly then draws
// it twice (mount, then a re-render). Here Streamlit keeps this element mounted (stable key) and calls
// this function again with new data, so a slider move costs exactly one Plotly.react.
// plotly.js is the plotly package's own file, served once by Streamlit's static route and cached.

const PLOTLY_URL = "./app/static/plotly.min.js";

function loadPlotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__posencPlotly) {
    window.__posencPlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = PLOTLY_URL;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => reject(new Error("plotly.js could not be loaded from " + PLOTLY_URL));
      document.head.appendChild(script);
    });
  }
  return window.__posencPlotly;
}

// Counters the browser test and the bench read: draws (Plotly.react calls finished) and mounts.
function count(name) {
  window.__posencCharts = window.__posencCharts || { draws: 0, mounts: 0 };
  window.__posencCharts[name] += 1;
}

// A float32 array sent as base64 ({bdata, shape}) back to plain arrays Plotly.restyle accepts.
function decode(spec) {
  const bytes = Uint8Array.from(atob(spec.bdata), (c) => c.charCodeAt(0));
  const flat = new Float32Array(bytes.buffer);
  if (spec.shape.length < 2) return Array.from(flat);
  const cols = spec.shape[1];
  const rows = [];
  for (let r = 0; r < spec.shape[0]; r++) rows.push(Array.from(flat.subarray(r * cols, (r + 1) * cols)));
  return rows;
}

function frameSwitcher(root, plot, figure, config, frames, Plotly) {
  // Precomputed frames (bounded by the kit): a range input and a play button swap them in the browser,
  // with no round trip, so a drag follows the hand and "Play" animates smoothly.
  let bar = root.querySelector(".pe-frames");
  if (!bar) {
    bar = document.createElement("div");
    bar.className = "pe-frames";
    bar.innerHTML = '<button type="button" class="pe-play" aria-label="Play"></button>' +
      '<input type="range" class="pe-range" min="0" step="1">' +
      '<span class="pe-label" aria-live="polite"></span>';
    root.appendChild(bar);
  }
  const button = bar.querySelector(".pe-play");
  const range = bar.querySelector(".pe-range");
  const label = bar.querySelector(".pe-label");
  const patches = frames.patches.map((patch) => patch.map((item) => [item.trace, item.attribute, decode(item)]));
  range.max = String(frames.values.length - 1);
  range.setAttribute("aria-label", frames.label);
  const show = (i) => {
    range.value = String(i);
    label.textContent = frames.label + " = " + frames.values[i];
    if (frames.datas) figure.data = frames.datas[i];
    for (const [trace, attribute, values] of patches[i]) figure.data[trace][attribute] = values;
    if (frames.layouts) Object.assign(figure.layout, frames.layouts[i]);
    Plotly.react(plot, figure.data, figure.layout, config).then(() => { count("draws"); root.__draws = (root.__draws || 0) + 1; });
  };
  if (root.__timer) { clearInterval(root.__timer); root.__timer = null; }
  button.textContent = "\u25B6 Play";
  range.oninput = () => show(Number(range.value));
  button.onclick = () => {
    if (root.__timer) {
      clearInterval(root.__timer); root.__timer = null; button.textContent = "\u25B6 Play"; return;
    }
    button.textContent = "\u275A\u275A Pause";
    let i = Number(range.value) >= frames.values.length - 1 ? 0 : Number(range.value);
    root.__timer = setInterval(() => {
      show(i);
      i += 1;
      if (i >= frames.values.length) { clearInterval(root.__timer); root.__timer = null; button.textContent = "\u25B6 Play"; }
    }, frameInterval(frames.interval_ms));
  };
  range.value = String(frames.start);
  label.textContent = frames.label + " = " + frames.values[frames.start];
}

// A reader whose system asks for less motion (prefers-reduced-motion) still gets Play, at one frame a second
// at most: the figure steps through its values instead of sweeping (WCAG 2.3.3).
const REDUCED_MOTION_MS = 1000;
function frameInterval(ms) {
  const reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  return reduce ? Math.max(ms, REDUCED_MOTION_MS) : ms;
}

// A legend stacked beside the plot takes a third of a phone's width and squeezes the plot to a sliver: on a
// narrow chart it goes under the plot instead, and the right margin kept for it is given back.
const NARROW_PX = 600;
function narrowLegend(layout, width) {
  const legend = layout.legend;
  if (!width || width >= NARROW_PX || !legend || legend.orientation !== "v" || !(legend.x > 1)) return;
  // at the bottom of the chart's own box ("container"), so Plotly makes room for it under the axis title
  layout.legend = { ...legend, orientation: "h", x: 0, xanchor: "left", xref: "container",
                    y: 0, yanchor: "bottom", yref: "container" };
  if (layout.margin && layout.margin.r > 40) layout.margin = { ...layout.margin, r: 20 };
}

// The chart's text alternative (the kit's alt text, with the current numbers) as the accessible name of a
// figure. Role "figure", not "img": an img's content is presentational, and Plotly's toolbar and drag layers
// inside it are interactive (axe: nested-interactive), which would hide them from keyboard and screen reader.
function nameFigure(root, alt) {
  if (root.getAttribute("role") !== "figure") root.setAttribute("role", "figure");
  if (root.getAttribute("aria-label") !== (alt || "")) root.setAttribute("aria-label", alt || "");
}

export default function ({ parentElement, data }) {
  let root = parentElement.querySelector(".pe-chart");
  if (!root) {
    root = document.createElement("div");
    root.className = "pe-chart";
    const plot = document.createElement("div");
    plot.className = "pe-plot";
    root.appendChild(plot);
    parentElement.appendChild(root);
    count("mounts");
  }
  const plot = root.querySelector(".pe-plot");
  nameFigure(root, data.alt);
  const figure = JSON.parse(data.figure);
  narrowLegend(figure.layout, parentElement.clientWidth);
  loadPlotly().then((Plotly) => {
    Plotly.react(plot, figure.data, figure.layout, data.config).then(() => {
      count("draws");
      root.__draws = (root.__draws || 0) + 1; // this chart's own count (the bench follows the hero figure)
      if (data.frames) frameSwitcher(root, plot, figure, data.config, data.frames, Plotly);
      else { const bar = root.querySelector(".pe-frames"); if (bar) bar.remove(); }
    });
  }).catch((error) => { plot.textContent = String(error); });
  return () => { if (root.__timer) clearInterval(root.__timer); };
}
