"""The porting bugs measured on SmolLM2-135M: next-token loss on a stretch of the shipped text with each bug's
correct and buggy computation (``porting_bugs.PORTING_BUGS``), and layer 1's attention by offset.

Every run goes through ``smollm2_forward`` with a ``qk`` that projects each layer's queries and keys with the
layer's own weights and rotates them with the bug's function from ``porting_bugs``; the frequencies of YaRN and
dynamic NTK come from transformers' own rotary class (``smollm2_rotary``) built from the config with the
rope_parameters swapped in. SmolLM2 lacks some features, so those bugs run on a variant of it, each named by
``BUG_SETUPS`` (what the pages say it is):

- ``permute``: SmolLM2's W_q and W_k rows put back into Meta's interleaved order (``half_rows_to_interleaved``),
  then converted with and without the permutation; rotated with the model's own half-split RoPE.
- ``p_rope`` and ``partial_whole``: SmolLM2 with its 8 slowest pairs frozen (p-RoPE with the fastest 24 of 32 pairs,
  transformers' ``proportional`` type). For ``partial_whole`` the same model is laid out as a partial-rotary one
  (rotary_dim 48 of 64, base 100000^(48/64), the frozen pairs' 16 dimensions moved to the end of each head: the
  same scores, since q and k are permuted alike).
- ``left_pad``: the text's first ``LEFT_PAD_PROMPT`` tokens as a left-padded prompt (pads masked, so they change
  nothing), every later token as a decoded one at ``next_position`` or one further.
- ``yarn_mscale``: YaRN at s = 4 over SmolLM2's 8,192 positions, with and without its attention factor.
- ``dynamic_cache``: dynamic NTK at s = 2; the stretch read with its own frequencies, or with those of a
  16,384-token sequence read before it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._checks import as_choice, as_int
from ..rope.layouts import half_rows_to_interleaved
from .long_context import SMOLLM2_BASE, SMOLLM2_CONTEXT, SMOLLM2_HEAD_DIM
from .porting_bugs import PORTING_BUGS, left_pad_positions

__all__ = [
    "BUG_SETUPS",
    "BUG_TEXT_START",
    "BUG_TOKENS",
    "DYNAMIC_CACHED",
    "LEFT_PAD_PROMPT",
    "P_ROPE_TURNING",
    "SHIPPED_LONG_TOKENS",
    "WEIGHT_OFFSETS",
    "YARN_PARAMETERS",
    "BugSummary",
    "PortingBugRun",
    "load_porting_bugs",
    "porting_bug_run",
    "porting_bug_summary",
    "save_porting_bugs",
    "shipped_porting_bugs",
]

BUG_TEXT_START = 20000  # the stretch of the shipped text every bug is measured on
BUG_TOKENS = 128  # its length: short, so that the test suite can measure it again
SHIPPED_LONG_TOKENS = 1024  # the longer shipped run
MAX_BUG_TOKENS = 4096
P_ROPE_TURNING = 24  # of SmolLM2's 32 pairs; the 8 slowest (wavelengths 2.2e4 to 4.2e5 tokens) are frozen
LEFT_PAD_PROMPT = 32  # prompt tokens before the decoded ones
LEFT_PAD_PADS = 5  # pads before the prompt (masked: they change no score)
YARN_PARAMETERS = {"rope_type": "yarn", "rope_theta": SMOLLM2_BASE, "factor": 4.0,
                   "original_max_position_embeddings": SMOLLM2_CONTEXT}  # a config payload
DYNAMIC_FACTOR = 2.0
DYNAMIC_CACHED = 16384  # the longer sequence read before, whose frequencies the bug keeps
WEIGHT_OFFSETS = 32  # layer 1's mean attention weight at offsets 0 .. 32
PARTIAL_FACTOR = 2 * P_ROPE_TURNING / SMOLLM2_HEAD_DIM  # 0.75: rotary_dim 48 of 64
PARTIAL_BASE = SMOLLM2_BASE ** PARTIAL_FACTOR  # the same frequencies over rotary_dim 48
BUG_SETUPS = {"permute": "meta_rows", "p_rope": "p_rope", "bf16_inv_freq": "smollm2", "left_pad": "smollm2",
              "partial_whole": "partial", "yarn_mscale": "yarn", "dynamic_cache": "smollm2"}  # bug -> its model


@dataclass(frozen=True)
class PortingBugRun:
    """Loss (nats) of predicting each next token of one stretch, with each bug's correct and buggy computation
    (``porting_bug_run``); saved as JSON with the same keys.

    start, tokens: the stretch of the shipped text. plain: (tokens - 1,) SmolLM2 as it is.
    correct, buggy: {bug: (tokens - 1,) losses}. weight_plain: (WEIGHT_OFFSETS + 1,) layer 1's mean attention
    weight at offsets 0 .. 32 (mean over heads and queries). weight_correct, weight_buggy: {bug: the same}.
    seconds: {run: seconds}. model, command, date, machine: how it was made ("" when not recorded).
    """

    start: int
    tokens: int
    plain: list[float]
    correct: dict[str, list[float]]
    buggy: dict[str, list[float]]
    weight_plain: list[float]
    weight_correct: dict[str, list[float]]
    weight_buggy: dict[str, list[float]]
    seconds: dict[str, float]
    model: str = ""
    command: str = ""
    date: str = ""
    machine: str = ""


def _permutation_to_partial() -> np.ndarray:
    """(64,) index: the p-RoPE head laid out as a partial-rotary one: turning pairs' halves first, frozen last."""
    half, k = SMOLLM2_HEAD_DIM // 2, P_ROPE_TURNING
    return np.r_[0:k, half:half + k, k:half, half + k:2 * half]


