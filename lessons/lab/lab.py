import numpy as np
import streamlit as st

from lessons.lab import lab_run_views, lab_views
from page_kit import controls, current_backend, figures, formula, guard, header, notice, show, source, stage, why
from posenc_core.lab import (
    FULL,
    LAB_METHODS,
    QUICK,
    LabResult,
    best_method,
    evaluate,
    lab_schedule,
    lab_scores_at,
    lab_series,
    lab_train_curves,
    retrieval_batch,
    train_model,
    uniform_guess_loss,
)

LENGTHS = [16, 32, 64, 128]
STEPS = [100, 200, 300, 500, 1000, 1500, 2000, 3000]
MARGIN = {"l": 62, "r": 10, "t": 48, "b": 50}  # room for the tick labels
METHOD_LABELS = {name: m.label for name, m in LAB_METHODS.items()}


header("Extrapolation lab",
       "One tiny transformer per encoding learns to repeat the symbol 2 steps back at length T, then is tested at "
       "2T, 4T and 8T: which encodings keep working on longer sequences?")
WHY = (
    "Papers say some encodings *extrapolate*: a model trained on short sequences keeps working on longer "
    "ones. Here you can check the claim. One tiny transformer per encoding (2 layers, width 64, 4 heads) "
    "learns the same task at length T and is then tested at T, 2T, 4T and 8T. The task is to **repeat the "
    "symbol k = 2 steps back**: the input is random symbols, so nothing but position can tell the model where "
    "the answer is, and the rule is the same at every length, so a model that learned *the offset* has "
    "nothing new to learn on a longer sequence. A model that learned *places* does."
)


@st.fragment
def lesson():
    page = stage()
    # Right after "Use quick settings" the three widgets take their values from session state; giving them a
    # default as well would make Streamlit log a warning with a stack trace, so that one run passes none.
    defaults = dict.fromkeys(("preset", "T", "steps")) if st.session_state.pop("lab_quick_set", False) \
        else {key: lab_run_views.SHIPPED[key] for key in ("preset", "T", "steps")}
    with page.more:
        preset = controls.choice("Preset", "preset", ["quick", "full"], defaults["preset"],
                                 help=f"Batch size, learning rate and evaluation size. quick: batch "
                                      f"{QUICK.batch}, lr {QUICK.lr:g}, {QUICK.eval_sequences} test "
                                      f"sequences. full: batch {FULL.batch}, lr {FULL.lr:g}, "
                                      f"{FULL.eval_sequences} test sequences.")
        seed = controls.number("Seed", "seed", 0, 9999, lab_run_views.SHIPPED["seed"], step=1,
                               help="Seeds the weights, the training data and the test data.")
    with page.side:
        train_len = controls.select_slider("Training length T", "T", LENGTHS, defaults["T"],
                                           help="Tokens per training sequence; the tests run at T, 2T, 4T, 8T.")
        steps = controls.select_slider("Steps per model", "steps", STEPS, defaults["steps"],
                                       format_func=lambda s: f"{s:,}", help="AdamW steps for each trained model.")
        methods = controls.multiselect("Methods", "methods", list(LAB_METHODS), list(LAB_METHODS),
                                       format_func=METHOD_LABELS.get,
                                       help="The last three reuse the RoPE model and change only its frequencies "
                                            "at test time; choosing one trains the RoPE model.")
        lab_run_views.run_buttons()
    if not methods:
        with page.main:
            st.info("Choose at least one method.", icon=":material/info:")
        return
    _, device = current_backend()
    names = [name for name in LAB_METHODS if name in methods]
    args = (preset, train_len, steps, int(seed), ",".join(names), device)
    with guard():
        with page.main:
            origin, result = lab_run_views.run_or_stored(page, args)
        lesson_body(page, result, origin, args)


def lesson_body(page, result: LabResult, origin: str, args: tuple):
    code = (origin, args)  # what the snippets call to get ``result``
    page.walk(TABS, result, code)


