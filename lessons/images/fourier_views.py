"""Views of the Fourier-features lesson that would crowd its page: which fit is shown (training waits for its
button), the fits' score table and training curves, the snippet of the fit, and the lesson's predict-then-reveal
questions."""

from __future__ import annotations

import streamlit as st

from page_kit import classroom, figures
from page_kit.chart.render import show
from posenc_core.images import (
    ENCODINGS,
    FitStep,
    detail_what_if,
    encoding_ranges,
    encoding_tables,
    fit_coordinates,
    worst_encoding,
)

LABELS = {"raw": "raw coordinates", "nerf": "NeRF encoding", "gaussian": "Fourier features"}
# one colour per input in every chart of a tab; the target takes the kit's reference style (wide grey dashes)
COLOURS = {"target": 7, "raw coordinates": 0, "NeRF encoding": 1, "Fourier features": 2}
DASHED = ["Fourier features"]  # drawn last and dashed, so the NeRF fit under it stays visible where they agree


@st.cache_data(max_entries=24, show_spinner=False)
def fitted(task: str, octaves: int, sigma: float, features: int, steps: int, seed: int):
    """Train the three networks once per setting; a classroom replays the cached result instantly."""
    bar = st.progress(0.0, text="Training three small networks on the CPU...")
    trained = {"raw": "raw coordinates", "nerf": f"NeRF encoding (L={octaves})",
               "gaussian": f"Fourier features (sigma={sigma:g}, m={features})"}

    def report(done: float, at: FitStep) -> None:
        bar.progress(min(done, 1.0), text=f"Training on {trained[at.encoding]}: step {at.step} of {at.steps}")

    result = fit_coordinates(task, n_octaves=octaves, sigma=sigma, n_features=features, steps=steps, seed=seed,
                             progress=report)
    bar.empty()
    return result


def shown_fit(task: str, settings: tuple):
    """The fit the page draws, and its settings. Training three networks takes seconds, so it never runs on a
    slider move: the page's first view trains the settings it opens with (a shared link's own), and after that the
    figures keep the last fit trained until *Train* is pressed for the new settings. Figures, numbers, question
    and snippet all describe the settings shown."""
    key = f"fourier_trained_{task}"
    shown = st.session_state.setdefault(key, settings)
    if shown != settings:
        octaves, sigma, features, steps, seed = settings
        row = st.container(horizontal=True, vertical_alignment="center", gap="small")
        row.caption(f"The figures show the fit trained with σ = {shown[1]:g}, L = {shown[0]}, m = {shown[2]}, "
                    f"{shown[3]} steps, seed {shown[4]}. Training the new settings takes a few seconds.")
        row.button(f"Train with σ = {sigma:g}, L = {octaves}, {steps} steps", key=f"fourier_train_{task}",
                   type="primary", icon=":material/model_training:",
                   on_click=st.session_state.__setitem__, args=(key, settings))
    return fitted(task, *shown), shown


@st.cache_data(max_entries=16, show_spinner=False)
def encodings(octaves: int, sigma: float, features: int, seed: int):
    tables = encoding_tables(octaves, sigma, features, seed)
    return tables.p, tables.nerf, tables.fourier, encoding_ranges(octaves, sigma, features, seed)


def fit_scores(result) -> None:
    st.dataframe({"input": [LABELS[e] for e in ENCODINGS],
                  "network inputs": [result.fits[e].input_features for e in ENCODINGS],
                  "train PSNR (dB)": [result.fits[e].final_train_psnr for e in ENCODINGS],
                  "held-out PSNR (dB)": [result.fits[e].final_test_psnr for e in ENCODINGS]},
                 hide_index=True, width="content",
                 column_config={k: st.column_config.NumberColumn(format="%.1f")
                                for k in ("train PSNR (dB)", "held-out PSNR (dB)")})


def fit_curves(result, task: str) -> None:
    show(figures.padded(figures.lines(
        result.fits["raw"].logged_steps, {LABELS[e]: result.fits[e].test_psnr for e in ENCODINGS},
        title="Held-out error while training", x_title="training step",
        y_title="held-out PSNR (dB, higher is better)", colours=COLOURS, dashed=DASHED,
        name=f"fourier_{task}_curves", height=360,
        alt="Held-out PSNR against training step for the three inputs.")))
    # full width: a spectrum's narrow peaks and the gap between the fits need the horizontal room
    spectra = result.spectra
    show(figures.padded(figures.lines(
        spectra.frequency, {"target": spectra.target, **{LABELS[e]: spectra.fits[e] for e in ENCODINGS}},
        title="Spectrum" + (" (radial mean)" if task == "2d" else ""),
        x_title="frequency (cycles per unit)", y_title="amplitude (log scale)", log_y=True,
        dashed=["target", *DASHED], colours=COLOURS, name=f"fourier_{task}_spectrum", height=440,
        alt="Amplitude against frequency: the raw-coordinate fit loses the high frequencies of the target.")))


def ask_what_sets_detail(sigma: float, features: int) -> classroom.Prediction:
    """Count against spread, asked before the Gaussian table (the answer from ``pc.images.detail_what_if``)."""
    what_if = detail_what_if(sigma, features)

    def reveal() -> str:
        return (f"The fastest feature now turns {what_if.now:.2f} cycles per unit. With m = {2 * features} it "
                f"would turn {what_if.more_features:.2f} (the same draws plus more of them); with "
                f"σ = {2 * sigma:g}, {what_if.wider_sigma:.2f}: every frequency is σ times a fixed random "
                "number, so σ scales them all and the count barely moves the top.")

    return classroom.predict(
        "ff_sigma", f"Gaussian features, m = {features}, σ = {sigma:g}. Which change makes the fastest "
        "feature about twice as fast?",
        [f"doubling m to {2 * features}", f"doubling σ to {2 * sigma:g}", "either one", "neither"],
        what_if.answer, reveal)


def fit_snippet(task: str, settings, *lines: str) -> None:
    octaves, sigma, features, steps, seed = settings
    call = classroom.call("fit_coordinates", task, n_octaves=octaves, sigma=sigma, n_features=features, steps=steps,
                          seed=seed)
    classroom.snippet(f"result = {call}  # trains three small networks: seconds", *lines)


def ask_worst_fit(result, settings) -> classroom.Prediction:
    """Which input ends worst on the held-out samples: asked before the fits are drawn."""
    worst = worst_encoding(result)

    def reveal() -> str:
        return f"Held-out PSNR (higher is better): {psnr_text(result)}. Worst: {LABELS[worst]}."

    return classroom.predict(
        "ff_worst", f"After {settings[3]} steps with σ = {settings[1]:g} and L = {settings[0]}, which "
        "input predicts the held-out samples worst?", [LABELS[e] for e in ENCODINGS],
        list(ENCODINGS).index(worst), reveal)


def psnr_text(result) -> str:
    """Each input's held-out PSNR, as the alt text and the reveal list them."""
    return ", ".join(f"{LABELS[e]} {result.fits[e].final_test_psnr:.1f} dB" for e in ENCODINGS)