def _project(attn: Any, normed: Any, weight: Any = None) -> tuple[Any, Any]:
    """(1, heads, n, 64) queries and (1, kv heads, n, 64) keys of a layer (``weight``: (W_q, W_k) to use)."""
    import torch.nn.functional as F

    n, d = normed.shape[1], attn.head_dim
    w_q, w_k = weight if weight is not None else (attn.q_proj.weight, attn.k_proj.weight)
    q = F.linear(normed, w_q).view(1, n, -1, d).transpose(1, 2)
    k = F.linear(normed, w_k).view(1, n, -1, d).transpose(1, 2)
    return q, k


def _converted(model: Any, convert: Callable) -> list[tuple[Any, Any]]:
    """Each layer's (W_q, W_k) as Meta's file holds them, converted by ``convert`` (the bug's correct or buggy
    function)."""
    import torch

    c = model.config
    out = []
    for layer in model.model.layers:
        pair = []
        for w, heads in ((layer.self_attn.q_proj.weight, c.num_attention_heads),
                         (layer.self_attn.k_proj.weight, c.num_key_value_heads)):
            meta = half_rows_to_interleaved(w.detach().double().numpy(), heads)  # (heads * 64, 576)
            pair.append(torch.from_numpy(convert(meta, heads)).float())
        out.append(tuple(pair))
    return out


def _rope(positions: np.ndarray, inv_freq: Any, attention_factor: float = 1.0) -> Callable:
    from ..rope.rotation import apply_rope

    return lambda x: apply_rope(x, positions, inv_freq, "half", attention_factor=attention_factor)


def _left_pad_positions(fn: Callable, n: int) -> np.ndarray:
    """(n,) positions: a prompt of LEFT_PAD_PROMPT tokens after LEFT_PAD_PADS pads, then decoded tokens placed
    by ``fn(mask, step)`` (``next_position`` or its bug)."""
    mask = np.r_[np.zeros(LEFT_PAD_PADS, int), np.ones(LEFT_PAD_PROMPT, int)][None]  # (1, pads + prompt)
    prompt = left_pad_positions(mask)[0, LEFT_PAD_PADS:]  # (prompt,) 0 .. prompt - 1
    decoded = [int(fn(mask, step)[0]) for step in range(n - LEFT_PAD_PROMPT)]
    return np.r_[prompt, decoded]