def accuracy_tab(result: LabResult, code: tuple):
    T, k, vocab, lengths = result.train_len, result.task.k, result.task.vocab, result.eval_lengths
    best, best_acc = best_method(result)
    x, series = lab_series(result, "accuracy")
    at_end = "; ".join(f"{label} {v:.2f}" for label, v in lab_scores_at(result, "accuracy", "longest").items())
    at_t = lab_scores_at(result, "accuracy", "T")  # the first test length is T itself
    show(figures.bars(list(at_t), {f"accuracy at T = {T}": np.array(list(at_t.values()))},
                      title=f"Accuracy at the training length T = {T}: what each model learned", x_title="method",
                      y_title="accuracy", name="lab_accuracy_at_T", y_range=(0, 1.05), hover_format=".3f",
                      height=300, alt=f"Accuracy of each method on test sequences of the training length {T}: "
                                      + "; ".join(f"{k} {v:.3f}" for k, v in at_t.items()) + "."))
    with lab_views.ask_longest(result):
        show(figures.lines(
            x, series, title=f"Accuracy on 'repeat the symbol {k} back', trained at T = {T}",
            x_title="test sequence length (tokens, log scale)", y_title="accuracy", name="lab_accuracy",
            markers=True, log_x=True, x_ticks=lengths, y_range=(0, 1.05), hover_format=".3f",
            legend_right=True, margin=MARGIN,
            vlines=[(T, f"trained at T = {T}")], hlines=[(1 / vocab, f"chance 1/{vocab}")],
            dashed=[METHOD_LABELS[m] for m in ("rope_pi", "rope_ntk", "rope_yarn")],
            alt=f"Accuracy of each method at lengths {', '.join(map(str, lengths))}; the training length "
                f"{T} is marked. At {lengths[-1]} tokens: {at_end}. The learned table has no points beyond T "
                "because it has no rows there."))
        lab_views.snippet(*code, "# (4,) test lengths; {method: (4,) accuracy, NaN where it cannot run}",
                          "lengths, accuracy = pc.lab.lab_series(result, 'accuracy')")
        notice("Every method is measured at T first: that is the in-distribution score. Read each curve "
               "from left to right: a flat curve means the model learned the offset and applies it at any "
               "length; a curve that drops means it learned something tied to the positions it saw. The "
               "learned table stops at T: positions from T on have no row, so there is no number to plot. "
               "Dashed curves are the RoPE model with a context-extension rule switched on at test time only.")
    formula(r"\mathrm{acc}(L) = \frac{1}{N\,(L-k)}\sum_{n,t}\mathbb{1}\!\left[\arg\max \hat p_t = x_{t-k}\right]")
    st.caption(f"Best at T = {T}: {METHOD_LABELS.get(best, best)}, accuracy {best_acc:.3f}; chance is 1/{vocab}.")


def loss_tab(result: LabResult, code: tuple):
    T, vocab, lengths = result.train_len, result.task.vocab, result.eval_lengths
    x, series = lab_series(result, "loss")
    with lab_views.ask_interpolation(result):
        show(figures.lines(
            x, series, title="Test loss against sequence length", x_title="test sequence length (tokens, "
            "log scale)", y_title="cross-entropy (nats)", name="lab_loss", markers=True, log_x=True,
            x_ticks=lengths, vlines=[(T, f"trained at T = {T}")], log_y=True, legend_right=True, margin=MARGIN,
            hlines=[(uniform_guess_loss(vocab), f"guessing: ln {vocab}")], hover_format=".3g",
            dashed=[METHOD_LABELS[m] for m in ("rope_pi", "rope_ntk", "rope_yarn")],
            alt=f"Mean cross-entropy of each method at lengths {', '.join(map(str, lengths))}, log scale; the "
                f"line marks the loss of a uniform guess, {uniform_guess_loss(vocab):.3f} nats."))
        lab_views.snippet(*code, "# (4,) test lengths; {method: (4,) mean cross-entropy in nats}",
                          "lengths, loss = pc.lab.lab_series(result, 'loss')")
        notice("The loss tells what accuracy hides: a model can keep the right answer on top while growing "
               "less sure of it, or become confidently wrong (a loss far above the guessing line). Wrong "
               "and confident is what unseen positions usually produce.")
    formula(r"\mathcal{L}(L) = -\frac{1}{N\,(L-k)}\sum_{n,t}\log \hat p_t(x_{t-k})")
    formula(r"\text{uniform guess: } \ln $V = $g", V=vocab, g=uniform_guess_loss(vocab))


def training_tab(result: LabResult, code: tuple):
    steps, series = lab_train_curves(result, "loss")
    if series:
        show(figures.lines(
            steps, series, title="Training loss of each model (at length T)", x_title="optimiser step",
            y_title="loss (nats)", name="lab_training", log_y=True, hover_format=".3g",
            legend_right=True, margin=MARGIN,
            alt="Training loss against step for each trained model."))
        lab_views.snippet(*code, "# (k,) logged steps; {method: (k,) training loss}",
                          "steps, curves = pc.lab.lab_train_curves(result, 'loss')")
    schedule = lab_schedule(result)
    notice("All models see the same batches in the same order and start from the same seed; they differ "
           "only in how position enters. Some learn the task in a few hundred steps, some slowly, some "
           "never: learning at T is a separate question from extrapolating beyond it.")
    formula(r"\eta(s) = \eta_{\max}\left(0.1 + 0.45\left(1+\cos\frac{\pi (s-w)}{S-w}\right)\right)")
    formula(r"\eta_{\max} = $lr,\ S = $S,\ w = $w,\ \text{batch } $B",
            lr=schedule.lr, S=schedule.steps, w=schedule.warmup, B=schedule.batch)


def reading_tab(result: LabResult, code: tuple):
    st.markdown(lab_views.reading(lab_run_views.shipped()))


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Accuracy vs length", accuracy_tab),
    ("Loss vs length", loss_tab),
    ("Training", training_tab),
    ("Attention maps", lab_views.attention_tab),
    ("What this shows", reading_tab),
]


lesson()
why(WHY)
source(retrieval_batch, train_model, evaluate)
