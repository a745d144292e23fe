"""A tiny causal transformer whose only difference between runs is how it is told about position.

Imported lazily (it imports torch): ``posenc_core`` itself works without torch. The position
tables come from the core (``sinusoidal``, ``rope_inv_freq``, ``apply_rope``, ``alibi_bias``,
``t5_bucket_grid``), so the lab trains with exactly the code the other lessons plot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._backend import require_torch
from ..absolute.sinusoidal import sinusoidal
from ..attention_bias.biases import alibi_bias, t5_bucket_grid
from ..rope import apply_rope
from ..rope.frequencies import rope_inv_freq
from .methods import LAB_METHODS

require_torch("The lab's tiny transformer")  # a MissingExtraError naming the torch extra, without torch
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

__all__ = ["POSITION_INPUTS", "POSITION_PARAMETERS", "ROPE_BASE", "Attention", "Block", "ModelConfig",
           "TinyTransformer", "as_tensor", "causal_mask", "loss_and_accuracy", "rope_scaling_for"]

ROPE_BASE = 10000.0
T5_BUCKETS, T5_MAX_DISTANCE = 32, 128  # T5's decoder values (causal, so all 32 buckets look back)


@dataclass(frozen=True)
class ModelConfig:
    vocab: int = 16
    train_len: int = 32  # T: the learned table has exactly this many rows
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4  # head_dim = 16, so RoPE rotates 8 pairs
    d_mlp: int = 256  # the usual 4 x width


def causal_mask(length: int, device) -> torch.Tensor:
    """0 on and below the diagonal, -inf above: query i sees keys j <= i. Shape (L, L)."""
    return torch.full((length, length), float("-inf"), device=device).triu(1)


class Attention(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.n_heads, self.head_dim = cfg.n_heads, cfg.d_model // cfg.n_heads
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model, bias=False)
        self.out = nn.Linear(cfg.d_model, cfg.d_model, bias=False)

    def forward(self, x, bias, rope):
        B, L, D = x.shape
        q, k, v = self.qkv(x).view(B, L, 3, self.n_heads, self.head_dim).permute(2, 0, 3, 1, 4)  # 3 x (B, h, L, hd)
        if rope is not None:
            positions, inv_freq, factor = rope
            q = apply_rope(q, positions, inv_freq, "half", seq_axis=-2, attention_factor=factor)
            k = apply_rope(k, positions, inv_freq, "half", seq_axis=-2, attention_factor=factor)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + bias  # (B, h, L, L)
        attn = scores.softmax(dim=-1)
        y = (attn @ v).transpose(1, 2).reshape(B, L, D)  # (B, L, D)
        return self.out(y), attn


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(cfg.d_model), nn.LayerNorm(cfg.d_model)
        self.attn = Attention(cfg)
        self.mlp = nn.Sequential(nn.Linear(cfg.d_model, cfg.d_mlp), nn.GELU(), nn.Linear(cfg.d_mlp, cfg.d_model))

    def forward(self, x, bias, rope):
        a, attn = self.attn(self.ln1(x), bias, rope)
        x = x + a
        return x + self.mlp(self.ln2(x)), attn


# What each trained method of LAB_METHODS gives the model (the inference-only variants run the "rope" model):
# name -> fn(model, length, rope_scaling, mask) -> (added (L, D) or None, attention bias (h or 1, L, L),
# rope args (positions, inv_freq, attention factor) or None). mask is the causal mask (L, L).
def _nope(model, length, rope_scaling, mask):
    return None, mask, None


def _sinusoidal(model, length, rope_scaling, mask):
    added = model._table(("sin", length, mask.device), lambda: torch.from_numpy(
        sinusoidal(length, model.cfg.d_model)).to(mask.device))  # (L, D)
    return added, mask, None


def _learned(model, length, rope_scaling, mask):
    if length > model.cfg.train_len:
        raise ValueError(f"The learned table has {model.cfg.train_len} rows (positions 0..{model.cfg.train_len - 1}); "
                         f"a sequence of {length} tokens needs rows that were never created.")
    return model.pos_table.weight[:length], mask, None  # (L, D)


def _alibi(model, length, rope_scaling, mask):
    bias = model._table(("alibi", length, mask.device), lambda: torch.from_numpy(
        alibi_bias(model.cfg.n_heads, length)).to(mask.device))  # (h, L, L), -inf above the diagonal
    return None, bias, None


def _t5(model, length, rope_scaling, mask):
    buckets = model._table(("t5", length, mask.device), lambda: torch.from_numpy(
        t5_bucket_grid(length, bidirectional=False, num_buckets=T5_BUCKETS,
                       max_distance=T5_MAX_DISTANCE)).to(mask.device))  # (L, L) bucket of key - query
    return None, model.t5_bias(buckets).permute(2, 0, 1) + mask, None  # (h, L, L); shared by all layers, as in T5


def _rope(model, length, rope_scaling, mask):
    cfg = model.cfg
    inv_freq, factor = rope_inv_freq(cfg.d_model // cfg.n_heads, ROPE_BASE, rope_scaling)
    return None, mask, (torch.arange(length, device=mask.device), torch.from_numpy(inv_freq).to(mask.device), factor)


POSITION_INPUTS = {"none": _nope, "sinusoidal": _sinusoidal, "learned": _learned, "alibi": _alibi, "t5": _t5,
                   "rope": _rope}


def _learned_table(model, cfg):
    model.pos_table = nn.Embedding(cfg.train_len, cfg.d_model)
    nn.init.normal_(model.pos_table.weight, std=1.0)  # the same scale as the token embeddings


def _t5_scalars(model, cfg):
    model.t5_bias = nn.Embedding(T5_BUCKETS, cfg.n_heads)  # one learned scalar per bucket and head
    nn.init.zeros_(model.t5_bias.weight)


# The methods with parameters of their own: name -> fn(model, cfg) that creates them.
POSITION_PARAMETERS = {"learned": _learned_table, "t5": _t5_scalars}


class TinyTransformer(nn.Module):
    """Pre-LN decoder: embed -> (+ absolute position) -> n_layers x [attention, MLP] -> logits.

    ``method`` is one of the trained methods (a key of ``POSITION_INPUTS``); ``rope_scaling`` (a transformers
    rope_scaling dict) changes the RoPE frequencies at inference only.
    """

    def __init__(self, method: str, cfg: ModelConfig):
        super().__init__()
        if method not in POSITION_INPUTS:
            raise ValueError(f"Unknown lab method '{method}': the trained methods are {', '.join(POSITION_INPUTS)}.")
        self.method, self.cfg = method, cfg
        self.embed = nn.Embedding(cfg.vocab, cfg.d_model)
        if method in POSITION_PARAMETERS:
            POSITION_PARAMETERS[method](self, cfg)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab)
        self._tables: dict = {}  # fixed position tables per (length, device), built once

    def _table(self, key, build):
        if key not in self._tables:
            self._tables[key] = build()
        return self._tables[key]

    def position_inputs(self, length: int, rope_scaling: dict[str, Any] | None = None):
        """What the method adds: (embedding or None, attention bias (h or 1, L, L), rope args or None)."""
        if rope_scaling is not None and self.method != "rope":
            raise ValueError("rope_scaling only applies to the RoPE model.")
        dev = self.embed.weight.device
        mask = self._table(("mask", length, dev), lambda: causal_mask(length, dev))  # (L, L)
        return POSITION_INPUTS[self.method](self, length, rope_scaling, mask)

    def forward(self, tokens, rope_scaling: dict[str, Any] | None = None, return_attention: bool = False):
        """tokens (B, L) int64 -> logits (B, L, vocab) [, list of n_layers attention maps (B, h, L, L)]."""
        added, bias, rope = self.position_inputs(tokens.shape[1], rope_scaling)
        x = self.embed(tokens)  # (B, L, D)
        if added is not None:
            x = x + added
        maps = []
        for block in self.blocks:
            x, attn = block(x, bias, rope)
            maps.append(attn)
        logits = self.head(self.ln_f(x))
        return (logits, maps) if return_attention else logits


def rope_scaling_for(method: str, length: int, train_len: int) -> dict[str, Any] | None:  # a config payload
    """The rope_scaling dict an inference-only variant uses at ``length`` (None within the trained length)."""
    rope_type = LAB_METHODS[method].rope_type
    if rope_type is None or length <= train_len:
        return None
    factor = length / train_len
    if rope_type == "yarn":
        return {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": train_len}
    return {"rope_type": rope_type, "factor": factor}


def loss_and_accuracy(logits, targets, ignore: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean cross-entropy and accuracy over the scored positions."""
    flat_logits, flat_targets = logits.reshape(-1, logits.shape[-1]), targets.reshape(-1)
    loss = F.cross_entropy(flat_logits, flat_targets, ignore_index=ignore)
    scored = flat_targets != ignore
    accuracy = (flat_logits.argmax(-1)[scored] == flat_targets[scored]).float().mean()
    return loss, accuracy


def as_tensor(array: np.ndarray, device) -> torch.Tensor:
    return torch.from_numpy(array).to(device)
