// A slider that sends its value while it is dragged, so the figure under it follows the hand.
//
// Streamlit's own slider sends its value only when the thumb is released. This one is a native range input
// (keyboard, touch and screen readers work as for any slider) over the indices of the values the Python side
// lists; while it moves it sends the newest index, at most one in flight: the next is sent when the rerun
// that the last one caused has come back (the data then carries that index) or after a short timeout. So a
// slow server is never flooded, and a fast one follows the drag at its own pace. The math stays in Python:
// every update is a normal rerun of the same core call. A hero figure holding the frame for the new value
// (page_kit/chart/hero_frames.py) draws it at once, before that rerun comes back.

const ACK_TIMEOUT_MS = 600; // a rerun that never echoes the index (the page clamped it) must not stall the drag
const SETTLE_MS = 700; // a screen reader hears the value once, this long after the last move, not every frame

function build(parentElement, id) {
  const root = document.createElement("div");
  root.className = "ls";
  root.innerHTML =
    '<div class="ls-head"><label class="ls-label"></label>' +
    '<button type="button" class="ls-help" aria-expanded="false">?</button>' +
    '<output class="ls-value" aria-hidden="true"></output></div>' +
    '<div class="ls-tip" hidden></div>' +
    '<input type="range" class="ls-range" min="0" step="1">' +
    '<div class="ls-ends" aria-hidden="true"><span class="ls-min"></span><span class="ls-max"></span></div>' +
    '<span class="ls-status" role="status" aria-live="polite"></span>';
  const input = root.querySelector(".ls-range");
  input.id = id;
  root.querySelector(".ls-label").htmlFor = id;
  // Help shows as a tooltip under a mouse and, since a touch screen has no hover, opens under the label
  // when the "?" is tapped or clicked.
  const help = root.querySelector(".ls-help");
  const tip = root.querySelector(".ls-tip");
  tip.id = id + "-tip";
  help.setAttribute("aria-controls", tip.id);
  help.onclick = () => {
    tip.hidden = !tip.hidden;
    help.setAttribute("aria-expanded", String(!tip.hidden));
  };
  parentElement.appendChild(root);
  return root;
}

export default function ({ parentElement, data: sent, setStateValue }) {
  const data = unpackElementData(sent); // element_data.py
  let root = parentElement.querySelector(".ls");
  if (!root) root = build(parentElement, "ls-" + String(data.key).replace(/[^A-Za-z0-9_-]/g, "_"));
  const input = root.querySelector(".ls-range");
  const readout = root.querySelector(".ls-value");
  const labels = data.labels;
  const last = labels.length - 1;

  // Every rerun calls this function again, mostly with the same label, help and ends: touch the DOM only
  // where something changed, so a slider move does not make the browser restyle every slider on the page.
  const text = (el, value) => { if (el.textContent !== value) el.textContent = value; };
  const attr = (el, name, value) => { if (el.getAttribute(name) !== value) el.setAttribute(name, value); };
  attr(root, "data-key", String(data.key)); // the URL key: tests and the bench find a slider by it
  text(root.querySelector(".ls-label"), data.label);
  const help = root.querySelector(".ls-help");
  if (help.hidden !== !data.help) help.hidden = !data.help;
  attr(help, "title", data.help || "");
  attr(help, "aria-label", data.help ? "Help: " + data.help : "");
  const tip = root.querySelector(".ls-tip");
  text(tip, data.help || "");
  if (!data.help && !tip.hidden) tip.hidden = true;
  text(root.querySelector(".ls-min"), labels[0]);
  text(root.querySelector(".ls-max"), labels[last]);
  attr(input, "max", String(last));
  attr(input, "aria-label", data.label);

  const show = (index) => {
    text(readout, labels[index]);
    attr(input, "aria-valuetext", labels[index]);
    const fill = last > 0 ? (100 * index) / last + "%" : "0%";
    if (input.style.getPropertyValue("--ls-fill") !== fill) input.style.setProperty("--ls-fill", fill);
  };

  // Flow control. Every call of this function with new data means a rerun has finished (data.index is the
  // index that run used), so the next index may go.
  const flow = (root.__flow = root.__flow || { inflight: null, pending: null, timer: null, dragging: false });
  const send = (index) => {
    flow.inflight = index;
    flow.pending = null;
    clearTimeout(flow.timer);
    flow.timer = setTimeout(() => { flow.inflight = null; flush(); }, ACK_TIMEOUT_MS);
    setStateValue("value", data.url[index]); // the URL text: Python maps it back, even if the list changed
  };
  const flush = () => {
    if (flow.inflight !== null || flow.pending === null) return;
    if (flow.pending === flow.acked) flow.pending = null;
    else send(flow.pending);
  };
  clearTimeout(flow.timer);
  flow.inflight = null;
  flow.acked = data.index;
  if (!flow.dragging && flow.pending === null) {
    if (input.value !== String(data.index)) input.value = String(data.index);
    show(data.index);
  }
  flush();

  input.oninput = () => {
    const index = Number(input.value);
    show(index);
    flow.pending = index;
    flush();
    // then (the value is on its way) a hero figure that holds the frame for this value draws it at once
    // (plotly_element.js, page_kit/chart/hero_frames.py)
    window.dispatchEvent(new CustomEvent("posenc:slider", { detail: { key: String(data.key), url: data.url[index] } }));
  };
  input.onchange = input.oninput; // the release: its value must reach the server even if no input event did
  keyboard(root, input, data.label, labels);
  input.onpointerdown = () => {
    flow.dragging = true;
    // the release may happen outside the input
    window.addEventListener("pointerup", () => { flow.dragging = false; }, { once: true });
  };
}

// Keyboard and screen readers. The native range input already moves by one stop with the arrows and to the
// ends with Home / End; PageUp / PageDown move by a tenth of the range (and stay with the slider, not the
// presentation bar's page keys). Once a move has settled, a polite status region (aria-live) says the new value
// once.
function keyboard(root, input, label, labels) {
  root.__a11y = { label, labels }; // this run's label and stops; the listeners below are added once
  if (root.__a11yBound) return;
  root.__a11yBound = true;
  input.addEventListener("keydown", (event) => {
    if (event.key !== "PageUp" && event.key !== "PageDown") return;
    event.preventDefault();
    event.stopPropagation();
    const last = root.__a11y.labels.length - 1;
    const step = Math.max(1, Math.round(last / 10)) * (event.key === "PageUp" ? 1 : -1);
    input.value = String(Math.min(last, Math.max(0, Number(input.value) + step)));
    input.dispatchEvent(new Event("input"));
  });
  const status = root.querySelector(".ls-status");
  input.addEventListener("input", () => {
    clearTimeout(root.__announce);
    root.__announce = setTimeout(() => {
      status.textContent = root.__a11y.label + ": " + root.__a11y.labels[Number(input.value)];
    }, SETTLE_MS);
  });
}
