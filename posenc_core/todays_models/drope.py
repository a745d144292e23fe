"""DroPE on the lab's tiny models: train with RoPE, drop the rotations, recalibrate briefly without them.

DroPE (Gelberg et al. 2025, "Extending the Context of Pretrained LLMs by Dropping Their Positional
Embeddings", arXiv:2512.12167) treats RoPE as a training scaffold: after pretraining, remove every
rotation and continue training for a short while at the original length, then run the model, now a
NoPE model, at longer lengths with no scaling rule. This module measures that on the lab's look-back-k
task: the same RoPE model evaluated with its rotations, with them simply removed, and after a short
recalibration without them, next to a NoPE model trained from scratch for as many steps in total.

torch is imported when a function runs. The shipped result ``posenc_core/todays_models/data/drope_seed0.json``
(package data, read by ``shipped_drope_result``) was made with
``python -m posenc_core.todays_models.drope posenc_core/todays_models/data/drope_seed0.json`` (the defaults
below, seed 0, CPU).
"""

from __future__ import annotations

import copy
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from .._backend import require_torch
from .._checks import as_int
from ..lab.task import IGNORE, TASK_DESCRIPTION, retrieval_batch
from ..lab.train import (
    LabSettings,
    _deterministic,
    _learning_rate,
    eval_batch,
    evaluate,
    lab_settings,
    offset_mass,
    train_model,
)

if TYPE_CHECKING:  # torch's module, for the checker only: importing it here would import torch
    from ..lab.model import TinyTransformer

__all__ = [
    "DROPE_VARIANTS",
    "SHIPPED_DROPE",
    "DropeCurves",
    "DropeHead",
    "DropeResult",
    "DropeVariant",
    "DropeVariantName",
    "TrainingCurve",
    "drop_positions",
    "drope_experiment",
    "load_drope_result",
    "recalibrate",
    "shipped_drope_result",
]

DropeVariantName = Literal["rope", "dropped", "drope", "nope"]
# RoPE as trained, its rotations dropped, DroPE (dropped, then recalibrated), NoPE trained from scratch
DROPE_VARIANTS: tuple[DropeVariantName, ...] = ("rope", "dropped", "drope", "nope")
MAX_RECALIBRATION = 2000
SHIPPED_DROPE = Path(__file__).resolve().parent / "data" / "drope_seed0.json"  # package data: in the wheel


@dataclass(frozen=True)
class TrainingCurve:
    """A training run's logged steps.

    step: the logged steps of this run, 1-based.
    loss: the cross-entropy (nats) of the batch at each logged step.
    accuracy: the share of the batch's scored positions predicted right at each logged step, 0 to 1.
    global_step: the same steps counted from the start of pretraining (= step for the pretraining itself).
    """

    step: list[int]
    loss: list[float]
    accuracy: list[float]
    global_step: list[int]


@dataclass(frozen=True)
class DropeVariant:
    """One model's scores at each evaluation length (``DropeResult.eval_lengths``).

    loss: mean cross-entropy (nats) at each length, rounded to 5 decimals.
    accuracy: share of scored positions predicted right at each length, 0 to 1, rounded to 5 decimals.
    """

    loss: list[float]
    accuracy: list[float]


@dataclass(frozen=True)
class DropeCurves:
    """The two training curves of a DroPE run.

    rope: the RoPE model's pretraining.
    recalibration: the dropped copy's recalibration without positions (global_step continues after pretraining).
    """

    rope: TrainingCurve
    recalibration: TrainingCurve


@dataclass(frozen=True)
class DropeHead:
    """The RoPE model's retrieval head: the one with the most attention on the key k steps back.

    layer: its layer, from 0.
    head: its head within the layer, from 0.
    """

    layer: int
    head: int


