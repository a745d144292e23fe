"""Where the Extrapolation lab's result comes from: the shipped run, one made before (here or on another replica),
or one trained here with its progress and training curves drawn live; and the buttons that ask for a run.

No math here: the runs come from ``posenc_core.lab``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import streamlit as st

from page_kit import figures
from page_kit.chart.render import show
from posenc_core.lab import (
    FULL,
    LAB_METHODS,
    QUICK,
    LabResult,
    lab_live_series,
    lab_settings,
    load_lab_results,
    run_lab,
    select_methods,
    shared_runs,  # lab runs that other replicas finished
    shipped_lab_results,
)

LABELS = {name: m.label for name, m in LAB_METHODS.items()}
LIVE_MARGIN = {"l": 62, "r": 10, "t": 48, "b": 50}  # room for the tick labels of the live loss chart


def train_with_progress(run, args: tuple) -> LabResult:
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
        steps, series = lab_live_series(state["curves"], LABELS)
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


SHIPPED_COMMAND = ("python -m posenc_core.lab --json posenc_core/lab/data/lab_full_seed0.json --seed 0 --device cpu "
                   "--attention posenc_core/lab/data/lab_full_seed0_attention.npz")
SHIPPED = {"preset": "full", "T": FULL.train_len, "steps": FULL.steps, "seed": 0}
MAX_RUNS = 16  # finished runs kept in memory (each is a few MB with its attention maps)


@st.cache_data(show_spinner=False)
def shipped() -> LabResult:
    return shipped_lab_results()


@st.cache_data(max_entries=MAX_RUNS, show_spinner=False)
def lab_result(preset: str, train_len: int, steps: int, seed: int, methods: str, device: str, _progress=None):
    settings = lab_settings(preset, train_len=train_len, steps=steps, seed=seed, device=device)
    return run_lab(settings, methods.split(","), progress=_progress)


@st.cache_data(max_entries=MAX_RUNS, show_spinner=False)
def stored_run(json_path: str, npz_path: str, _mtime: float) -> LabResult:
    return load_lab_results(json_path, npz_path)


@st.cache_resource
def finished_runs() -> OrderedDict:
    """Settings that were run here already (any session): a revisit shows them without pressing Run."""
    return OrderedDict()


def run_buttons():
    row = st.container(horizontal=True, gap="small")
    row.button("Run", type="primary", icon=":material/play_arrow:", key="run", on_click=_request_run,
               help="Train with these settings. Nothing trains until you press it.")
    row.button("Use quick settings", key="quick", on_click=_use_quick, type="secondary",
               help=f"Preset quick, T = {QUICK.train_len}, {QUICK.steps} steps: about a minute on 2 CPU "
                    "cores.")
    st.caption(f"The quick preset (T = {QUICK.train_len}, {QUICK.steps} steps) takes about a minute on two "
               "CPU cores, the full preset about 20 minutes. A run with settings someone ran before appears at once.")


def run_or_stored(page, args: tuple) -> tuple[str, LabResult]:
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
                       f"({result.seconds:.0f} s of training and testing).", icon=":material/check_circle:")
        return "run", result
    if stored is not None:  # run on another replica of this app
        result = select_methods(stored_run(*stored), names)
        with page.side:
            st.success(f"A run someone made before: {preset} preset, T = {train_len}, {steps:,} steps, seed "
                       f"{seed}, on {device} ({result.seconds:.0f} s of training and testing).",
                       icon=":material/check_circle:")
        return "run", result
    with page.side:
        if {"preset": preset, "T": train_len, "steps": steps, "seed": seed} == SHIPPED:
            st.caption(f"Showing the shipped full-preset results, made by `{SHIPPED_COMMAND}` "
                       f"({shipped().seconds / 60:.0f} min on two busy CPU cores). Press **Run** to "
                       "train them again here.")
        else:
            st.info(f"These settings have not been run yet, so the figures still show the shipped "
                    f"full-preset results (T = {SHIPPED['T']}, {SHIPPED['steps']:,} steps, seed 0). "
                    "Press **Run** to train with yours.", icon=":material/info:")
    return "shipped", select_methods(shipped(), names)


def _request_run():
    st.session_state["lab_run_requested"] = True  # read (and cleared) by the next run of the lesson


def _use_quick():
    st.session_state.update(preset="quick", T=QUICK.train_len, steps=QUICK.steps, lab_quick_set=True)


