"""DroPE on the lab's tiny models: train with RoPE, drop the rotations, recalibrate briefly without them.

DroPE (Gelberg et al. 2025, "Extending the Context of Pretrained LLMs by Dropping Their Positional
Embeddings", arXiv:2512.12167) treats RoPE as a training scaffold: after pretraining, remove every
rotation and continue training for a short while at the original length, then run the model, now a
NoPE model, at longer lengths with no scaling rule. This module measures that on the lab's look-back-k
task: the same RoPE model evaluated with its rotations, with them simply removed, and after a short
recalibration without them, next to a NoPE model trained from scratch for as many steps in total.

torch is imported when a function runs. The shipped result ``assets/drope_seed0.json`` was made with
``python -m posenc_core.todays_models.drope assets/drope_seed0.json`` (the defaults below, seed 0, CPU).
"""

from __future__ import annotations

import copy
import json
import os
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._backend import require_torch
from .._checks import as_int
from ..lab.task import IGNORE, TASK_DESCRIPTION, retrieval_batch
from ..lab.train import _deterministic, _learning_rate, eval_batch, evaluate, lab_settings, offset_mass, train_model

if TYPE_CHECKING:  # torch's module, for the checker only: importing it here would import torch
    from ..lab.model import TinyTransformer
    from ..lab.train import LabSettings

__all__ = ["DROPE_VARIANTS", "drop_positions", "drope_experiment", "load_drope_result", "recalibrate"]

DROPE_VARIANTS = {
    "rope": "RoPE (as trained)",
    "dropped": "rotations dropped",
    "drope": "DroPE (recalibrated)",
    "nope": "NoPE from scratch",
}
MAX_RECALIBRATION = 2000


def drop_positions(model: TinyTransformer) -> TinyTransformer:
    """A copy of a trained lab model that runs with no rotations: the same weights, read as a NoPE model.

    The lab's TinyTransformer decides what to add from ``method``; "none" adds nothing but the causal mask,
    which is exactly "remove every rotation, keep every weight".
    """
    dropped = copy.deepcopy(model)
    dropped.method = "none"
    return dropped


def recalibrate(model: TinyTransformer, settings: LabSettings, steps: int) -> dict:
    """Continue training ``model`` (already without positions) for ``steps`` at the training length T.

    The same optimiser and schedule as the lab's training (AdamW, warmup then cosine), restarted, on a fresh
    data stream. Returns the curve {"step", "loss", "accuracy"}.
    """
    torch = require_torch()
    from ..lab.model import as_tensor, loss_and_accuracy

    steps = as_int("recalibration steps", steps, minimum=1, maximum=MAX_RECALIBRATION)
    short = replace(settings, steps=steps)
    optimiser = torch.optim.AdamW(model.parameters(), lr=settings.lr, betas=(0.9, 0.98), weight_decay=0.01)
    rng = np.random.default_rng([settings.seed, 2])  # not the pretraining stream
    curve: dict[str, list] = {"step": [], "loss": [], "accuracy": []}
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
    return curve


def _maps(model, settings) -> np.ndarray:
    """Every head's attention on the first evaluation sequence at T, (layers, heads, T, T)."""
    torch = require_torch()
    from ..lab.model import as_tensor

    tokens, _ = eval_batch(settings.train_len, settings)
    with torch.no_grad():
        _, maps = model(as_tensor(tokens[:1], settings.device), return_attention=True)
    return np.stack([m[0].float().cpu().numpy() for m in maps])


def drope_experiment(train_len: int = 32, steps: int = 300, recalibration: int = 150, seed: int = 0,
                     device: str = "cpu") -> dict:
    """Train RoPE at T, then measure it with rotations, without them, and after a DroPE recalibration.

    Args:
        train_len: T (8..128); evaluation at T, 2T, 4T and 8T.
        steps: pretraining steps of the RoPE model (the NoPE baseline gets steps + recalibration).
        recalibration: steps of training without positions after dropping them (1..2,000).
        seed, device: as in the lab.

    Returns:
        JSON-ready dict: "variants" {name: {"label", "accuracy", "loss"} per evaluation length}, "eval_lengths",
        "chance_accuracy", "curves" (RoPE pretraining, recalibration), "attention" {variant: (T, T) list} for the
        RoPE model's retrieval head (the one with most weight k steps back) and the same head in the others,
        "offset_mass" per variant, "head", "settings", "seconds".
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
        recal_curve["global_step"] = [settings.steps + s for s in recal_curve["step"]]  # after pretraining
        nope, _ = train_model("none", replace(settings, steps=settings.steps + recalibration))
        models = {"rope": (rope, "rope"), "dropped": (dropped, "none"), "drope": (drope, "none"),
                  "nope": (nope, "none")}
        variants, maps = {}, {}
        for name, (model, method) in models.items():
            scores = [evaluate(model, method, length, settings) for length in settings.eval_lengths]
            variants[name] = {"label": DROPE_VARIANTS[name], "loss": [round(s[0], 5) for s in scores],
                              "accuracy": [round(s[1], 5) for s in scores]}
            maps[name] = _maps(model, settings)
    masses = np.array([[offset_mass(m, settings.k) for m in layer] for layer in maps["rope"]])  # (layers, h)
    layer, head = (int(v) for v in np.unravel_index(int(np.argmax(masses)), masses.shape))
    return {"task": TASK_DESCRIPTION, "k": settings.k, "train_len": settings.train_len,
            "eval_lengths": settings.eval_lengths, "chance_accuracy": 1 / settings.vocab,
            "recalibration": recalibration, "variants": variants,
            "curves": {"rope": asdict(rope_curve), "recalibration": recal_curve},
            "head": {"layer": layer, "head": head},
            "attention": {n: np.round(m[layer, head], 4).tolist() for n, m in maps.items()},
            "offset_mass": {n: round(offset_mass(m[layer, head], settings.k), 5) for n, m in maps.items()},
            "settings": asdict(settings) | {"torch": torch.__version__},
            "seconds": round(time.perf_counter() - started, 2)}


def load_drope_result(path: str | os.PathLike[str]) -> dict:
    """A saved ``drope_experiment`` result (JSON), with the attention maps as float arrays."""
    result = json.loads(Path(path).read_text())
    result["attention"] = {k: np.asarray(v, dtype=np.float64) for k, v in result["attention"].items()}
    return result


if __name__ == "__main__":  # python -m posenc_core.todays_models.drope OUT.json
    out = drope_experiment()
    Path(sys.argv[1]).write_text(json.dumps(out, indent=1))
    print({k: v["accuracy"] for k, v in out["variants"].items()}, out["seconds"], "s")
