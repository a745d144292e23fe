"""Train one tiny transformer per method at length T, evaluate it at T, 2T, 4T and 8T.

torch is imported inside the functions, so importing this module (and ``posenc_core``) needs no torch.
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from .._backend import check_backend, require_torch
from .._checks import as_choice, as_int
from .methods import LAB_METHODS, TRAINED_METHODS
from .task import IGNORE, TASK_DESCRIPTION, TASK_NAME, retrieval_batch

if TYPE_CHECKING:  # torch's module, for the checker only: importing it here would import torch
    from .model import TinyTransformer

__all__ = ["ATTENTION_FACTOR", "EVAL_FACTORS", "FULL", "MAX_STEPS", "MAX_TRAIN_LEN", "QUICK", "AttentionMaps",
           "LabResult", "LabSettings", "LabTask", "MethodScores", "TrainCurve", "attention_maps", "build_model",
           "check_methods", "eval_batch", "evaluate", "lab_settings", "offset_mass", "run_lab", "train_model",
           "warmup_steps"]

EVAL_FACTORS = (1, 2, 4, 8)  # evaluation lengths as multiples of T
MAX_TRAIN_LEN = 128
MAX_STEPS = 20000
ATTENTION_FACTOR = 4  # the attention maps are taken at T and at this multiple of T
_EVAL_CHUNK_VALUES = 1 << 22  # attention values per evaluation chunk (bounds memory at 8T)


@dataclass(frozen=True)
class LabSettings:
    """One experiment. Every field is a scalar, so a settings object is a cache key."""

    train_len: int = 32  # T
    steps: int = 300  # optimiser steps per trained method
    seed: int = 0
    k: int = 2  # look back k tokens
    vocab: int = 16  # chance accuracy 1/16
    batch: int = 16  # training sequences per step
    lr: float = 3e-3  # AdamW peak learning rate (10% warmup, cosine decay to 10%)
    eval_sequences: int = 64  # sequences per evaluation length
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    device: str = "cpu"
    mode: str = "quick"

    @property
    def eval_lengths(self) -> list[int]:
        return [f * self.train_len for f in EVAL_FACTORS]


QUICK = LabSettings()
FULL = LabSettings(train_len=64, steps=1500, batch=32, lr=2e-3, eval_sequences=128, mode="full")


@dataclass(frozen=True)
class TrainCurve:
    """A training run's log, about 50 points.

    step: the optimiser steps logged (from 1). loss: the training batch's cross-entropy there, nats.
    accuracy: the training batch's accuracy there, 0 to 1.
    """

    step: list[int]
    loss: list[float]
    accuracy: list[float]


@dataclass(frozen=True)
class MethodScores:
    """One method at every test length of a ``LabResult`` (T, 2T, 4T, 8T).

    accuracy, loss: one value per test length (loss in nats), None where the method cannot run.
    notes: None per length, or the refusal that says why it cannot run there.
    label: its legend label when it was run.
    train_curve: the trained model's log (None for the inference-only RoPE variants).
    """

    accuracy: list[float | None]
    loss: list[float | None]
    notes: list[str | None]
    label: str
    train_curve: TrainCurve | None = None


@dataclass(frozen=True)
class AttentionMaps:
    """One head's attention on the first test sequence at T and at 4T (``attention_maps``).

    layer, head: the head (from 0) that puts the most weight on the key k steps back at T.
    at_T: (T, T) its attention weights (query rows, key columns), float32.
    at_4T: (4T, 4T) the same at 4T, or None where the method cannot run there.
    mass_T, mass_4T: its mean weight on the key k steps back at T and at 4T (None with ``at_4T``).
    note: the refusal that says why it cannot run at 4T, or "".
    """

    layer: int
    head: int
    at_T: np.ndarray
    at_4T: np.ndarray | None
    mass_T: float
    mass_4T: float | None
    note: str


@dataclass(frozen=True)
class LabTask:
    """The task of a ``LabResult``: look back k tokens.

    name: ``TASK_NAME``. description: ``TASK_DESCRIPTION`` (what the result file says of the task).
    k: the look-back offset. vocab: the number of symbols. chance_accuracy: 1 / vocab.
    settings: the ``LabSettings`` fields and the torch version, as saved.
    """

    name: str
    description: str
    k: int
    vocab: int
    chance_accuracy: float
    settings: dict[str, Any]


@dataclass(frozen=True)
class LabResult:
    """The whole experiment (``run_lab``), saved as JSON with the same keys (``save_lab_results``).

    task: what was learned. train_len: T. eval_lengths: [T, 2T, 4T, 8T].
    methods: {method name: its scores}, in the registry's order.
    seconds: wall time of the training and testing.
    attention: {method name: one head's maps}, or None when not asked for (kept in an .npz, not in the JSON).
    """

    task: LabTask
    train_len: int
    eval_lengths: list[int]
    methods: dict[str, MethodScores]
    seconds: float
    attention: dict[str, AttentionMaps] | None = None


def lab_settings(mode: str = "quick", *, train_len: int | None = None, steps: int | None = None, seed: int = 0,
                 device: str = "cpu") -> LabSettings:
    """The quick or full preset with optional overrides, validated.

    Args:
        mode: "quick" (about a minute on two CPU cores) or "full" (more steps, T = 64, bigger evaluation).
        train_len: T, the training length (8..128); evaluation runs at T, 2T, 4T and 8T.
        steps: optimiser steps per trained method (10..20,000).
        seed: seeds the initialisation, the training data and the evaluation data.
        device: "cpu" or "cuda".
    """
    base = {"quick": QUICK, "full": FULL}[as_choice("mode", mode, ("quick", "full"))]
    changes: dict[str, Any] = {"seed": as_int("seed", seed, minimum=0, maximum=2**31 - 1),
               "device": as_choice("device", device, ("cpu", "cuda"))}
    if train_len is not None:
        changes["train_len"] = as_int("T (the training length)", train_len, minimum=8, maximum=MAX_TRAIN_LEN)
    if steps is not None:
        changes["steps"] = as_int("steps", steps, minimum=10, maximum=MAX_STEPS)
    settings = replace(base, **changes)
    if settings.k >= settings.train_len:
        raise ValueError(f"T must be longer than the look-back offset k = {settings.k}.")
    return settings


def check_methods(methods: Sequence[str] | None) -> list[str]:
    """The requested method names in registry order (all of them for None); unknown names raise."""
    if methods is None:
        return list(LAB_METHODS)
    if isinstance(methods, str):
        methods = [m for m in methods.split(",") if m]
    methods = list(methods)
    for name in methods:
        as_choice("method", name, tuple(LAB_METHODS))
    if not methods:
        raise ValueError("Choose at least one method to train.")
    return [name for name in LAB_METHODS if name in methods]


@contextlib.contextmanager
def _deterministic(torch, device: str):
    """Deterministic kernels for the run, restored afterwards (cheap at this size)."""
    if device == "cuda":
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # cuBLAS needs it to be deterministic
    previous = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    threads = torch.get_num_threads()
    torch.use_deterministic_algorithms(True, warn_only=True)
    if device == "cpu":
        # One thread: these matrices are too small to split, and on a busy machine extra threads spin and
        # wait for each other (measured 20x slower with 2 threads under load). It also fixes the reduction order.
        torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(previous[0], warn_only=previous[1])
        torch.set_num_threads(threads)


def _model_config(settings: LabSettings):
    from .model import ModelConfig

    return ModelConfig(vocab=settings.vocab, train_len=settings.train_len, d_model=settings.d_model,
                       n_layers=settings.n_layers, n_heads=settings.n_heads, d_mlp=4 * settings.d_model)


def build_model(method: str, settings: LabSettings, seed: int | None = None) -> TinyTransformer:
    """A freshly initialised TinyTransformer for a trained method (seeded: same seed, same weights)."""
    torch = require_torch()
    from .model import TinyTransformer

    method = as_choice("method", method, TRAINED_METHODS)
    torch.manual_seed(settings.seed if seed is None else seed)
    return TinyTransformer(method, _model_config(settings)).to(settings.device)


def warmup_steps(steps: int) -> int:
    """The learning rate's warmup: the first tenth of the ``steps`` (at least one step)."""
    return max(1, int(steps) // 10)


def _learning_rate(step: int, settings: LabSettings) -> float:
    warmup = warmup_steps(settings.steps)
    if step < warmup:
        return settings.lr * (step + 1) / warmup
    progress = (step - warmup) / max(1, settings.steps - warmup)
    return settings.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def train_model(method: str, settings: LabSettings,
                progress: Callable[[dict[str, Any]], None] | None = None) -> tuple[TinyTransformer, TrainCurve]:
    """Train one method at length T. Returns (model, its log); ``progress`` gets each logged step with the log so
    far as {"step", "loss", "accuracy"} lists in "curve"."""
    torch = require_torch()
    from .model import as_tensor, loss_and_accuracy

    model = build_model(method, settings)
    optimiser = torch.optim.AdamW(model.parameters(), lr=settings.lr, betas=(0.9, 0.98), weight_decay=0.01)
    rng = np.random.default_rng([settings.seed, 0])  # the same training stream for every method
    log_every = max(1, settings.steps // 50)
    curve: dict[str, list] = {"step": [], "loss": [], "accuracy": []}
    model.train()
    for step in range(settings.steps):
        tokens, targets = retrieval_batch(settings.batch, settings.train_len, settings.k, settings.vocab, rng)
        for group in optimiser.param_groups:
            group["lr"] = _learning_rate(step, settings)
        logits = model(as_tensor(tokens, settings.device))
        loss, accuracy = loss_and_accuracy(logits, as_tensor(targets, settings.device), IGNORE)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        if (step + 1) % log_every == 0 or step == settings.steps - 1:
            curve["step"].append(step + 1)
            curve["loss"].append(float(loss.detach()))
            curve["accuracy"].append(float(accuracy))
            if progress is not None:
                progress({"kind": "train", "method": method, "step": step + 1, "steps": settings.steps,
                          "loss": curve["loss"][-1], "accuracy": curve["accuracy"][-1], "curve": curve})
    model.eval()
    return model, TrainCurve(curve["step"], curve["loss"], curve["accuracy"])


def eval_batch(length: int, settings: LabSettings) -> tuple[np.ndarray, np.ndarray]:
    """The fixed evaluation set at one length (the same sequences for every method)."""
    return retrieval_batch(settings.eval_sequences, length, settings.k, settings.vocab,
                           np.random.default_rng([settings.seed, 1, length]))


def evaluate(model: TinyTransformer, method: str, length: int, settings: LabSettings) -> tuple[float, float]:
    """(loss, accuracy) of a trained model at one length; the variants apply their RoPE scaling."""
    torch = require_torch()
    from .model import as_tensor, loss_and_accuracy, rope_scaling_for

    scaling = rope_scaling_for(method, length, settings.train_len)
    tokens, targets = eval_batch(length, settings)
    chunk = max(1, _EVAL_CHUNK_VALUES // (settings.n_heads * length * length))
    total_loss = total_correct = total_scored = 0.0
    with torch.no_grad():
        for start in range(0, tokens.shape[0], chunk):
            t = as_tensor(tokens[start:start + chunk], settings.device)
            y = as_tensor(targets[start:start + chunk], settings.device)
            loss, accuracy = loss_and_accuracy(model(t, rope_scaling=scaling), y, IGNORE)
            scored = float((y != IGNORE).sum())
            total_loss += float(loss) * scored
            total_correct += float(accuracy) * scored
            total_scored += scored
    return total_loss / total_scored, total_correct / total_scored


def offset_mass(attn: np.ndarray, k: int) -> float:
    """Mean attention on the key exactly k steps back, over the queries that have one. attn: (L, L)."""
    attn = np.asarray(attn)
    return float(np.diagonal(attn, offset=-k).mean())


def attention_maps(model: TinyTransformer, method: str, settings: LabSettings) -> AttentionMaps:
    """One head's attention on the first evaluation sequence at T and at 4T.

    The head is the one (over all layers) that puts the most weight on the key k steps back at
    length T: the head that does the retrieval, if the model has one. The same head is shown at 4T; for the
    learned table at 4T there is no map and the note says why.
    """
    torch = require_torch()
    from .model import as_tensor, rope_scaling_for

    def maps_at(length):
        tokens, _ = eval_batch(length, settings)
        with torch.no_grad():
            _, maps = model(as_tensor(tokens[:1], settings.device),
                            rope_scaling=rope_scaling_for(method, length, settings.train_len), return_attention=True)
        return np.stack([m[0].float().cpu().numpy() for m in maps])  # (layers, h, L, L)

    at_t = maps_at(settings.train_len)
    masses = np.array([[offset_mass(at_t[i, h], settings.k) for h in range(at_t.shape[1])]
                       for i in range(at_t.shape[0])])  # (layers, h)
    layer, head = (int(v) for v in np.unravel_index(int(np.argmax(masses)), masses.shape))
    at_train = AttentionMaps(layer=layer, head=head, at_T=at_t[layer, head].astype(np.float32),
                             mass_T=float(masses[layer, head]), at_4T=None, mass_4T=None, note="")
    try:
        big = maps_at(ATTENTION_FACTOR * settings.train_len)[layer, head]
    except ValueError as error:
        return replace(at_train, note=str(error))
    return replace(at_train, at_4T=big.astype(np.float32), mass_4T=offset_mass(big, settings.k))


def _scores_at_lengths(model, name: str, settings: LabSettings, on_length) -> tuple[list, list, list]:
    """(accuracy, loss, notes): one entry per test length, None (and the reason) where the method cannot run;
    ``on_length(length, accuracy, loss)`` after each."""
    accuracies: list[float | None] = []
    losses: list[float | None] = []
    notes: list[str | None] = []
    for length in settings.eval_lengths:
        loss: float | None
        accuracy: float | None
        note: str | None = None
        try:
            loss, accuracy = evaluate(model, name, length, settings)
        except ValueError as error:  # the learned table beyond T
            loss = accuracy = None
            note = str(error)
        accuracies.append(accuracy)
        losses.append(loss)
        notes.append(note)
        on_length(length, accuracy, loss)
    return accuracies, losses, notes


def run_lab(settings: LabSettings | None = None, methods: Sequence[str] | None = None, *,
            progress: Callable[[dict[str, Any]], None] | None = None, with_attention: bool = True) -> LabResult:
    """The whole experiment: train each needed model at T, evaluate every method at T, 2T, 4T, 8T.

    Args:
        settings: a LabSettings (``lab_settings(...)`` builds a validated one); QUICK by default.
        methods: names from LAB_METHODS (all by default). A RoPE variant trains the RoPE model.
        progress: called with small dicts as training and evaluation go (for a progress bar or a log).
        with_attention: also keep one head's attention map per method at T and 4T.
    """
    torch = require_torch()
    settings = settings or QUICK
    check_backend("torch", settings.device)
    methods = check_methods(methods)
    to_train = [name for name in TRAINED_METHODS if any(LAB_METHODS[m].trained_as == name for m in methods)]
    started = time.perf_counter()
    scores: dict[str, MethodScores] = {}
    attention: dict[str, AttentionMaps] = {}
    total = len(to_train) * settings.steps + len(methods) * len(settings.eval_lengths)
    done = 0

    def report(event):
        if progress is not None:
            progress(event | {"fraction": min(1.0, done / total), "elapsed": time.perf_counter() - started})

    with _deterministic(torch, settings.device):
        models, curves = {}, {}
        for name in to_train:
            def on_step(event, offset=done):
                nonlocal done
                done = offset + event["step"]
                report(event)
            models[name], curves[name] = train_model(name, settings, on_step)
        for name in methods:
            model = models[LAB_METHODS[name].trained_as]

            def on_length(length, accuracy, loss, name=name):
                nonlocal done
                done += 1
                report({"kind": "eval", "method": name, "length": length, "accuracy": accuracy, "loss": loss})

            scores[name] = MethodScores(*_scores_at_lengths(model, name, settings, on_length),
                                        label=LAB_METHODS[name].label, train_curve=curves.get(name))
            if with_attention:
                attention[name] = attention_maps(model, name, settings)
    task = LabTask(name=TASK_NAME, description=TASK_DESCRIPTION, k=settings.k, vocab=settings.vocab,
                   chance_accuracy=1 / settings.vocab, settings=asdict(settings) | {"torch": torch.__version__})
    return LabResult(task=task, train_len=settings.train_len, eval_lengths=settings.eval_lengths, methods=scores,
                     seconds=round(time.perf_counter() - started, 2), attention=attention if with_attention else None)