@dataclass(frozen=True)
class DropeResult:
    """A DroPE run on the lab's look-back-k task.

    task: the task, as the lab states it.
    k: how many steps back the answer sits.
    train_len: T, the training length.
    eval_lengths: T, 2T, 4T, 8T.
    chance_accuracy: 1 / vocabulary size.
    recalibration: steps of recalibration without positions.
    variants: {variant: its scores at each evaluation length}, for each of DROPE_VARIANTS.
    curves: the pretraining and recalibration curves.
    head: the RoPE model's retrieval head.
    attention: {variant: (T, T) float64 attention of that layer and head on one sequence, rounded to 4 decimals}.
    offset_mass: {variant: the head's share of attention on the key k back, 0 to 1}.
    settings: the lab settings of the run.
    torch_version: the torch version that ran it.
    seconds: wall time of the run.
    """

    task: str
    k: int
    train_len: int
    eval_lengths: list[int]
    chance_accuracy: float
    recalibration: int
    variants: dict[DropeVariantName, DropeVariant]
    curves: DropeCurves
    head: DropeHead
    attention: dict[DropeVariantName, np.ndarray]
    offset_mass: dict[DropeVariantName, float]
    settings: LabSettings
    torch_version: str
    seconds: float

    def to_json(self) -> dict[str, Any]:
        """The result as the JSON file holds it (attention maps as nested lists)."""
        recal = self.curves.recalibration
        return {"task": self.task, "k": self.k, "train_len": self.train_len, "eval_lengths": self.eval_lengths,
                "chance_accuracy": self.chance_accuracy, "recalibration": self.recalibration,
                "variants": {n: {"loss": v.loss, "accuracy": v.accuracy} for n, v in self.variants.items()},
                "curves": {"rope": {"step": self.curves.rope.step, "loss": self.curves.rope.loss,
                                    "accuracy": self.curves.rope.accuracy},
                           "recalibration": {"step": recal.step, "loss": recal.loss, "accuracy": recal.accuracy,
                                             "global_step": recal.global_step}},
                "head": {"layer": self.head.layer, "head": self.head.head},
                "attention": {n: m.tolist() for n, m in self.attention.items()},
                "offset_mass": self.offset_mass,
                "settings": asdict(self.settings) | {"torch": self.torch_version}, "seconds": self.seconds}


def drop_positions(model: TinyTransformer) -> TinyTransformer:
    """A copy of a trained lab model that runs with no rotations: the same weights, read as a NoPE model.

    The lab's TinyTransformer decides what to add from ``method``; "none" adds nothing but the causal mask,
    which is exactly "remove every rotation, keep every weight".
    """
    dropped = copy.deepcopy(model)
    dropped.method = "none"
    return dropped