def _model_inv_freq() -> np.ndarray:
    return PORTING_BUGS["bf16_inv_freq"].correct(SMOLLM2_HEAD_DIM, SMOLLM2_BASE)  # (32,) float32


# bug -> (model, the bug's correct or buggy function, n) -> (each layer's (W_q, W_k) or None, rotate(x) -> x)
Rotation = tuple[list | None, Callable[[Any], Any]]
_ROTATIONS: dict[str, Callable[[Any, Callable, int], Rotation]] = {
    "permute": lambda model, fn, n: (_converted(model, fn), _rope(np.arange(n), _model_inv_freq())),
    "p_rope": lambda model, fn, n: (None, _with_inv_freq(fn, np.arange(n), _proportional_inv_freq(model))),
    "bf16_inv_freq": lambda model, fn, n: (None, _rope(np.arange(n), fn(SMOLLM2_HEAD_DIM, SMOLLM2_BASE))),
    "left_pad": lambda model, fn, n: (None, _rope(_left_pad_positions(fn, n), _model_inv_freq())),
    "partial_whole": lambda model, fn, n: (None, lambda x: fn(x[..., _permutation_to_partial()], np.arange(n),
                                                              PARTIAL_BASE, PARTIAL_FACTOR)),
    "yarn_mscale": lambda model, fn, n: (None, _rope(np.arange(n), _yarn_inv_freq(model), fn(YARN_PARAMETERS))),
    "dynamic_cache": lambda model, fn, n: (None, _rope(np.arange(n), fn(n, DYNAMIC_CACHED, SMOLLM2_HEAD_DIM,
                                                                        SMOLLM2_BASE, DYNAMIC_FACTOR,
                                                                        SMOLLM2_CONTEXT))),
}


def _with_inv_freq(fn: Callable, positions: np.ndarray, inv_freq: np.ndarray) -> Callable[[Any], Any]:
    return lambda x: fn(x, positions, inv_freq)  # inv_freq built once per run, not per layer


def _proportional_inv_freq(model: Any) -> np.ndarray:
    """(32,) p-RoPE frequencies from transformers' own ``proportional`` rotary: the fastest 24 turn, 8 zeros."""
    from .smollm2 import smollm2_rotary

    params = {"rope_type": "proportional", "rope_theta": SMOLLM2_BASE,
              "partial_rotary_factor": PARTIAL_FACTOR}  # a config payload
    return smollm2_rotary(model, params).inv_freq.numpy()


def _yarn_inv_freq(model: Any) -> np.ndarray:
    from .smollm2 import smollm2_rotary

    return smollm2_rotary(model, YARN_PARAMETERS).inv_freq.numpy()  # (32,) transformers' YaRN frequencies


