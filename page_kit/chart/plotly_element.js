// One mounted Plotly instance per chart key, updated in place with Plotly.react.
//
// Streamlit's own st.plotly_chart remounts its chart whenever the figure changes, and Plotly then draws
// it twice (mount, then a re-render). Here Streamlit keeps this element mounted (stable key) and calls
// this function again with new data, so a slider move costs exactly one Plotly.react.
// plotly.js is the plotly package's own file, served once by Streamlit's static route and cached.

const PLOTLY_URL = "./app/static/plotly.min.js";
const WIDTH_SETTLE_MS = 150;
const FRAMES_BAR_PX = 44; // plotly_element.py reserves this under a chart with frames // a column that changes width (the sidebar sliding) is redrawn once it has stopped

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

// Counters the browser test and the bench read: draws (Plotly.react calls finished), mounts, aheadDraws
// (hero frames drawn before the server answered) and widthDraws (redraws fitted to a new column width).
function count(name, by = 1) {
  window.__posencCharts = window.__posencCharts || { draws: 0, mounts: 0 };
  window.__posencCharts[name] = (window.__posencCharts[name] || 0) + by;
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
    root.__drawn = null; // a frame of the scrub bar is on screen now, not the figure sent
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

// The figure as a control (page_kit/chart/figure_control.py). A click on a cell or point ("pick"), or a press and
// drag near a handle (an arrow's tip, a marker line), reports where the hand went in data units as the state
// value "hand"; Python snaps it onto the slider it sets and reruns, as a drag slider's move does. Listeners
// are installed once per chart and read the newest spec from the element, so a rerun only swaps the spec.
const GRAB_PX = 28; // how near a press must be to an arrow's tip to take it
const HAND_TIMEOUT_MS = 600; // a rerun that never comes back must not stall a drag

function axisValue(axis, pixel) {
  const linear = axis.p2l(pixel);
  return axis.type === "log" ? Math.pow(10, linear) : linear;
}

function axisPixel(axis, value) {
  return axis.l2p(axis.type === "log" ? Math.log10(value) : value);
}

function handAt(plot, event) {
  // pointer position inside the plot area, in pixels and in data units
  const size = plot._fullLayout._size;
  const rect = plot.getBoundingClientRect();
  const px = event.clientX - rect.left - size.l, py = event.clientY - rect.top - size.t;
  const xa = plot._fullLayout.xaxis, ya = plot._fullLayout.yaxis;
  return { px, py, x: axisValue(xa, px), y: axisValue(ya, py), inside: px >= 0 && py >= 0 && px <= size.w && py <= size.h };
}

function nearestHandle(plot, handles, at, anywhere) {
  const xa = plot._fullLayout.xaxis, ya = plot._fullLayout.yaxis;
  let best = -1, bestDistance = Infinity;
  handles.forEach((h, i) => {
    const dx = h.x === null ? 0 : at.px - axisPixel(xa, h.x);
    const dy = h.y === null ? 0 : at.py - axisPixel(ya, h.y);
    const distance = Math.hypot(dx, dy);
    if (distance < bestDistance) { best = i; bestDistance = distance; }
  });
  return best >= 0 && (anywhere || bestDistance <= GRAB_PX) ? best : -1;
}

function moveTip(plot, handle, at, Plotly) {
  // the dragged arrow follows the hand at once; the rerun then draws the exact figure
  const index = plot.data.findIndex((trace) => trace.name === handle.trace);
  if (index < 0) return;
  const trace = plot.data[index];
  const xs = Array.from(trace.x), ys = Array.from(trace.y);
  xs[xs.length - 1] = at.x; ys[ys.length - 1] = at.y;
  Plotly.restyle(plot, { x: [xs], y: [ys] }, [index]);
}

function figureControl(root, plot, control, setStateValue, Plotly) {
  root.__control = control;
  root.__hand = root.__hand || { n: 0, inflight: false, pending: null, timer: null, grabbed: -1 };
  const hand = root.__hand;
  clearTimeout(hand.timer); // new data: the rerun the last report caused has come back
  hand.inflight = false;
  const send = (report) => {
    if (hand.inflight) { hand.pending = report; return; }
    hand.inflight = true; hand.pending = null;
    hand.n += 1;
    setStateValue("hand", { ...report, n: hand.n });
    hand.timer = setTimeout(() => { hand.inflight = false; if (hand.pending) send(hand.pending); }, HAND_TIMEOUT_MS);
  };
  if (hand.pending && hand.grabbed < 0) send(hand.pending);
  if (root.__controlBound) return;
  root.__controlBound = true;
  root.classList.add("pe-control");
  // an arrow's tip is dragged by a finger too, so the page must not scroll from that small square plot
  if (control.handles && !control.anywhere) plot.style.touchAction = "none";
  plot.on("plotly_click", (event) => {
    const spec = root.__control;
    const point = event && event.points && event.points[0];
    if (!spec || !spec.pick || !point) return;
    if (spec.pick.traces && !spec.pick.traces.includes(point.data.name)) return;
    send({ kind: "pick", x: point.x, y: point.y });
  });
  plot.addEventListener("pointerdown", (event) => {
    const spec = root.__control;
    if (!spec || !spec.handles || event.button !== 0) return;
    const at = handAt(plot, event);
    if (!at.inside) return;
    const i = nearestHandle(plot, spec.handles, at, spec.anywhere);
    if (i < 0) return;
    if (spec.anywhere && event.pointerType !== "mouse") {
      // a finger on a marker chart may be scrolling the page: a tap places the line, a swipe does nothing
      const tap = (e) => {
        plot.removeEventListener("pointerup", tap);
        plot.removeEventListener("pointercancel", tap);
        const handle = root.__control.handles[i], now = handAt(plot, e);
        if (e.type === "pointerup" && handle) {
          send({ kind: "drag", handle: i, x: handle.x === null ? undefined : now.x,
                 y: handle.y === null ? undefined : now.y });
        }
      };
      plot.addEventListener("pointerup", tap);
      plot.addEventListener("pointercancel", tap);
      return;
    }
    event.preventDefault(); event.stopPropagation();
    hand.grabbed = i;
    plot.setPointerCapture(event.pointerId);
    const report = (e) => {
      const now = handAt(plot, e);
      const handle = root.__control.handles[hand.grabbed];
      if (!handle) return;
      if (handle.trace) { moveTip(plot, handle, now, Plotly); root.__drawn = null; }
      const out = { kind: "drag", handle: hand.grabbed };
      if (handle.x !== null) out.x = now.x;
      if (handle.y !== null) out.y = now.y;
      send(out);
    };
    report(event);
    const move = (e) => report(e);
    const up = (e) => {
      report(e);
      hand.grabbed = -1;
      plot.removeEventListener("pointermove", move);
      plot.removeEventListener("pointerup", up);
      plot.removeEventListener("pointercancel", up);
    };
    plot.addEventListener("pointermove", move);
    plot.addEventListener("pointerup", up);
    plot.addEventListener("pointercancel", up);
  }, true);
}

// The chart's text alternative (the kit's alt text, with the current numbers) as the accessible name of a
// figure. Role "figure", not "img": an img's content is presentational, and Plotly's toolbar and drag layers
// inside it are interactive (axe: nested-interactive), which would hide them from keyboard and screen reader.
function nameFigure(root, alt) {
  if (root.getAttribute("role") !== "figure") root.setAttribute("role", "figure");
  if (root.getAttribute("aria-label") !== (alt || "")) root.setAttribute("aria-label", alt || "");
}

// Hero frames (page_kit/chart/hero_frames.py). Per chart key, the frames this page was sent (digest -> figure JSON;
// the server says which to keep, so it knows what the browser holds), and which of them shows which value of the
// slider under the hand in the latest run. Kept on window, not on the chart's node: a tab switch unmounts it.
function heroStore(chart) {
  window.__posencHero = window.__posencHero || new Map();
  if (!window.__posencHero.has(chart)) window.__posencHero.set(chart, new Map());
  return window.__posencHero.get(chart);
}

function keepFrames(root, data) {
  const store = heroStore(data.chart);
  const ahead = data.ahead;
  if (!ahead) { store.clear(); root.__hero = null; return; } // not a hero figure: nothing to keep
  store.set(data.digest, data.figure);
  for (const [digest, json] of Object.entries(ahead.new)) store.set(digest, json);
  const keep = new Set(ahead.keep);
  for (const digest of [...store.keys()]) if (!keep.has(digest) && digest !== data.digest) store.delete(digest);
  root.__hero = { key: ahead.key, frames: ahead.frames, store };
}

// The drag slider under the hand moved (drag_slider.js): draw the frame held for its new value, if any.
function heroMove(root, plot, parentElement, detail) {
  const hero = root.__hero;
  if (!hero || hero.key !== detail.key) return;
  const digest = hero.frames[detail.url];
  const json = digest && hero.store.get(digest);
  if (!json || digest === root.__drawn) return;
  count("aheadDraws");
  draw(root, plot, parentElement, json, digest, root.__config).catch((error) => { plot.textContent = String(error); });
}

function drawnAs(root, digest, width, config) {
  return Boolean(digest) && root.__drawn === digest && root.__drawnWidth === width && root.__drawnConfig === config
    && root.__drawnRoom === roomOf(root);
}

function roomOf(root) {
  return getComputedStyle(root.parentElement).maxHeight;
}

// One Plotly.react of a figure sent as JSON, fitted to the width it is drawn at. A redraw for a new width is not
// counted as a draw (the counters say what a slider move costs).
function draw(root, plot, parentElement, json, digest, config, counted = true) {
  const figure = JSON.parse(json);
  const width = parentElement.clientWidth;
  fitFigure(root, plot, figure, width); // figure_fit.js, loaded before this file
  root.__drawn = digest;
  root.__drawnWidth = width;
  root.__drawnRoom = roomOf(root);
  root.__drawnConfig = JSON.stringify(config);
  root.__drawnJson = json; // what is on screen (the browser test compares it with the server's figure)
  count("pending"); // draws begun and not finished: a page has settled only at 0 (devtools/streamlit_server.py)
  return loadPlotly().then((Plotly) => Plotly.react(plot, figure.data, figure.layout, config).then(() => {
    if (counted) {
      count("draws");
      root.__draws = (root.__draws || 0) + 1; // this chart's own count (the bench follows the hero figure)
    }
    return [Plotly, figure];
  })).finally(() => count("pending", -1));
}

// A figure is fitted to its column's width when drawn, and Plotly itself follows only the window's size. The
// column also changes width when the sidebar opens or closes, or a scrollbar appears: the figure then overran
// the column or left a gap beside it. Draw it again, fitted, once the width has settled (and the height of a screen
// that sets the figure's room, settings.SCREEN_CSS). A chart with a scrub
// bar keeps the frame it shows: Plotly only resizes it.
function followWidth(root, plot, parentElement) {
  if (root.__widthObserver || typeof ResizeObserver === "undefined") return;
  root.__widthObserver = new ResizeObserver(() => {
    if (!root.isConnected) { root.__widthObserver.disconnect(); return; }
    clearTimeout(root.__widthTimer);
    root.dataset.widthPending = "true"; // a redraw for the new width is due (devtools/streamlit_server.py waits)
    root.__widthTimer = setTimeout(() => {
      delete root.dataset.widthPending;
      const width = parentElement.clientWidth;
      if (!width || !root.__drawnJson || (width === root.__drawnWidth && roomOf(root) === root.__drawnRoom)) return;
      if (root.querySelector(".pe-frames")) {
        root.__drawnWidth = width;
        loadPlotly().then((Plotly) => Plotly.Plots.resize(plot)).catch(() => {});
        return;
      }
      // fitted again for the new width; Plotly sizes an unchanged figure anew only when asked to
      count("widthDraws");
      draw(root, plot, parentElement, root.__drawnJson, root.__drawn, root.__config, false)
        .then(([Plotly]) => Plotly.Plots.resize(plot))
        .catch((error) => { plot.textContent = String(error); });
    }, WIDTH_SETTLE_MS);
  });
  root.__widthObserver.observe(parentElement);
}

export default function ({ parentElement, data: sent, setStateValue }) {
  const data = unpackElementData(sent); // element_data.py
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
  followWidth(root, plot, parentElement);
  nameFigure(root, data.alt);
  root.dataset.cue = data.cue || ""; // the scroll cue in the reader's language (figure_fit.js fitDiagram)
  keepFrames(root, data);
  root.__config = data.config;
  root.__sent = data.figure;
  root.__barPx = data.frames ? FRAMES_BAR_PX : 0; // the scrub bar shares the chart's box (figure_fit.js)
  if (!root.__heroBound) {
    root.__heroBound = true;
    const onSlider = (event) => {
      if (!root.isConnected) { window.removeEventListener("posenc:slider", onSlider); return; }
      heroMove(root, plot, parentElement, event.detail);
    };
    window.addEventListener("posenc:slider", onSlider);
  }
  const after = (Plotly, figure) => {
    if (data.control) figureControl(root, plot, data.control, setStateValue, Plotly);
    if (data.frames) frameSwitcher(root, plot, figure, data.config, data.frames, Plotly);
    else { const bar = root.querySelector(".pe-frames"); if (bar) bar.remove(); }
  };
  // A rerun whose figure is the one on screen (a hero frame drawn ahead of it, or a move that changed only the
  // text) is not drawn again.
  if (!data.frames && drawnAs(root, data.digest, parentElement.clientWidth, JSON.stringify(data.config))) {
    loadPlotly().then((Plotly) => after(Plotly, null)).catch((error) => { plot.textContent = String(error); });
  } else {
    draw(root, plot, parentElement, data.figure, data.digest, data.config)
      .then(([Plotly, figure]) => after(Plotly, figure))
      .catch((error) => { plot.textContent = String(error); });
  }
  return () => { if (root.__timer) clearInterval(root.__timer); };
}