def recalibrate(model: TinyTransformer, settings: LabSettings, steps: int) -> TrainingCurve:
    """Continue training ``model`` (already without positions) for ``steps`` at the training length T.

    The same optimiser and schedule as the lab's training (AdamW, warmup then cosine), restarted, on a fresh
    data stream. Returns the TrainingCurve, its global_step counted after the ``settings.steps`` of pretraining.
    """
    torch = require_torch()
    from ..lab.model import as_tensor, loss_and_accuracy

    steps = as_int("recalibration steps", steps, minimum=1, maximum=MAX_RECALIBRATION)
    short = replace(settings, steps=steps)
    optimiser = torch.optim.AdamW(model.parameters(), lr=settings.lr, betas=(0.9, 0.98), weight_decay=0.01)
    rng = np.random.default_rng([settings.seed, 2])  # not the pretraining stream
    curve: dict[str, list[Any]] = {"step": [], "loss": [], "accuracy": []}
    log_every = max(1, steps // 25)
    model.train()
    for step in range(steps):
        tokens, targets = retrieval_batch(settings.batch, settings.train_len, settings.k, settings.vocab, rng)
        for group in optimiser.param_groups:
            group["lr"] = _learning_rate(step, short)
        loss, accuracy = loss_and_accuracy(model(as_tensor(tokens, settings.device)),
                                           as_tensor(targets, settings.device), IGNORE)
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimiser.step()
        if (step + 1) % log_every == 0 or step == steps - 1:
            curve["step"].append(step + 1)
            curve["loss"].append(round(float(loss.detach()), 5))
            curve["accuracy"].append(round(float(accuracy), 5))
    model.eval()
    return TrainingCurve(step=curve["step"], loss=curve["loss"], accuracy=curve["accuracy"],
                         global_step=[settings.steps + s for s in curve["step"]])


def _maps(model, settings) -> np.ndarray:
    """Every head's attention on the first evaluation sequence at T, (layers, heads, T, T)."""
    torch = require_torch()
    from ..lab.model import as_tensor

    tokens, _ = eval_batch(settings.train_len, settings)
    with torch.no_grad():
        _, maps = model(as_tensor(tokens[:1], settings.device), return_attention=True)
    return np.stack([m[0].float().cpu().numpy() for m in maps])


def drope_experiment(train_len: int = 32, steps: int = 300, recalibration: int = 150, seed: int = 0,
                     device: str = "cpu") -> DropeResult:
    """Train RoPE at T, then measure it with rotations, without them, and after a DroPE recalibration.

    Args:
        train_len: T (8..128); evaluation at T, 2T, 4T and 8T.
        steps: pretraining steps of the RoPE model (the NoPE baseline gets steps + recalibration).
        recalibration: steps of training without positions after dropping them (1..2,000).
        seed, device: as in the lab.

    Returns:
        A DropeResult: each variant's scores at every evaluation length, the two training curves, and the
        attention of the RoPE model's retrieval head (the one with most weight k steps back) and of the same
        head in the others (``to_json`` gives the file's form).
    """
    torch = require_torch()
    settings = lab_settings("quick", train_len=train_len, steps=steps, seed=seed, device=device)
    recalibration = as_int("recalibration steps", recalibration, minimum=1, maximum=MAX_RECALIBRATION)
    started = time.perf_counter()
    with _deterministic(torch, settings.device):
        rope, rope_curve = train_model("rope", settings)
        dropped = drop_positions(rope)
        drope = drop_positions(rope)
        recal_curve = recalibrate(drope, settings, recalibration)
        nope, _ = train_model("none", replace(settings, steps=settings.steps + recalibration))
        models: dict[DropeVariantName, tuple[TinyTransformer, str]] = {
            "rope": (rope, "rope"), "dropped": (dropped, "none"), "drope": (drope, "none"), "nope": (nope, "none")}
        variants: dict[DropeVariantName, DropeVariant] = {}
        maps: dict[DropeVariantName, np.ndarray] = {}
        for name, (model, method) in models.items():
            scores = [evaluate(model, method, length, settings) for length in settings.eval_lengths]
            variants[name] = DropeVariant(loss=[round(s[0], 5) for s in scores],
                                          accuracy=[round(s[1], 5) for s in scores])
            maps[name] = _maps(model, settings)
    masses = np.array([[offset_mass(m, settings.k) for m in layer] for layer in maps["rope"]])  # (layers, h)
    layer, head = (int(v) for v in np.unravel_index(int(np.argmax(masses)), masses.shape))
    return DropeResult(
        task=TASK_DESCRIPTION, k=settings.k, train_len=settings.train_len, eval_lengths=settings.eval_lengths,
        chance_accuracy=1 / settings.vocab, recalibration=recalibration, variants=variants,
        curves=DropeCurves(rope=TrainingCurve(step=rope_curve.step, loss=rope_curve.loss,
                                              accuracy=rope_curve.accuracy, global_step=list(rope_curve.step)),
                           recalibration=recal_curve),
        head=DropeHead(layer=layer, head=head),
        attention={n: np.round(m[layer, head], 4).astype(np.float64) for n, m in maps.items()},  # (T, T) each
        offset_mass={n: round(offset_mass(m[layer, head], settings.k), 5) for n, m in maps.items()},
        settings=settings, torch_version=torch.__version__, seconds=round(time.perf_counter() - started, 2))


def _curve(saved: dict[str, Any]) -> TrainingCurve:
    return TrainingCurve(step=saved["step"], loss=saved["loss"], accuracy=saved["accuracy"],
                         global_step=saved.get("global_step", saved["step"]))


def load_drope_result(path: str | os.PathLike[str]) -> DropeResult:
    """A saved ``drope_experiment`` result (the JSON of ``DropeResult.to_json``), attention maps as float64 arrays.

    A variant's "label" that older files hold is not read: the pages name the variants.
    """
    saved = json.loads(Path(path).read_text())
    if not isinstance(saved, dict) or not {"variants", "curves", "attention", "settings"} <= set(saved):
        raise ValueError(f"{os.fspath(path)!r} is not a saved DroPE run: it lacks variants, curves, attention "
                         "or settings.")
    settings = dict(saved["settings"])
    torch_version = settings.pop("torch", "")
    return DropeResult(
        task=saved["task"], k=saved["k"], train_len=saved["train_len"], eval_lengths=saved["eval_lengths"],
        chance_accuracy=saved["chance_accuracy"], recalibration=saved["recalibration"],
        variants={n: DropeVariant(loss=v["loss"], accuracy=v["accuracy"]) for n, v in saved["variants"].items()},
        curves=DropeCurves(rope=_curve(saved["curves"]["rope"]),
                           recalibration=_curve(saved["curves"]["recalibration"])),
        head=DropeHead(layer=saved["head"]["layer"], head=saved["head"]["head"]),
        attention={k: np.asarray(v, dtype=np.float64) for k, v in saved["attention"].items()},
        offset_mass=saved["offset_mass"], settings=LabSettings(**settings), torch_version=torch_version,
        seconds=saved["seconds"])


def shipped_drope_result() -> DropeResult:
    """The shipped run (seed 0, the defaults, CPU): ``load_drope_result`` of the package's data/drope_seed0.json."""
    return load_drope_result(SHIPPED_DROPE)


if __name__ == "__main__":  # python -m posenc_core.todays_models.drope OUT.json
    out = drope_experiment()
    Path(sys.argv[1]).write_text(json.dumps(out.to_json(), indent=1))
    print({k: v.accuracy for k, v in out.variants.items()}, out.seconds, "s")
