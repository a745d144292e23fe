from dataclasses import asdict

import numpy as np
import streamlit as st

from lessons.todays_models import class_views
from lessons.todays_models.words import DROPE_LABELS
from page_kit import (
    classroom,
    controls,
    figures,
    formula,
    guard,
    header,
    notice,
    show,
    source,
    stage,
    why,
)
from posenc_core.todays_models import (
    DROPE_VARIANTS,
    drop_positions,
    drope_experiment,
    recalibrate,
    shipped_drope_result,
)

NAMES = list(DROPE_VARIANTS)
COLOURS = {DROPE_LABELS[n]: i for i, n in enumerate(NAMES)}


@st.cache_data(show_spinner=False)
def shipped():
    return shipped_drope_result()


@st.cache_data(max_entries=4, show_spinner=False)
def live(steps: int, recalibration: int, seed: int):
    return drope_experiment(steps=steps, recalibration=recalibration, seed=seed)


header("DroPE: dropping positions after training",
       "Train with RoPE, then remove every rotation, recalibrate briefly and run the now position-free model on "
       "longer inputs (Gelberg et al. 2025), measured here on the lab's tiny models.")
WHY = ("DroPE (Gelberg et al. 2025, \"Extending the Context of Pretrained LLMs by Dropping Their Positional "
       "Embeddings\", arXiv:2512.12167) treats RoPE as a scaffold for training: once a model is trained, remove "
       "every rotation, recalibrate briefly at the original length, and run the model, now position-free, on "
       "longer inputs with no scaling rule. Here it is measured on the lab's tiny models and task: a RoPE model "
       "trained at length T, the same weights with the rotations removed, the same after a short recalibration, and "
       "a NoPE model trained from scratch for as many steps in total.")


def run_controls(page):
    """The run's settings beside the figure, and which run the page shows: ``(result, wanted, shipped_run)``."""
    base = shipped()
    made = base.settings
    with page.side:
        steps = controls.select_slider("RoPE training steps", "steps", [100, 300, 600], made.steps)
        recal = controls.select_slider("Recalibration steps", "recal", [50, 150, 300, 600], base.recalibration)
        seed = controls.select("Seed", "seed", [0, 1, 2], 0)
        wanted = (steps, recal, seed)
        if wanted == (made.steps, base.recalibration, made.seed):
            st.caption(f"The shipped run (posenc_core/todays_models/data/drope_seed0.json, {base.seconds:.0f} s on CPU "
                       "when it was made).")
            return base, wanted, True
        runs = st.session_state.setdefault("drope_runs", set())
        if st.button("Run these settings", icon=":material/play_arrow:", type="primary", key="run_drope"):
            runs.add(wanted)
        if wanted not in runs:
            st.info("Not run yet: press **Run these settings**. Until then the page shows the shipped run "
                    f"({made.steps} RoPE steps, {base.recalibration} recalibration steps, seed 0).",
                    icon=":material/info:")
            return base, wanted, True
        with st.spinner("Training three tiny models (about a minute on two busy CPU cores)..."):
            result = live(*wanted)
        st.caption(f"Your run: {steps} RoPE steps, {recal} recalibration steps, seed {seed}; it took "
                   f"{result.seconds:.0f} s and stays cached while the app runs.")
        return result, wanted, False


def _accuracy_chart(result, acc, names, name: str, title: str):
    t, lengths = result.train_len, result.eval_lengths
    return figures.lines(
        lengths, {DROPE_LABELS[n]: np.array(acc[n]) for n in names}, markers=True, log_x=True,
        x_ticks=lengths, y_range=(0, 1.02), colours=COLOURS, legend_right=True, margin=dict(r=250),
        hlines=[(result.chance_accuracy, "chance")], vlines=[(t, f"T = {t}")], title=title,
        x_title="evaluation length", y_title="accuracy", name=name,
        alt=f"Accuracy against evaluation length from T = {t} to {lengths[-1]}: "
            + "; ".join(f"{DROPE_LABELS[n]} {acc[n][0]:.0%} at T and {acc[n][-1]:.0%} at 8T" for n in names)
            + f". Chance is {result.chance_accuracy:.0%}.")


