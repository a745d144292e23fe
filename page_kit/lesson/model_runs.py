"""Live runs of the real models on a page: the install hint when a model is missing, a run in a worker thread with
a progress bar, and the shipped text's title (shared by the "Inside real models" and "Positions at inference"
pages)."""

from __future__ import annotations

import threading

import streamlit as st

from posenc_core import real_models as real

TEXT_TITLE = "The Devil's Dictionary"  # the shipped text (``real.shipped_text()``)
# what each library does for the models, for the install hint
LIBRARY_USE = {"torch": "runs both models", "transformers": "builds both models", "gguf": "reads SmolLM2's GGUF file",
               "accelerate": "transformers asks for it before reading a GGUF file"}


def missing_sentence(name: str, package: str) -> str:
    """What ``real.missing_models()`` reports absent, in words: a library and what it does, or a model and its
    PyPI package."""
    if name in LIBRARY_USE:
        return f"The Python package `{package}` ({LIBRARY_USE[name]}) is not installed."
    return f"{name} comes from the PyPI package `{package}`, which is not installed."


def models_ready(*models: str) -> bool:
    """True when the libraries and ``models`` are installed; otherwise an install hint and False."""
    absent = real.missing_models()
    libraries = ("torch", "transformers") + (("gguf", "accelerate") if real.SMOLLM2_NAME in models else ())
    missing = [missing_sentence(k, v) for k, v in absent.items() if k in models or k in libraries]
    if missing:
        st.warning(" ".join(missing) + f" Install the models with `python -m pip install -r "
                   f"requirements.txt && {real.INSTALL_COMMAND}`, then reload this page.",
                   icon=":material/download:")
    return not missing


def run_with_progress(work, text: str):
    """Run ``work(progress)`` in a worker thread and draw its progress; ``progress(done, total)``."""
    state, box = {"fraction": 0.0}, {}

    def report(done, total):
        state["fraction"] = done / total

    def target():
        try:
            box["result"] = work(report)
        except Exception as error:  # handed to the script thread, which shows it (a ValueError as st.error)
            box["error"] = error

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    bar = st.progress(0.0, text=text)
    while worker.is_alive():
        worker.join(0.3)
        bar.progress(min(state["fraction"], 1.0), text=f"{text} {100 * state['fraction']:.0f}%")
    bar.empty()
    if "error" in box:
        raise box["error"]
    return box["result"]
