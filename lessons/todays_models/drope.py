from pathlib import Path

import numpy as np
import streamlit as st

import posenc_core as pc
from page_kit import classroom, controls, figures, formula, guard, header, notice, sections, show, source, todays_class

SHIPPED = Path(__file__).resolve().parents[2] / "assets" / "drope_seed0.json"
NAMES = list(pc.DROPE_VARIANTS)
COLOURS = {pc.DROPE_VARIANTS[n]: i for i, n in enumerate(NAMES)}


@st.cache_data(show_spinner=False)
def shipped():
    return pc.load_drope_result(SHIPPED)


@st.cache_data(max_entries=4, show_spinner=False)
def live(steps: int, recalibration: int, seed: int):
    result = pc.drope_experiment(steps=steps, recalibration=recalibration, seed=seed)
    result["attention"] = {k: np.asarray(v) for k, v in result["attention"].items()}
    return result


header(
    "DroPE: dropping positions after training",
    "DroPE (Gelberg et al. 2025, \"Extending the Context of Pretrained LLMs by Dropping Their Positional "
    "Embeddings\", arXiv:2512.12167) treats RoPE as a scaffold for training: once a model is trained, remove "
    "every rotation, recalibrate briefly at the original length, and run the model, now position-free, on "
    "longer inputs with no scaling rule. Here it is measured on the lab's tiny models and task: a RoPE model "
    "trained at length T, the same weights with the rotations removed, the same after a short recalibration, and "
    "a NoPE model trained from scratch for as many steps in total."
)


