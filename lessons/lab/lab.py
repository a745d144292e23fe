import threading
from collections import OrderedDict

import streamlit as st

import posenc_core as pc
from page_kit import (
    controls,
    current_backend,
    figures,
    formula,
    guard,
    header,
    lab_views,
    notice,
    sections,
    shared_runs,  # lab runs that other replicas finished
    show,
    source,
)

SHIPPED_COMMAND = ("python -m posenc_core.lab --json assets/lab_full_seed0.json --seed 0 --device cpu "
                   "--attention assets/lab_full_seed0_attention.npz")
SHIPPED = {"preset": "full", "T": pc.FULL.train_len, "steps": pc.FULL.steps, "seed": 0}
LENGTHS = [16, 32, 64, 128]
STEPS = [100, 200, 300, 500, 1000, 1500, 2000, 3000]
MAX_RUNS = 16  # finished runs kept in memory (each is a few MB with its attention maps)
MARGIN = {"l": 62, "r": 10, "t": 48, "b": 50}  # room for the tick labels
PANEL_MARGIN = {"l": 10, "r": 10, "t": 80, "b": 10}  # the figure title above the panel titles
METHOD_LABELS = {name: m.label for name, m in pc.LAB_METHODS.items()}


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


def train_with_progress(args: tuple) -> dict:
    """Run lab_result in a worker thread and draw its progress and training curves as they come.

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
            box["result"] = lab_result(*args, _progress=report)
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
        what = (f"training {METHOD_LABELS[event['method']]}: step {event['step']:,} of {event['steps']:,}, "
                f"loss {event['loss']:.3f}" if event["kind"] == "train" else
                f"evaluating {METHOD_LABELS[event['method']]} at length {event['length']}")
        bar.progress(event["fraction"], text=f"{100 * event['fraction']:.0f}% · {event['elapsed']:.0f} s · {what}")
        steps, series = pc.lab_live_series(state["curves"], METHOD_LABELS)
        if frame % 3 == 0 and steps.size:
            with live.container():
                show(figures.lines(steps, series, title="Training loss so far (cross-entropy on the training batch)",
                                   x_title="optimiser step", y_title="loss (nats)", name=f"lab_live_{frame}",
                                   legend_right=True, margin=MARGIN,
                                   alt="Training loss of each model so far; the curves fill in as training runs."))
        frame, drawn = frame + 1, event
    bar.empty()
    live.empty()
    if "error" in box:
        raise box["error"]
    return box["result"]


header(
    "Extrapolation lab",
    "Papers say some encodings *extrapolate*: a model trained on short sequences keeps working on longer "
    "ones. Here you can check the claim. One tiny transformer per encoding (2 layers, width 64, 4 heads) "
    "learns the same task at length T and is then tested at T, 2T, 4T and 8T. The task is to **repeat the "
    "symbol k = 2 steps back**: the input is random symbols, so nothing but position can tell the model where "
    "the answer is, and the rule is the same at every length, so a model that learned *the offset* has "
    "nothing new to learn on a longer sequence. A model that learned *places* does."
)


@st.fragment
def lesson():
    # Right after "Use quick settings" the three widgets take their values from session state; giving them a
    # default as well would make Streamlit log a warning with a stack trace, so that one run passes none.
    defaults = dict.fromkeys(("preset", "T", "steps")) if st.session_state.pop("lab_quick_set", False) \
        else {key: SHIPPED[key] for key in ("preset", "T", "steps")}
    c1, c2, c3, c4 = st.columns([2.2, 3, 3.4, 1.6])
    with c1:
        preset = controls.choice("Preset", "preset", ["quick", "full"], defaults["preset"],
                                 help=f"Batch size, learning rate and evaluation size. quick: batch "
                                      f"{pc.QUICK.batch}, lr {pc.QUICK.lr:g}, {pc.QUICK.eval_sequences} test "
                                      f"sequences. full: batch {pc.FULL.batch}, lr {pc.FULL.lr:g}, "
                                      f"{pc.FULL.eval_sequences} test sequences.")
    with c2:
        train_len = controls.select_slider("Training length T", "T", LENGTHS, defaults["T"],
                                           help="Tokens per training sequence; the tests run at T, 2T, 4T, 8T.")
    with c3:
        steps = controls.select_slider("Training steps per model", "steps", STEPS, defaults["steps"],
                                       format_func=lambda s: f"{s:,}", help="AdamW steps for each trained model.")
    with c4:
        seed = controls.number("Seed", "seed", 0, 9999, SHIPPED["seed"], step=1,
                               help="Seeds the weights, the training data and the test data.")
    methods = controls.multiselect("Methods", "methods", list(pc.LAB_METHODS), list(pc.LAB_METHODS),
                                   format_func=METHOD_LABELS.get,
                                   help="The last three reuse the RoPE model and change only its frequencies "
                                        "at test time; choosing one trains the RoPE model.")
    b1, b2, b3 = st.columns([1, 1.6, 5], vertical_alignment="center")
    b1.button("Run", type="primary", icon=":material/play_arrow:", key="run", on_click=_request_run,
              help="Train with these settings. Nothing trains until you press it.")
    b2.button("Use quick settings", key="quick", on_click=_use_quick, type="secondary",
              help=f"Preset quick, T = {pc.QUICK.train_len}, {pc.QUICK.steps} steps: about a minute on 2 CPU cores.")
    b3.caption(f"The quick preset (T = {pc.QUICK.train_len}, {pc.QUICK.steps} steps) takes about a minute on two "
               "CPU cores, the full preset about 20 minutes. A run with settings someone ran before appears at once.")
    if not methods:
        st.info("Choose at least one method.", icon=":material/info:")
        return
    _, device = current_backend()
    names = [name for name in pc.LAB_METHODS if name in methods]
    args = (preset, train_len, steps, int(seed), ",".join(names), device)
    matches_shipped = {"preset": preset, "T": train_len, "steps": steps, "seed": int(seed)} == SHIPPED

    with guard():
        origin = "run"  # where the figures' result comes from, for the code snippets
        requested = st.session_state.pop("lab_run_requested", False)
        stored = None if requested or args in finished_runs() else shared_runs.stored_paths(args)
        if requested or args in finished_runs():
            result = train_with_progress(args)
            finished_runs()[args] = True
            finished_runs().move_to_end(args)
            while len(finished_runs()) > MAX_RUNS:
                finished_runs().popitem(last=False)
            if requested:
                shared_runs.save(args, result)  # other replicas show it too (only with POSENC_SHARED_DIR)
            st.success(f"Your run: {preset} preset, T = {train_len}, {steps:,} steps, seed {seed}, on {device} "
                       f"({result['seconds']:.0f} s of training and testing).", icon=":material/check_circle:")
        elif stored is not None:  # run on another replica of this app
            result = pc.select_methods(stored_run(*stored), names)
            st.success(f"A run someone made before: {preset} preset, T = {train_len}, {steps:,} steps, seed "
                       f"{seed}, on {device} ({result['seconds']:.0f} s of training and testing).",
                       icon=":material/check_circle:")
        else:
            origin, result = "shipped", pc.select_methods(shipped(), names)
            if matches_shipped:
                st.caption(f"Showing the shipped full-preset results, made by `{SHIPPED_COMMAND}` "
                           f"({shipped()['seconds'] / 60:.0f} min on two busy CPU cores). Press **Run** to "
                           "train them again here.")
            else:
                st.info(f"These settings have not been run yet, so the figures still show the shipped "
                        f"full-preset results (T = {SHIPPED['T']}, {SHIPPED['steps']:,} steps, seed 0). "
                        "Press **Run** to train with yours.", icon=":material/info:")
        lesson_body(result, origin, args)


def _request_run():
    st.session_state["lab_run_requested"] = True  # read (and cleared) by the next run of the lesson


def _use_quick():
    st.session_state.update(preset="quick", T=pc.QUICK.train_len, steps=pc.QUICK.steps, lab_quick_set=True)


def lesson_body(result: dict, origin: str, args: tuple):
    T, k = result["train_len"], result["task"]["k"]
    vocab = result["task"]["vocab"]
    lengths = result["eval_lengths"]
    best, best_acc = pc.best_method(result)
    tab_acc, tab_loss, tab_train, tab_attn, tab_read = sections(
        ["Accuracy vs length", "Loss vs length", "Training", "Attention maps", "What this shows"])

    if tab_acc.open:
        with tab_acc:
            lab_views.ask_longest(result)
            x, series = pc.lab_series(result, "accuracy")
            show(figures.lines(
                x, series, title=f"Accuracy on 'repeat the symbol {k} back', trained at T = {T}",
                x_title="test sequence length (tokens, log scale)", y_title="accuracy", name="lab_accuracy",
                markers=True, log_x=True, x_ticks=lengths, y_range=(0, 1.05), hover_format=".3f",
                legend_right=True, margin=MARGIN,
                vlines=[(T, f"trained at T = {T}")], hlines=[(1 / vocab, f"chance 1/{vocab}")],
                dashed=[METHOD_LABELS[m] for m in ("rope_pi", "rope_ntk", "rope_yarn")],
                alt=f"Accuracy of each method at lengths {', '.join(map(str, lengths))}; the training length "
                    f"{T} is marked. The learned table has no points beyond T because it has no rows there."))
            lab_views.snippet(origin, args, "# (4,) test lengths; {method: (4,) accuracy, NaN where it cannot run}",
                              "lengths, accuracy = pc.lab_series(result, 'accuracy')")
            notice("Every method is measured at T first: that is the in-distribution score. Read each curve "
                   "from left to right: a flat curve means the model learned the offset and applies it at any "
                   "length; a curve that drops means it learned something tied to the positions it saw. The "
                   "learned table stops at T: positions from T on have no row, so there is no number to plot. "
                   "Dashed curves are the RoPE model with a context-extension rule switched on at test time only.")
            formula(r"\mathrm{acc}(L) = \frac{1}{N\,(L-k)}\sum_{n=1}^{N}\sum_{t=k}^{L-1}"
                    r"\mathbb{1}\!\left[\arg\max \hat p_t = x_{t-k}\right],\qquad "
                    r"\text{best at }T{=}$T:\ \text{$best}\ $acc,\quad \text{chance } 1/$V",
                    T=T, best=METHOD_LABELS.get(best, best).replace("+", r"{+}"), acc=f"{best_acc:.3f}", V=vocab)

    if tab_loss.open:
        with tab_loss:
            lab_views.ask_interpolation(result)
            x, series = pc.lab_series(result, "loss")
            show(figures.lines(
                x, series, title="Test loss against sequence length", x_title="test sequence length (tokens, "
                "log scale)", y_title="cross-entropy (nats)", name="lab_loss", markers=True, log_x=True,
                x_ticks=lengths, vlines=[(T, f"trained at T = {T}")], log_y=True, legend_right=True, margin=MARGIN,
                hlines=[(pc.uniform_guess_loss(vocab), f"guessing: ln {vocab}")], hover_format=".3g",
                dashed=[METHOD_LABELS[m] for m in ("rope_pi", "rope_ntk", "rope_yarn")],
                alt="Mean cross-entropy of each method at each test length, log scale; the line marks the "
                    "loss of a uniform guess."))
            lab_views.snippet(origin, args, "# (4,) test lengths; {method: (4,) mean cross-entropy in nats}",
                              "lengths, loss = pc.lab_series(result, 'loss')")
            notice("The loss tells what accuracy hides: a model can keep the right answer on top while growing "
                   "less sure of it, or become confidently wrong (a loss far above the guessing line). Wrong "
                   "and confident is what unseen positions usually produce.")
            formula(r"\mathcal{L}(L) = -\frac{1}{N\,(L-k)}\sum_{n,t}\log \hat p_t(x_{t-k}),\qquad "
                    r"\text{uniform guess: } \ln $V = $g", V=vocab, g=pc.uniform_guess_loss(vocab))

    if tab_train.open:
        with tab_train:
            steps, series = pc.lab_train_curves(result, "loss")
            if series:
                show(figures.lines(
                    steps, series, title="Training loss of each model (at length T)", x_title="optimiser step",
                    y_title="loss (nats)", name="lab_training", log_y=True, hover_format=".3g",
                    legend_right=True, margin=MARGIN,
                    alt="Training loss against step for each trained model."))
                lab_views.snippet(origin, args, "# (k,) logged steps; {method: (k,) training loss}",
                                  "steps, curves = pc.lab_train_curves(result, 'loss')")
            settings = result["task"].get("settings", {})
            notice("All models see the same batches in the same order and start from the same seed; they differ "
                   "only in how position enters. Some learn the task in a few hundred steps, some slowly, some "
                   "never: learning at T is a separate question from extrapolating beyond it.")
            formula(r"\eta(s) = \eta_{\max}\left(0.1 + 0.45\left(1+\cos\frac{\pi (s-w)}{S-w}\right)\right),"
                    r"\quad \eta_{\max} = $lr,\ S = $S,\ w = $w,\ \text{batch } $B",
                    lr=settings.get("lr", 0.0), S=settings.get("steps", 0), w=max(1, settings.get("steps", 0) // 10),
                    B=settings.get("batch", 0))

    if tab_attn.open:
        with tab_attn:
            trained = [m for m in result.get("attention", {}) if m in pc.TRAINED_METHODS]
            grids, titles = pc.lab_attention_panels(result, "T", trained)
            if grids:
                show(figures.small_multiples(
                    grids, titles, title=f"One head per model at T = {T} (query rows, key columns)",
                    cols=min(3, len(grids)), value_name="attention", name="lab_attention_T", cell_px=260,
                    margin=PANEL_MARGIN,
                    alt="Attention weights of one head per model on a test sequence of the training length."))
                lab_views.snippet(origin, args, f"# one ({T}, {T}) map per model and its title",
                                  f"grids, titles = pc.lab_attention_panels(result, 'T', {trained!r})")
            grids, titles = pc.lab_attention_panels(result, "4T")
            if grids:
                show(figures.small_multiples(
                    grids, titles, title=f"The same heads at 4T = {4 * T}", cols=min(3, len(grids)),
                    value_name="attention", name="lab_attention_4T", cell_px=260, max_side=128,
                    margin=PANEL_MARGIN,
                    alt="The same heads on a sequence four times longer; the learned table's panel is empty "
                        "because it cannot run there."))
            notice(f"Each panel is the head that puts the most weight exactly {k} keys back at length T (its "
                   f"layer L and head H, and that weight, are in the title). A model that solved the task by "
                   f"offset shows a thin line {k} below the diagonal; at 4T look whether the line continues past "
                   f"row {T} or smears out. The RoPE variants are identical to RoPE at T (no scaling is needed "
                   "there), so only the 4T figure shows them.")
            formula(r"m_{-k} = \frac{1}{L-k}\sum_{t=k}^{L-1} a_{t,\,t-k},\qquad k = $k,\ L \in \{$T, $T4\}",
                    k=k, T=T, T4=4 * T)

    if tab_read.open:
        with tab_read:
            st.markdown(lab_views.READING)


lesson()
source(pc.retrieval_batch, pc.train_model, pc.evaluate)