def _offset_weights(q: Any, k: Any, scaling: float) -> list[float]:
    """Mean attention weight at offsets 0 .. WEIGHT_OFFSETS of one layer (mean over heads and queries)."""
    import torch

    n = q.shape[2]
    k = k.repeat_interleave(q.shape[1] // k.shape[1], dim=1)  # (1, heads, n, 64): grouped keys
    scores = (q @ k.transpose(-1, -2))[0] * scaling  # (heads, n, n)
    scores = scores.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    weights = scores.softmax(-1).mean(0).double().numpy()  # (n, n)
    return [round(float(np.diagonal(weights, -r).mean()), 6) for r in range(min(WEIGHT_OFFSETS + 1, n))]


def _measure(model: Any, ids: Any, rotation: Rotation | None) -> tuple[list[float], list[float]]:
    """One forward pass: the losses (5 decimals) and layer 1's attention by offset."""
    from .smollm2 import smollm2_forward, smollm2_token_losses

    weights, rotate = rotation if rotation is not None else (None, _rope(np.arange(ids.shape[1]), _model_inv_freq()))
    first: dict[str, list[float]] = {}

    def qk(index: int, attn: Any, normed: Any) -> tuple[Any, Any]:
        q, k = _project(attn, normed, None if weights is None else weights[index])
        q, k = rotate(q), rotate(k)
        if index == 0:
            first["weight"] = _offset_weights(q, k, attn.scaling)
        return q, k

    hidden = smollm2_forward(model, ids, qk=qk)
    losses = smollm2_token_losses(model, hidden, ids)
    return [round(float(x), 5) for x in losses], first["weight"]


def porting_bug_run(start: int = BUG_TEXT_START, tokens: int = BUG_TOKENS, bugs: tuple[str, ...] = tuple(PORTING_BUGS),
                    progress: Callable[[str], None] | None = None) -> PortingBugRun:
    """Measure each bug on SmolLM2: ``tokens`` shipped-text tokens from token ``start``, one forward pass per run.

    Where the bug's correct computation is SmolLM2's own (``BUG_SETUPS`` value ``smollm2`` or ``meta_rows``: the
    same weights, positions and frequencies), its correct losses are the plain run's; the others run both.
    ``progress(run name)`` is called before each run.
    """
    from .models import load_smollm2, require_libraries
    from .text import text_tokens

    tokens = as_int("tokens", tokens, minimum=LEFT_PAD_PROMPT + 2, maximum=MAX_BUG_TOKENS)
    names = [as_choice("bug", b, tuple(PORTING_BUGS)) for b in bugs]
    token_ids = text_tokens(as_int("start", start, minimum=0), tokens)
    require_libraries("The porting-bug runs", "torch", "transformers")
    import torch

    _, model = load_smollm2()
    ids = torch.tensor([token_ids])  # (1, n)
    seconds: dict[str, float] = {}
    results: dict[str, tuple[list[float], list[float]]] = {}
    runs = [("plain", None)] + [(f"{b}/{kind}", b) for b in names for kind in ("correct", "buggy")
                                if kind == "buggy" or BUG_SETUPS[b] not in ("smollm2", "meta_rows")]
    for run, bug in runs:
        if progress is not None:
            progress(run)
        began = time.perf_counter()
        rotation = None
        if bug is not None:
            pair = PORTING_BUGS[bug]
            rotation = _ROTATIONS[bug](model, pair.buggy if run.endswith("buggy") else pair.correct, tokens)
        results[run] = _measure(model, ids, rotation)
        seconds[run] = round(time.perf_counter() - began, 1)
    correct = {b: results.get(f"{b}/correct", results["plain"]) for b in names}
    return PortingBugRun(start=int(start), tokens=tokens, plain=results["plain"][0],
                         correct={b: v[0] for b, v in correct.items()},
                         buggy={b: results[f"{b}/buggy"][0] for b in names}, weight_plain=results["plain"][1],
                         weight_correct={b: v[1] for b, v in correct.items()},
                         weight_buggy={b: results[f"{b}/buggy"][1] for b in names}, seconds=seconds)


@dataclass(frozen=True)
class BugSummary:
    """One bug's numbers from a ``PortingBugRun`` (``porting_bug_summary``); losses in nats.

    plain, correct, buggy: mean loss of SmolLM2 as it is, with the bug's correct and its buggy computation.
    change: buggy - correct. ratio: e to the change (how many times the perplexity grows).
    position: (bins,) middle position of each bin. correct_curve, buggy_curve, plain_curve: (bins,) mean loss per
    bin.
    offsets: (offsets,) 0 .. 32. weight_correct, weight_buggy: (offsets,) layer 1's mean attention weight.
    previous_ratio: weight_buggy / weight_correct at offset 1 (the previous token).
    worst_position: the bin middle where the two curves are furthest apart.
    tokens: the stretch's length. bin_size: positions per bin. setup: the model it ran on (``BUG_SETUPS``).
    """

    plain: float
    correct: float
    buggy: float
    change: float
    ratio: float
    position: np.ndarray
    correct_curve: np.ndarray
    buggy_curve: np.ndarray
    plain_curve: np.ndarray
    offsets: np.ndarray
    weight_correct: np.ndarray
    weight_buggy: np.ndarray
    previous_ratio: float
    worst_position: float
    tokens: int
    bin_size: int
    setup: str


def porting_bug_summary(run: PortingBugRun, bug: str, bin_size: int | None = None) -> BugSummary:
    """The numbers the lesson shows for ``bug``, the per-position losses binned by ``bin_size`` positions (by
    default a sixteenth of the stretch: 8 of 128, 64 of 1,024)."""
    from .long_context import binned_loss

    bug = as_choice("bug", bug, tuple(run.buggy))
    bin_size = max(1, run.tokens // 16) if bin_size is None else bin_size
    bin_size = as_int("bin size", bin_size, minimum=1, maximum=max(1, run.tokens - 1))
    correct = np.asarray(run.correct[bug], dtype=np.float64)  # (tokens - 1,)
    buggy = np.asarray(run.buggy[bug], dtype=np.float64)
    binned_c, binned_b = binned_loss(correct, bin_size), binned_loss(buggy, bin_size)
    position = binned_c.start + bin_size / 2
    change = float(buggy.mean() - correct.mean())
    return BugSummary(plain=float(np.mean(run.plain)), correct=float(correct.mean()), buggy=float(buggy.mean()),
                      change=change, ratio=float(np.exp(change)), position=position, correct_curve=binned_c.loss,
                      buggy_curve=binned_b.loss, plain_curve=binned_loss(np.asarray(run.plain), bin_size).loss,
                      offsets=np.arange(len(run.weight_correct[bug])),
                      weight_correct=np.asarray(run.weight_correct[bug]),
                      weight_buggy=np.asarray(run.weight_buggy[bug]),
                      previous_ratio=float(run.weight_buggy[bug][1] / run.weight_correct[bug][1]),
                      worst_position=float(position[np.argmax(np.abs(binned_b.loss - binned_c.loss))]),
                      tokens=run.tokens, bin_size=bin_size, setup=BUG_SETUPS[bug])


def save_porting_bugs(run: PortingBugRun, path: str | os.PathLike) -> None:
    """Write the run as JSON (the keys of ``PortingBugRun``), atomically."""
    path = Path(path)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(dataclasses.asdict(run)))
    os.replace(tmp, path)


def load_porting_bugs(path: str | os.PathLike) -> PortingBugRun:
    """A saved ``porting_bug_run``, checked: every bug has losses of the stretch's length."""
    try:
        data: Mapping[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
        fields = {f.name for f in dataclasses.fields(PortingBugRun)}
        run = PortingBugRun(**{k: v for k, v in data.items() if k in fields})
        lengths = {len(run.plain), *(len(v) for v in run.correct.values()), *(len(v) for v in run.buggy.values())}
    except (OSError, ValueError, TypeError, AttributeError) as error:
        raise ValueError(f"Could not read the porting-bug results {path}: {error}") from None
    if lengths != {run.tokens - 1} or set(run.correct) != set(run.buggy):
        raise ValueError(f"{path} does not hold one loss per position for every bug.")
    return run


_DATA = Path(__file__).resolve().parent / "data"  # package data
SHIPPED_PORTING_BUGS = {BUG_TOKENS: _DATA / "smollm2_porting_bugs.json",
                        SHIPPED_LONG_TOKENS: _DATA / "smollm2_porting_bugs_1024.json"}  # tokens -> file


def shipped_porting_bugs(tokens: int = BUG_TOKENS) -> PortingBugRun:
    """A shipped run, every bug, from ``BUG_TEXT_START``: ``BUG_TOKENS`` (128, measured again by the tests) or
    ``SHIPPED_LONG_TOKENS`` (1,024, where the errors that grow with the position show; its first 127 losses are the
    short run's)."""
    tokens = as_int("tokens", tokens)
    if tokens not in SHIPPED_PORTING_BUGS:
        raise ValueError(f"The shipped porting-bug runs are {' and '.join(map(str, SHIPPED_PORTING_BUGS))} tokens "
                         f"long, not {tokens}.")
    return load_porting_bugs(SHIPPED_PORTING_BUGS[tokens])
