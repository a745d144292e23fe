"""Pieces of the Extrapolation lab: where the result shown comes from (the shipped run, one made before, or one
trained here with its progress drawn live), its predict-then-reveal questions (answered by whatever run is
shown), the code that gives that run, and the page's closing reading.

No math here: the numbers come from ``posenc_core.lab`` (``lab_series``); this module only picks options.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict

import numpy as np
import streamlit as st

import posenc_core as pc
from page_kit import classroom, figures
from page_kit.render import show
from posenc_core.lab import shared_runs  # lab runs that other replicas finished

# the trained models a student is most likely to expect to extrapolate, in the order they are offered
CANDIDATES = ("sinusoidal", "rope", "alibi", "t5", "none")


def result_code(origin: str, args: tuple) -> str:
    """The line that gives ``result`` as shown: the shipped run, or the run these settings make (minutes)."""
    preset, train_len, steps, seed, methods, device = args
    names = methods.split(",")
    if origin == "shipped":
        return f"# the shipped full run\nresult = pc.select_methods(pc.shipped_lab_results(),\n    {names!r})"
    return (f"# trains every model: minutes\nresult = pc.run_lab(\n    pc.lab_settings({preset!r}, "
            f"train_len={train_len}, steps={steps}, seed={seed}, device={device!r}),\n    {names!r})")


def snippet(origin: str, args: tuple, *lines: str) -> None:
    classroom.snippet(result_code(origin, args), *lines)


def _by_name(result: dict, metric: str) -> dict[str, np.ndarray]:
    _, series = pc.lab_series(result, metric)  # keyed by label, in the result's method order
    return dict(zip(result["methods"], series.values(), strict=True))


def ask_longest(result: dict):
    """Which trained model keeps the highest accuracy at the longest test length (8T)? Only asked when one
    model is clearly ahead (by more than 0.01) of at least one other, so exactly one option is right."""
    lengths = result["eval_lengths"]
    accuracy = {n: float(v[-1]) for n, v in _by_name(result, "accuracy").items()
                if n in CANDIDATES and np.isfinite(v[-1])}
    if len(accuracy) < 2:
        return contextlib.nullcontext()  # not asked: what it would hide shows at once
    best = max(accuracy, key=accuracy.get)
    others = [n for n in CANDIDATES if n in accuracy and accuracy[n] < accuracy[best] - 0.01][:3]
    if not others:
        return contextlib.nullcontext()  # not asked: what it would hide shows at once
    names = [n for n in CANDIDATES if n == best or n in others]
    labels = [pc.LAB_METHODS[n].label for n in names]

    def reveal() -> str:
        return (f"At {lengths[-1]} tokens: " + "; ".join(f"{pc.LAB_METHODS[n].label} {accuracy[n]:.3f}"
                                                        for n in names) + ". The solid curves below, at the right.")

    return classroom.predict("lab_longest", f"Each model learned the task at T = {result['train_len']}. Which "
                             f"keeps the highest accuracy at {lengths[-1]} tokens?", labels, names.index(best),
                             reveal)


def ask_interpolation(result: dict):
    """RoPE + position interpolation at 2T, against the loss of a uniform guess (asked when it was run)."""
    loss = _by_name(result, "loss")
    if "rope_pi" not in loss:
        return contextlib.nullcontext()  # not asked: what it would hide shows at once
    value, guess, length = float(loss["rope_pi"][1]), pc.uniform_guess_loss(result["task"]["vocab"]), \
        result["eval_lengths"][1]
    low, high = 0.8 * guess, 1.25 * guess  # "about guessing": within these bounds

    def reveal() -> str:
        return (f"RoPE + PI's test loss at {length} tokens is {value:.3g} nats; guessing uniformly costs "
                f"ln {result['task']['vocab']} = {guess:.3f} (the dotted line below). Dividing every frequency "
                "shrinks the offset the model learned to read"
                + (", so it is confidently wrong." if value > high else "."))

    return classroom.predict("lab_pi", f"RoPE + position interpolation divides every rotary frequency by "
                      f"{length / result['train_len']:g} (= {length}/{result['train_len']}) at test time, with no "
                      f"fine-tuning. Its test loss at {length} tokens?",
                      [f"below {low:.2f} nats: it still knows the answer", f"{low:.2f} to {high:.2f} nats: about "
                       "a uniform guess", f"above {high:.2f} nats: confidently wrong"],
                      0 if value < low else 1 if value <= high else 2, reveal)


LABELS = {name: m.label for name, m in pc.LAB_METHODS.items()}
LIVE_MARGIN = {"l": 62, "r": 10, "t": 48, "b": 50}  # room for the tick labels of the live loss chart


def train_with_progress(run, args: tuple) -> dict:
    """Run ``run(*args, _progress=report)`` (the page's cached lab run) in a worker thread and draw its progress
    and training curves as they come.

    Streamlit's cache cannot hold a function that draws into the page (it would replay those calls),
    so the cached function only reports into a dict, and this script thread draws from it.
    """
    state, box = {"event": None, "curves": {}}, {}

    def report(event):
        if event["kind"] == "train":
            state["curves"][event["method"]] = {k: list(v) for k, v in event["curve"].items()}
        state["event"] = event

    def work():
        try:
            box["result"] = run(*args, _progress=report)
        except Exception as error:  # handed to the script thread, which shows it
            box["error"] = error

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    bar, live = st.progress(0.0, text="Starting: building the models…"), st.empty()
    drawn, frame = None, 0
    while worker.is_alive():
        worker.join(0.4)
        event = state["event"]
        if event is None or event is drawn:
            continue
        what = (f"training {LABELS[event['method']]}: step {event['step']:,} of {event['steps']:,}, "
                f"loss {event['loss']:.3f}" if event["kind"] == "train" else
                f"evaluating {LABELS[event['method']]} at length {event['length']}")
        bar.progress(event["fraction"], text=f"{100 * event['fraction']:.0f}% · {event['elapsed']:.0f} s · {what}")
        steps, series = pc.lab_live_series(state["curves"], LABELS)
        if frame % 3 == 0 and steps.size:
            with live.container():
                show(figures.lines(steps, series, title="Training loss so far (cross-entropy on the training batch)",
                                   x_title="optimiser step", y_title="loss (nats)", name=f"lab_live_{frame}",
                                   legend_right=True, margin=LIVE_MARGIN,
                                   alt="Training loss of each model so far; the curves fill in as training runs."))
        frame, drawn = frame + 1, event
    bar.empty()
    live.empty()
    if "error" in box:
        raise box["error"]
    return box["result"]


SHIPPED_COMMAND = ("python -m posenc_core.lab --json assets/lab_full_seed0.json --seed 0 --device cpu "
                   "--attention assets/lab_full_seed0_attention.npz")
SHIPPED = {"preset": "full", "T": pc.FULL.train_len, "steps": pc.FULL.steps, "seed": 0}
MAX_RUNS = 16  # finished runs kept in memory (each is a few MB with its attention maps)


@st.cache_data(show_spinner=False)
def shipped() -> dict:
    return pc.shipped_lab_results()


@st.cache_data(max_entries=MAX_RUNS, show_spinner=False)
def lab_result(preset: str, train_len: int, steps: int, seed: int, methods: str, device: str, _progress=None):
    settings = pc.lab_settings(preset, train_len=train_len, steps=steps, seed=seed, device=device)
    return pc.run_lab(settings, methods.split(","), progress=_progress)


@st.cache_data(max_entries=MAX_RUNS, show_spinner=False)
def stored_run(json_path: str, npz_path: str, _mtime: float) -> dict:
    return pc.load_lab_results(json_path, npz_path)


@st.cache_resource
def finished_runs() -> OrderedDict:
    """Settings that were run here already (any session): a revisit shows them without pressing Run."""
    return OrderedDict()


def run_buttons():
    row = st.container(horizontal=True, gap="small")
    row.button("Run", type="primary", icon=":material/play_arrow:", key="run", on_click=_request_run,
               help="Train with these settings. Nothing trains until you press it.")
    row.button("Use quick settings", key="quick", on_click=_use_quick, type="secondary",
               help=f"Preset quick, T = {pc.QUICK.train_len}, {pc.QUICK.steps} steps: about a minute on 2 CPU "
                    "cores.")
    st.caption(f"The quick preset (T = {pc.QUICK.train_len}, {pc.QUICK.steps} steps) takes about a minute on two "
               "CPU cores, the full preset about 20 minutes. A run with settings someone ran before appears at once.")


def run_or_stored(page, args: tuple) -> tuple[str, dict]:
    """The result to show and where it came from ("run" or "shipped"): a run asked for now (trained here, with
    its progress), one finished before in this app or on another replica, or the shipped full run."""
    preset, train_len, steps, seed, methods, device = args
    names = methods.split(",")
    requested = st.session_state.pop("lab_run_requested", False)
    stored = None if requested or args in finished_runs() else shared_runs.stored_paths(args)
    if requested or args in finished_runs():
        result = train_with_progress(lab_result, args)
        finished_runs()[args] = True
        finished_runs().move_to_end(args)
        while len(finished_runs()) > MAX_RUNS:
            finished_runs().popitem(last=False)
        if requested:
            shared_runs.save(args, result)  # other replicas show it too (only with POSENC_SHARED_DIR)
        with page.side:
            st.success(f"Your run: {preset} preset, T = {train_len}, {steps:,} steps, seed {seed}, on {device} "
                       f"({result['seconds']:.0f} s of training and testing).", icon=":material/check_circle:")
        return "run", result
    if stored is not None:  # run on another replica of this app
        result = pc.select_methods(stored_run(*stored), names)
        with page.side:
            st.success(f"A run someone made before: {preset} preset, T = {train_len}, {steps:,} steps, seed "
                       f"{seed}, on {device} ({result['seconds']:.0f} s of training and testing).",
                       icon=":material/check_circle:")
        return "run", result
    with page.side:
        if {"preset": preset, "T": train_len, "steps": steps, "seed": seed} == SHIPPED:
            st.caption(f"Showing the shipped full-preset results, made by `{SHIPPED_COMMAND}` "
                       f"({shipped()['seconds'] / 60:.0f} min on two busy CPU cores). Press **Run** to "
                       "train them again here.")
        else:
            st.info(f"These settings have not been run yet, so the figures still show the shipped "
                    f"full-preset results (T = {SHIPPED['T']}, {SHIPPED['steps']:,} steps, seed 0). "
                    "Press **Run** to train with yours.", icon=":material/info:")
    return "shipped", pc.select_methods(shipped(), names)


def _request_run():
    st.session_state["lab_run_requested"] = True  # read (and cleared) by the next run of the lesson


def _use_quick():
    st.session_state.update(preset="quick", T=pc.QUICK.train_len, steps=pc.QUICK.steps, lab_quick_set=True)


READING = """
**What the experiment shows.** The task rewards exactly one thing: knowing *the offset* between two tokens.
Encodings that put the offset into the attention score (RoPE, ALiBi, T5 buckets) hand the model that number
directly at any length, so a rule learned at T can still apply at 8T. Encodings that add an absolute position to
the input (sinusoidal, learned) make the model learn *where* things are, and beyond T it meets positions it never
saw. The learned table cannot even be asked: a sequence longer than T needs rows that were never created, so the
plot has no point there rather than an invented one. In the shipped full run every encoding learns the task at T
(100%, ALiBi 99.8%; with no encoding only 54%), and then: sinusoidal falls to about half at 2T, RoPE and T5 hold
at 2T and fade by 8T, ALiBi stays flat at 99.8%.

**Why relative methods still fade.** At 8T every query spreads its softmax over eight times as many keys, and small
logits on far keys add up (*attention dilution*). The T5 model also meets distance buckets it never trained (they
grow logarithmically up to 128 and start at zero), and the RoPE model's slow pairs turn through angles it never
saw. ALiBi's penalty grows with distance, so far keys fade out on their own: that is why its curve is flat. Its
heads do not single out the key 2 back, though (see the attention maps): its bias always favours the nearest key,
so the two layers share the work.

**The RoPE variants change nothing but the frequencies, at test time.** Position interpolation divides every
frequency by L/T, so the 2-step offset the model learned shrinks to a fraction of a step: without fine-tuning (for
which it was designed) it collapses to chance. NTK-aware scaling and YaRN keep the fast pairs, which carry short
offsets, almost unchanged and stretch only the slow ones; YaRN also sharpens the softmax by its attention factor,
which counters dilution, and in the shipped run it keeps 100% at 8T. (A common misconception has this backwards:
that high frequencies are interpolated and low ones extrapolated; it is the other way round.)

**What a tiny model cannot show.** This is one synthetic task, two layers, minutes of training and one seed:
change the seed or the steps and the numbers move (in the quick preset ALiBi usually has not learned the task at
all yet, and the model without an encoding stays near 30%). A language model uses position for many things at
once (syntax, recency, counting), trains on far more data, and is usually fine-tuned after a context extension;
on real text these methods can rank differently. Read the curves as a demonstration of mechanisms, what each
encoding makes easy or impossible, not as a benchmark.
"""