def accuracy_tab(result, wanted, shipped_run) -> None:
    t, k = result.train_len, result.k
    acc = {n: result.variants[n].accuracy for n in NAMES}
    show(_accuracy_chart(result, acc, ["rope", "nope"], "drope_baselines",
                         f"Look back {k}: trained with RoPE and without positions"))
    with class_views.ask_dropped(acc, t):
        show(_accuracy_chart(result, acc, NAMES, "drope_accuracy", f"Look back {k}: accuracy at T to 8T"))
        classroom.snippet(class_views.result_code(wanted, shipped_run),
                          'acc = {name: result.variants[name].accuracy for name in pc.todays_models.DROPE_VARIANTS}'
                          '  # one accuracy per length in result.eval_lengths')
        # two rows: on one the 8T half ran past the right edge of a 1,280 px projector page
        formula(r"\begin{gathered}\text{at } T = $t:\ \text{RoPE } $r,\ \text{dropped } $d,\ "
                r"\text{DroPE } $p,\ \text{NoPE } $n\\ \text{at } 8T:\ \text{RoPE } $r8,\ "
                r"\text{DroPE } $p8\end{gathered}",
                t=t, r=acc["rope"][0], d=acc["dropped"][0], p=acc["drope"][0], n=acc["nope"][0],
                r8=acc["rope"][-1], p8=acc["drope"][-1], digits=3)
        better = "above" if acc["drope"][-1] > acc["rope"][-1] else "below"
        notice(f"Removing the rotations from a trained model is not free: at T its accuracy falls from "
               f"{acc['rope'][0]:.0%} to {acc['dropped'][0]:.0%} (chance is {result.chance_accuracy:.0%}), "
               "because every attention pattern it learned was written in rotated coordinates. "
               f"{result.recalibration} recalibration steps without positions bring it to "
               f"{acc['drope'][0]:.0%} at T and {acc['drope'][-1]:.0%} at 8T, {better} RoPE's "
               f"{acc['rope'][-1]:.0%} at 8T. NoPE trained from scratch reaches {acc['nope'][0]:.0%} at T"
               + (": on this task a position-free model must infer offsets from the causal mask alone, "
                  "which two small layers learn slowly. " if acc["nope"][0] < 0.9 else ". ")
               + "The paper's claim concerns language models recalibrated on a small fraction of their "
               "pretraining tokens, where it reports that quality at the training length recovers.")


# Short panel titles (with each variant's share on the key k back): the full names overlapped on a phone.
PANEL_NAMES = {"rope": "RoPE", "dropped": "rotations dropped", "drope": "DroPE", "nope": "NoPE"}


def head_tab(result, wanted, shipped_run) -> None:
    t, k = result.train_len, result.k
    head, mass = result.head, result.offset_mass
    show(figures.small_multiples(
        [result.attention[n] for n in NAMES],
        [f"{PANEL_NAMES[n]}: {mass[n]:.0%}" for n in NAMES],
        title=f"Layer {head.layer}, head {head.head}, T = {t}: share on the key {k} back",
        cols=2, value_name="attention", cell_px=300, name="drope_heads",
        alt=f"Four attention maps of layer {head.layer}, head {head.head} on one sequence of {t} tokens; "
            f"the share of attention on the key {k} back: "
            + ", ".join(f"{DROPE_LABELS[n]} {mass[n]:.0%}" for n in NAMES) + "."))
    classroom.snippet(class_views.result_code(wanted, shipped_run),
                      f'maps = result.attention  # {{variant: ({t}, {t}) attention of layer '
                      f'{head.layer}, head {head.head}}}',
                      'mass = result.offset_mass  # {variant: share of attention on the key k back}')
    notice(f"With RoPE this head puts {mass['rope']:.0%} of its weight on the key {k} steps back: the "
           f"lookup the task needs. The same weights without rotations put {mass['dropped']:.0%} there; "
           f"after recalibration {mass['drope']:.0%}. The NoPE panel is the same layer and head of an "
           "independently trained model, shown for its pattern, not as the same circuit.")


def curves_tab(result, wanted, shipped_run) -> None:
    rope_curve, recal_curve = result.curves.rope, result.curves.recalibration
    x = np.array(rope_curve.step + recal_curve.global_step)  # (points,)
    n_rope = len(rope_curve.step)
    series = {"RoPE training": np.array(rope_curve.loss + [np.nan] * len(recal_curve.step)),
              "recalibration without positions": np.array([np.nan] * n_rope + recal_curve.loss)}
    show(figures.lines(x, series, title="Training loss, then recalibration loss", x_title="step",
                       y_title="cross-entropy", legend_right=True, margin=dict(r=260),
                       vlines=[(result.settings.steps, "rotations dropped")], name="drope_curves",
                       alt=f"Loss falls during RoPE training to {rope_curve.loss[-1]:.2f}, jumps to "
                           f"{recal_curve.loss[0]:.2f} when the rotations are dropped, then falls again to "
                           f"{recal_curve.loss[-1]:.2f} during recalibration."))
    notice(f"The jump at the marker is the cost of dropping positions (loss {recal_curve.loss[0]:.2f} "
           f"on the first logged recalibration step against {rope_curve.loss[-1]:.2f} at the end of "
           f"training); recalibration ends at {recal_curve.loss[-1]:.2f}.")


def made_tab(result, wanted, shipped_run) -> None:
    st.markdown(f"Task: {result.task}  \nEvaluation: {result.settings.eval_sequences} fixed "
                "sequences per length, the same for every model. The shipped file was made with "
                "`python -m posenc_core.todays_models.drope posenc_core/todays_models/data/drope_seed0.json`; "
                "'Run these settings' calls the same function.")
    st.json(asdict(result.settings) | {"torch": result.torch_version, "recalibration": result.recalibration,
                                       "seconds": result.seconds},
            expanded=False)


@st.fragment
def lesson():
    page = stage()
    result, wanted, shipped_run = run_controls(page)
    tabs = page.sections(["Accuracy from T to 8T", "What the retrieval head does", "Training and recalibration",
                          "How it was made"])
    with guard():
        for tab, draw in zip(tabs, (accuracy_tab, head_tab, curves_tab, made_tab), strict=True):
            if tab.open:
                with tab:
                    draw(result, wanted, shipped_run)


lesson()
why(WHY)
source(drop_positions, recalibrate, drope_experiment)