@st.fragment
def lesson():
    base = shipped()
    made = base["settings"]
    c1, c2, c3 = st.columns([2, 2, 1])
    with c1:
        steps = controls.select_slider("RoPE training steps", "steps", [100, 300, 600], made["steps"])
    with c2:
        recal = controls.select_slider("Recalibration steps", "recal", [50, 150, 300, 600], base["recalibration"])
    with c3:
        seed = controls.select("Seed", "seed", [0, 1, 2], 0)
    wanted = (steps, recal, seed)
    shipped_run = wanted == (made["steps"], base["recalibration"], made["seed"])
    # one slot, whatever it holds (a caption, or a button and a note): the figures below keep their place in the
    # page, so a slider move redraws them instead of remounting them
    with st.container():
        if shipped_run:
            result = base
            st.caption(f"The shipped run (assets/drope_seed0.json, {base['seconds']:.0f} s on CPU when it was made).")
        else:
            runs = st.session_state.setdefault("drope_runs", set())
            if st.button("Run these settings", icon=":material/play_arrow:", type="primary", key="run_drope"):
                runs.add(wanted)
            if wanted in runs:
                with st.spinner("Training three tiny models (about a minute on two busy CPU cores)..."):
                    result = live(*wanted)
                st.caption(f"Your run: {steps} RoPE steps, {recal} recalibration steps, seed {seed}; it took "
                           f"{result['seconds']:.0f} s and stays cached while the app runs.")
            else:
                shipped_run = True
                st.info("These settings have not been run yet: press **Run these settings**. Until then the page "
                        f"shows the shipped run ({made['steps']} RoPE steps, {base['recalibration']} recalibration "
                        "steps, seed 0).", icon=":material/info:")
                result = base
    t, k = result["train_len"], result["k"]
    acc = {n: result["variants"][n]["accuracy"] for n in NAMES}
    tab_acc, tab_head, tab_curves, tab_made = sections(
        ["Accuracy from T to 8T", "What the retrieval head does", "Training and recalibration", "How it was made"])

    with guard():
        if tab_acc.open:
            with tab_acc:
                lengths = result["eval_lengths"]
                todays_class.ask_dropped(acc, t)
                show(figures.lines(
                    lengths, {pc.DROPE_VARIANTS[n]: np.array(acc[n]) for n in NAMES}, markers=True, log_x=True,
                    x_ticks=lengths, y_range=(0, 1.02), colours=COLOURS, legend_right=True, margin=dict(r=250),
                    hlines=[(result["chance_accuracy"], "chance")], vlines=[(t, f"T = {t}")],
                    title=f"Look back {k}: accuracy at T to 8T", x_title="evaluation length",
                    y_title="accuracy", name="drope_accuracy",
                    alt="Accuracy against evaluation length for RoPE, RoPE with rotations dropped, DroPE and NoPE."))
                classroom.snippet(todays_class.result_code(wanted, shipped_run),
                                  'acc = {name: result["variants"][name]["accuracy"] for name in pc.DROPE_VARIANTS}'
                                  '  # one accuracy per length in result["eval_lengths"]')
                # two rows: on one the 8T half ran past the right edge of a 1,280 px projector page
                formula(r"\begin{gathered}\text{at } T = $t:\ \text{RoPE } $r,\ \text{dropped } $d,\ "
                        r"\text{DroPE } $p,\ \text{NoPE } $n\\ \text{at } 8T:\ \text{RoPE } $r8,\ "
                        r"\text{DroPE } $p8\end{gathered}",
                        t=t, r=acc["rope"][0], d=acc["dropped"][0], p=acc["drope"][0], n=acc["nope"][0],
                        r8=acc["rope"][-1], p8=acc["drope"][-1], digits=3)
                better = "above" if acc["drope"][-1] > acc["rope"][-1] else "below"
                notice(f"Removing the rotations from a trained model is not free: at T its accuracy falls from "
                       f"{acc['rope'][0]:.0%} to {acc['dropped'][0]:.0%} (chance is {result['chance_accuracy']:.0%}), "
                       "because every attention pattern it learned was written in rotated coordinates. "
                       f"{result['recalibration']} recalibration steps without positions bring it to "
                       f"{acc['drope'][0]:.0%} at T and {acc['drope'][-1]:.0%} at 8T, {better} RoPE's "
                       f"{acc['rope'][-1]:.0%} at 8T. NoPE trained from scratch reaches {acc['nope'][0]:.0%} at T"
                       + (": on this task a position-free model must infer offsets from the causal mask alone, "
                          "which two small layers learn slowly. " if acc["nope"][0] < 0.9 else ". ")
                       + "The paper's claim concerns language models recalibrated on a small fraction of their "
                       "pretraining tokens, where it reports that quality at the training length recovers.")

        if tab_head.open:
            with tab_head:
                head, mass = result["head"], result["offset_mass"]
                show(figures.small_multiples(
                    [result["attention"][n] for n in NAMES],
                    [f"{pc.DROPE_VARIANTS[n]} ({mass[n]:.0%} on k back)" for n in NAMES],
                    title=f"Layer {head['layer']}, head {head['head']}: attention at T = {t} on one sequence",
                    cols=2, value_name="attention", cell_px=300, name="drope_heads",
                    alt="Four attention maps of the same layer and head: the RoPE model, the same weights without "
                        "rotations, the same after recalibration, and the NoPE model trained from scratch."))
                classroom.snippet(todays_class.result_code(wanted, shipped_run),
                                  f'maps = result["attention"]  # {{variant: ({t}, {t}) attention of layer '
                                  f'{head["layer"]}, head {head["head"]}}}',
                                  'mass = result["offset_mass"]  # {variant: share of attention on the key k back}')
                notice(f"With RoPE this head puts {mass['rope']:.0%} of its weight on the key {k} steps back: the "
                       f"lookup the task needs. The same weights without rotations put {mass['dropped']:.0%} there; "
                       f"after recalibration {mass['drope']:.0%}. The NoPE panel is the same layer and head of an "
                       "independently trained model, shown for its pattern, not as the same circuit.")

        if tab_curves.open:
            with tab_curves:
                rope_curve, recal_curve = result["curves"]["rope"], result["curves"]["recalibration"]
                x = np.array(rope_curve["step"] + recal_curve["global_step"])  # (points,)
                n_rope = len(rope_curve["step"])
                series = {"RoPE training": np.array(rope_curve["loss"] + [np.nan] * len(recal_curve["step"])),
                          "recalibration without positions": np.array([np.nan] * n_rope + recal_curve["loss"])}
                show(figures.lines(x, series, title="Training loss, then recalibration loss", x_title="step",
                                   y_title="cross-entropy", legend_right=True, margin=dict(r=260),
                                   vlines=[(result["settings"]["steps"], "rotations dropped")],
                                   name="drope_curves",
                                   alt="Loss falls during RoPE training, jumps when the rotations are dropped, "
                                       "then falls again during recalibration."))
                notice(f"The jump at the marker is the cost of dropping positions (loss {recal_curve['loss'][0]:.2f} "
                       f"on the first logged recalibration step against {rope_curve['loss'][-1]:.2f} at the end of "
                       f"training); recalibration ends at {recal_curve['loss'][-1]:.2f}.")

        if tab_made.open:
            with tab_made:
                st.markdown(f"Task: {result['task']}  \nEvaluation: {result['settings']['eval_sequences']} fixed "
                            "sequences per length, the same for every model. The shipped file was made with "
                            "`python -m posenc_core.drope assets/drope_seed0.json`; 'Run these settings' calls the "
                            "same function.")
                st.json(result["settings"] | {"recalibration": result["recalibration"],
                                              "seconds": result["seconds"]}, expanded=False)


lesson()
source(pc.drop_positions, pc.recalibrate, pc.drope_experiment)
