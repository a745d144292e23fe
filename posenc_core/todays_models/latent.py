"""Multi-head latent attention (MLA) and its decoupled RoPE, as transformers' DeepseekV3Attention computes it.

MLA caches one compressed vector per token (``kv_lora_rank`` values) instead of per-head keys and
values. A rotation between that latent and the score would depend on the key's position, so the
up-projection could no longer be folded into the query; MLA therefore rotates only a separate slice:
each head's query gets ``qk_rope_head_dim`` extra dimensions, and every token gets ONE rotated key of
that size, shared by all heads and cached beside the latent. The score of head h is

    s_h(i, j) = scale * ( q_nope_h(i) . k_nope_h(j)  +  R(i) q_rot_h(i) . R(j) k_rot(j) )
                          content term                   position term

with scale = qk_head_dim^-1/2 * mscale(factor, mscale_all_dim)^2 under YaRN
(``yarn_apply_mscale`` in transformers' modeling_deepseek_v3.py). numpy only.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from .._backend import keeps_kind
from .._checks import MAX_POSITIONS, as_choice, as_int, check_size
from .._types import ArrayOrTensor
from ..rope import apply_rope
from ..rope.frequencies import rope_inv_freq, yarn_mscale

if TYPE_CHECKING:
    from ..configs.rope_config import LayerFact

__all__ = [
    "KV_CACHE_DTYPES",
    "MLA_PRESETS",
    "GQA_REFERENCE",
    "KV_LAYOUTS",
    "KvCachePerToken",
    "LatentConfig",
    "MlaScores",
    "MlaShiftChange",
    "MlaSoftmaxScale",
    "MLA_CONFIGS",
    "kv_cache_per_token",
    "latent_config",
    "mla_demo_scores",
    "mla_layout_gap",
    "mla_shift_change",
    "MlaWeights",
    "mla_random_weights",
    "mla_scores",
    "mla_softmax_scale",
    "mla_tiny_config",
]

KV_CACHE_DTYPES = {"bfloat16": 2, "float8": 1, "float32": 4}  # bytes per cached value
RMS_EPS = 1e-6  # DeepseekV3Config.rms_norm_eps


@dataclass(frozen=True)
class LatentConfig:
    """The attention sizes of an MLA model, with transformers' DeepseekV3Config field names."""

    hidden_size: int
    num_attention_heads: int
    num_hidden_layers: int
    q_lora_rank: int | None  # None: a plain q_proj (DeepSeek V2-Lite style)
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int
    rope_parameters: dict = field(default_factory=dict)  # rope_theta, rope_type, factor, mscale_all_dim, ...
    rope_interleave: bool = True
    max_position_embeddings: int = 4096
    source: str = ""  # where the sizes come from: a code the pages word (MLA_PRESETS), or the caller's note

    @property
    def qk_head_dim(self) -> int:
        return self.qk_nope_head_dim + self.qk_rope_head_dim


def _yarn(theta, factor, original, mscale=1.0, mscale_all_dim=1.0, beta_fast=32.0, beta_slow=1.0):
    return {"rope_type": "yarn", "rope_theta": theta, "factor": factor, "original_max_position_embeddings": original,
            "mscale": mscale, "mscale_all_dim": mscale_all_dim, "beta_fast": beta_fast, "beta_slow": beta_slow}


# Sizes from each model's published config.json / transformers' config class (``source``: a code the latent page
# words with the file and fields it cites).
MLA_PRESETS: dict[str, LatentConfig] = {
    "DeepSeek V3": LatentConfig(
        7168, 128, 61, 1536, 512, 128, 64, 128, _yarn(10000.0, 40.0, 4096), True, 163840, "deepseek_v3"),
    "Kimi K2 (0905)": LatentConfig(
        7168, 64, 61, 1536, 512, 128, 64, 128, _yarn(50000.0, 64.0, 4096, beta_fast=1.0, beta_slow=1.0), True,
        262144, "kimi_k2_0905"),
    "GLM-5": LatentConfig(
        6144, 64, 78, 2048, 512, 192, 64, 256, {"rope_type": "default", "rope_theta": 10000.0}, True, 202752,
        "glm5"),
    "Mistral Small 4": LatentConfig(
        4096, 32, 36, 1024, 256, 64, 64, 128, _yarn(10000.0, 128.0, 8192), True, 1048576, "mistral_small_4"),
}

# The config.json each preset's sizes come from, as the config pages read them (``read_layers``); ``latent_config``
# turns one into a LatentConfig, and the tests hold MLA_PRESETS equal to it, so this page and Layer by layer agree.
MLA_CONFIGS: dict[str, dict] = {
    "DeepSeek V3": {"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128,
                    "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "max_position_embeddings": 163840,
                    "rope_theta": 10000, "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0,
                                                          "mscale_all_dim": 1.0,
                                                          "original_max_position_embeddings": 4096, "type": "yarn"}},
    "Kimi K2 (0905)": {"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 64,
                       "num_hidden_layers": 61, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                       "qk_nope_head_dim": 128, "v_head_dim": 128, "max_position_embeddings": 262144,
                       "rope_theta": 50000.0,
                       "rope_scaling": {"beta_fast": 1.0, "beta_slow": 1.0, "factor": 64.0, "mscale": 1.0,
                                        "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096,
                                        "type": "yarn"}},
    "GLM-5": {"model_type": "glm_moe_dsa"},
    "Mistral Small 4": {"model_type": "mistral4", "hidden_size": 4096, "num_attention_heads": 32,
                        "num_hidden_layers": 36, "head_dim": 128, "q_lora_rank": 1024, "kv_lora_rank": 256,
                        "qk_rope_head_dim": 64, "qk_nope_head_dim": 64, "v_head_dim": 128,
                        "max_position_embeddings": 1048576,
                        "rope_parameters": {"type": "yarn", "rope_theta": 10000.0, "factor": 128.0,
                                            "original_max_position_embeddings": 8192,
                                            "max_position_embeddings": 1048576, "beta_fast": 32.0, "beta_slow": 1.0,
                                            "mscale_all_dim": 1.0, "mscale": 1.0, "llama_4_scaling_beta": 0.1,
                                            "partial_rotary_factor": 0.5}},
}


def latent_config(config: Mapping, source: str = "") -> tuple[LatentConfig, list[LayerFact]]:
    """A config.json read through the one config reading (``read_layers``) as MLA sizes, with the layer facts the
    config pages show for its first latent layer (``LayerFact``: a code and the config's numbers).

    The rotated slice is the reading's rotated pairs x 2 (Mistral Small 4: half of a 128-dim head), its base and
    scaling the layer's RoPE setting. ``rope_interleave`` is the config's; a class without the field (GLM-5's
    GlmMoeDsaConfig) runs ``apply_rotary_pos_emb_interleave`` unconditionally.
    """
    from ..configs import layer_facts, read_layers  # the config reading imports transformers only when it runs

    reading, rows = read_layers(config)
    row = next((r for r in rows if r.rotates and r.latent), None)
    if row is None:
        raise ValueError("No layer of this config uses latent attention with a rotation (kv_lora_rank and "
                         "qk_rope_head_dim), so there is no shared rotated key to show.")
    if row.qk_nope_head_dim is None or row.max_position_embeddings is None:
        raise ValueError("Latent attention needs qk_nope_head_dim and max_position_embeddings in the config; this "
                         "one lacks one of them.")
    rope = {k: v for k, v in row.scaling.items() if k in ("rope_type", "factor", "original_max_position_embeddings",
                                                          "mscale", "mscale_all_dim", "beta_fast", "beta_slow")}
    latent = LatentConfig(
        int(reading.get("hidden_size")), int(reading.get("num_attention_heads")), len(rows),
        None if reading.get("q_lora_rank") is None else int(reading.get("q_lora_rank")),
        int(reading.get("kv_lora_rank")), int(row.qk_nope_head_dim), 2 * row.rotated_pairs,
        int(reading.get("v_head_dim")), {"rope_theta": row.theta, **rope}, bool(reading.get("rope_interleave", True)),
        int(row.max_position_embeddings), source)
    return latent, layer_facts(row)


# A grouped-query model for the cache comparison (not MLA): GLM-4.5 keeps 8 key-value heads of 128.
# transformers' Glm4MoeConfig defaults (checkpoint zai-org/GLM-4.5)
GQA_REFERENCE: dict[str, Any] = {"name": "GLM-4.5 (GQA)", "num_hidden_layers": 46, "num_attention_heads": 96,
                 "num_key_value_heads": 8, "head_dim": 128, "partial_rotary_factor": 0.5, "source": "glm_4_5"}


def mla_tiny_config(preset: str, heads: int = 4, hidden: int = 256) -> LatentConfig:
    """The preset's per-head sizes and rope settings with few heads and a small hidden size (for live scores)."""
    cfg = MLA_PRESETS[as_choice("preset", preset, tuple(MLA_PRESETS))]
    heads = as_int("heads", heads, minimum=1, maximum=16)
    hidden = as_int("hidden", hidden, minimum=8, maximum=1024)
    values = asdict(cfg) | {"num_attention_heads": heads, "hidden_size": hidden}
    return LatentConfig(**values)


@dataclass(frozen=True)
class MlaSoftmaxScale:
    """The softmax scale of an MLA layer (``mla_softmax_scale``).

    base: qk_head_dim^-1/2.
    mscale: the YaRN factor mscale(factor, mscale_all_dim) (1 when unused).
    scale: base * mscale^2, what multiplies q . k.
    attention_factor: the factor that multiplies cos and sin of the rotated slice.
    """

    base: float
    mscale: float
    scale: float
    attention_factor: float


def mla_softmax_scale(cfg: LatentConfig) -> MlaSoftmaxScale:
    """transformers' ``yarn_apply_mscale``: qk_head_dim^-1/2, times mscale(factor, mscale_all_dim)^2 under YaRN."""
    params = cfg.rope_parameters
    base = cfg.qk_head_dim ** -0.5
    mscale = 1.0
    if params.get("rope_type", "default") != "default" and params.get("mscale_all_dim"):
        mscale = yarn_mscale(float(params["factor"]), float(params["mscale_all_dim"]))
    _, attention_factor = _rope(cfg)
    return MlaSoftmaxScale(base=base, mscale=mscale, scale=base * mscale * mscale,
                           attention_factor=float(attention_factor))


def _rope(cfg: LatentConfig):
    params = dict(cfg.rope_parameters)
    theta = params.pop("rope_theta", 10000.0)
    scaling = params if params.get("rope_type", "default") != "default" else None
    return rope_inv_freq(cfg.qk_rope_head_dim, theta, scaling, max_position_embeddings=cfg.max_position_embeddings)


@dataclass(frozen=True)
class MlaWeights:
    """One MLA layer's weights in torch's nn.Linear layout, (out, in) float32; the RMSNorm weights (n,).
    h heads, d the hidden size, r = qk_rope_head_dim, c = kv_lora_rank.

    Attributes:
        kv_a: the joint down-projection to the latent and the shared rope key (``kv_a_proj_with_mqa``), (c + r, d).
        kv_a_norm: the latent's RMSNorm weight (``kv_a_layernorm``), (c,).
        kv_b: the latent's up-projection to the content keys and the values (``kv_b_proj``),
            (h · (qk_nope_head_dim + v_head_dim), c).
        q: the query projection without a query latent (``q_proj``), (h · qk_head_dim, d); None with one.
        q_a, q_a_norm, q_b: the query's down-projection (q_lora_rank, d), its RMSNorm weight (q_lora_rank,) and its
            up-projection (h · qk_head_dim, q_lora_rank) (``q_a_proj``, ``q_a_layernorm``, ``q_b_proj``); None
            without a query latent.
    """

    kv_a: np.ndarray
    kv_a_norm: np.ndarray
    kv_b: np.ndarray
    q: np.ndarray | None = None
    q_a: np.ndarray | None = None
    q_a_norm: np.ndarray | None = None
    q_b: np.ndarray | None = None


def mla_random_weights(cfg: LatentConfig, seed: int = 0) -> MlaWeights:
    """Gaussian weights in torch's (out, in) layout, std 1/sqrt(in) so activations stay O(1); norms at 1 (an
    ``MlaWeights``: ``q`` without a query latent, ``q_a``, ``q_a_norm``, ``q_b`` with one)."""
    rng = np.random.default_rng(as_int("seed", seed, minimum=0))
    h, d = cfg.num_attention_heads, cfg.hidden_size

    def linear(out, inp):
        check_size(out * inp, "A weight matrix")
        return (rng.standard_normal((out, inp)) / np.sqrt(inp)).astype(np.float32)

    kv_a = linear(cfg.kv_lora_rank + cfg.qk_rope_head_dim, d)
    kv_a_norm = np.ones(cfg.kv_lora_rank, np.float32)
    kv_b = linear(h * (cfg.qk_nope_head_dim + cfg.v_head_dim), cfg.kv_lora_rank)
    if cfg.q_lora_rank is None:
        return MlaWeights(kv_a=kv_a, kv_a_norm=kv_a_norm, kv_b=kv_b, q=linear(h * cfg.qk_head_dim, d))
    return MlaWeights(kv_a=kv_a, kv_a_norm=kv_a_norm, kv_b=kv_b, q_a=linear(cfg.q_lora_rank, d),
                      q_a_norm=np.ones(cfg.q_lora_rank, np.float32), q_b=linear(h * cfg.qk_head_dim, cfg.q_lora_rank))


def _rms_norm(x, weight):
    x = x.astype(np.float32)
    return weight * (x / np.sqrt((x * x).mean(-1, keepdims=True) + RMS_EPS))


@dataclass(frozen=True)
class MlaScores:
    """The attention scores of one MLA layer, split into its content and position terms (``mla_scores``).

    content: (h, L, L) q_nope . k_nope, unscaled.
    position: (h, L, L) R q_rot . R k_rot, unscaled.
    logits: (h, L, L) scale x (content + position), -inf above the diagonal (causal).
    probs: (h, L, L) float32 softmax of the logits.
    position_share: (h,) the position term's share of mean |content| + mean |position| over the causal pairs.
    k_rot: (L, r) the one rotated key per token, shared by every head.
    kv_latent: (L, kv_lora_rank) what the cache keeps.
    scale: the softmax scale.
    inv_freq: (r/2,) the rotated slice's inverse frequencies.
    """

    content: np.ndarray
    position: np.ndarray
    logits: np.ndarray
    probs: np.ndarray
    position_share: np.ndarray
    k_rot: np.ndarray
    kv_latent: np.ndarray
    scale: MlaSoftmaxScale
    inv_freq: np.ndarray


@keeps_kind
def _present(weight: np.ndarray | None, name: str) -> np.ndarray:
    if weight is None:
        raise ValueError(f"The weights lack {name}, which this config's query projection needs.")
    return weight


def mla_scores(hidden: ArrayLike, weights: MlaWeights, cfg: LatentConfig,
               positions: ArrayOrTensor | None = None) -> MlaScores:
    """The attention scores of one MLA layer, split into its content and position terms.

    Args:
        hidden: (L, hidden_size) token states entering attention.
        weights: an ``MlaWeights`` (torch nn.Linear weights, (out, in)), as ``mla_random_weights`` draws them.
        cfg: the sizes and rope settings.
        positions: (L,) position ids (default 0..L-1).

    Returns:
        an ``MlaScores``.
    """
    hidden = np.asarray(hidden, dtype=np.float32)
    if hidden.ndim != 2 or hidden.shape[1] != cfg.hidden_size:
        raise ValueError(f"hidden must have shape (tokens, {cfg.hidden_size}), but has {hidden.shape}.")
    length, h = hidden.shape[0], cfg.num_attention_heads
    as_int("tokens", length, minimum=1, maximum=4096)
    check_size(h * length * length, "The score grid")
    positions = np.arange(length) if positions is None else np.asarray(positions).reshape(-1)  # (L,)
    if positions.shape[0] != length or positions.min() < 0 or positions.max() >= MAX_POSITIONS * 64:
        raise ValueError(f"positions must hold {length} non-negative position ids.")
    nope = cfg.qk_nope_head_dim

    if cfg.q_lora_rank is None:
        q = hidden @ _present(weights.q, "q").T
    else:
        q = _rms_norm(hidden @ _present(weights.q_a, "q_a").T, _present(weights.q_a_norm, "q_a_norm")) @ \
            _present(weights.q_b, "q_b").T
    q = q.reshape(length, h, cfg.qk_head_dim).transpose(1, 0, 2)  # (h, L, nope + r)
    q_nope, q_rot = q[..., :nope], q[..., nope:]

    compressed = hidden @ weights.kv_a.T  # (L, kv_lora_rank + r): the latent and the shared rope key
    kv_latent = _rms_norm(compressed[:, :cfg.kv_lora_rank], weights.kv_a_norm)  # (L, kv_lora_rank)
    k_rot = compressed[:, cfg.kv_lora_rank:]  # (L, r), one per token, not per head
    kv = (kv_latent @ weights.kv_b.T).reshape(length, h, nope + cfg.v_head_dim).transpose(1, 0, 2)
    k_nope = kv[..., :nope]  # (h, L, nope)

    inv_freq, attention_factor = _rope(cfg)
    layout = "interleaved" if cfg.rope_interleave else "half"
    q_rot = apply_rope(q_rot, positions, inv_freq, layout, attention_factor=attention_factor)  # (h, L, r)
    k_rot = apply_rope(k_rot, positions, inv_freq, layout, attention_factor=attention_factor)  # (L, r)

    content = q_nope @ k_nope.transpose(0, 2, 1)  # (h, L, L)
    position = q_rot @ k_rot.T  # (h, L, L): the same k_rot for every head
    scale = mla_softmax_scale(cfg)
    logits = (content + position) * np.float32(scale.scale)
    logits = np.where(np.tril(np.ones((length, length), bool)), logits, -np.inf)
    shifted = np.exp(logits - logits.max(-1, keepdims=True))
    probs = shifted / shifted.sum(-1, keepdims=True)
    causal = np.tril(np.ones((length, length), bool))
    content_size, position_size = np.abs(content[:, causal]).mean(-1), np.abs(position[:, causal]).mean(-1)  # (h,)
    return MlaScores(content=content, position=position, logits=logits, probs=probs.astype(np.float32),
                     position_share=position_size / (content_size + position_size),  # (h,) of the mean |term|
                     k_rot=k_rot, kv_latent=kv_latent, scale=scale, inv_freq=inv_freq)


def mla_demo_scores(preset: str, heads: int = 4, tokens: int = 12, start: int = 0, seed: int = 0,
                    interleave: bool | None = None) -> MlaScores:
    """``mla_scores`` of the preset's per-head sizes with ``heads`` heads, hidden size 256 and random weights.

    The tokens sit at positions ``start .. start + tokens - 1``; ``interleave`` overrides the preset's
    ``rope_interleave`` (None keeps it), to read the same weights with the other pairing. Hidden states are
    seeded with ``seed + 1`` and weights with ``seed``, so a (preset, heads, tokens, seed) gives the same layer
    at every start.
    """
    cfg = mla_tiny_config(preset, heads=heads, hidden=256)
    if interleave is not None:
        cfg = LatentConfig(**(asdict(cfg) | {"rope_interleave": bool(interleave)}))
    tokens = as_int("tokens", tokens, minimum=1, maximum=4096)
    start = as_int("first position", start, minimum=0, maximum=MAX_POSITIONS * 64 - tokens)
    hidden = np.random.default_rng(as_int("seed", seed, minimum=0) + 1).standard_normal((tokens, 256))
    return mla_scores(hidden.astype(np.float32), _demo_weights(preset, heads, seed), cfg,
                      np.arange(start, start + tokens))  # hidden (tokens, 256)


@functools.lru_cache(maxsize=16)
def _demo_weights(preset: str, heads: int, seed: int) -> MlaWeights:
    """The demo layer's weights, drawn once per (preset, heads, seed): drawing them is most of a demo call's
    time (about 25 ms), and moving the tokens or their positions does not change them. Read-only, as shared."""
    weights = mla_random_weights(mla_tiny_config(preset, heads=heads, hidden=256), seed)
    for part in fields(weights):
        array = getattr(weights, part.name)
        if array is not None:
            array.flags.writeable = False
    return weights


def mla_layout_gap(a: MlaScores, b: MlaScores) -> float:
    """Largest |difference| of the position terms of two ``mla_scores`` results over the causal pairs."""
    length = a.position.shape[-1]
    causal = np.tril(np.ones((length, length), bool))
    return float(np.abs(a.position - b.position)[:, causal].max())


@dataclass(frozen=True)
class MlaShiftChange:
    """How much the demo's position term changes when its tokens move 1,000 positions (``mla_shift_change``).

    moved_start: the new first position.
    change: the largest |difference| of the position terms over the causal pairs.
    size: the largest |position term| at the original start, to read the change against.
    """

    moved_start: int
    change: float
    size: float


def mla_shift_change(preset: str, heads: int, tokens: int, start: int) -> MlaShiftChange:
    """Move the demo's tokens 1,000 positions (later, else earlier): how much does the position term change?"""
    cfg = MLA_PRESETS[as_choice("preset", preset, tuple(MLA_PRESETS))]
    tokens = as_int("tokens", tokens, minimum=1, maximum=4096)
    limit = cfg.max_position_embeddings - tokens
    start = as_int("first position", start, minimum=0, maximum=limit)
    moved_start = start + 1000 if start + 1000 <= limit else max(0, start - 1000)
    out = mla_demo_scores(preset, heads, tokens, start, 0, cfg.rope_interleave)
    moved = mla_demo_scores(preset, heads, tokens, moved_start, 0, cfg.rope_interleave)
    causal = np.tril(np.ones((tokens, tokens), bool))  # (tokens, tokens)
    return MlaShiftChange(moved_start=moved_start, change=mla_layout_gap(moved, out),
                          size=float(np.abs(out.position[:, causal]).max()))


# The cache layouts ``kv_cache_per_token`` compares: every head's keys and values, grouped heads, MLA's latent and
# shared rotated key, and MLA with the rotation on the latent (keys cached per head)
KV_LAYOUTS = ("mha", "gqa", "mla", "coupled")


@dataclass(frozen=True)
class KvCachePerToken:
    """What a KV cache holds per token (``kv_cache_per_token``); each mapping is keyed by ``KV_LAYOUTS``.

    values_per_layer: {layout: int} cached values per token and layer.
    bytes_per_token: {layout: int} bytes per token over all layers.
    gib_at_context: {layout: float} GiB for the whole context.
    kib_per_token: {layout: float} KiB per token over all layers.
    kv_heads: the key-value heads of the GQA layout.
    reference_bytes_per_token: bytes per token of GLM-4.5's GQA cache (``GQA_REFERENCE``), for scale.
    rope_share_of_mla: the rotated key's share of MLA's cached values, 0 to 1.
    bytes_per_value: bytes of one cached value in the dtype.
    mha_over_mla: how many times MHA's cache is MLA's.
    """

    values_per_layer: dict[str, int]
    bytes_per_token: dict[str, int]
    gib_at_context: dict[str, float]
    kib_per_token: dict[str, float]
    kv_heads: int
    reference_bytes_per_token: int
    rope_share_of_mla: float
    bytes_per_value: int
    mha_over_mla: float


def kv_cache_per_token(cfg: LatentConfig, *, kv_heads: int = 8, dtype: str = "bfloat16",
                       context: int = 131072) -> KvCachePerToken:
    """Cached values per token and layer, bytes per token over all layers, and GiB for ``context`` tokens.

    MHA caches every head's key (qk_head_dim) and value (v_head_dim); GQA the same for ``kv_heads`` groups;
    MLA the latent (kv_lora_rank) plus the one shared rotated key (qk_rope_head_dim). ``coupled`` is what
    MLA would need if the rotation sat on the latent: the up-projected keys of every head could no longer be
    folded into the query, so keys are cached per head (values stay latent).
    """
    kv_heads = as_int("kv_heads", kv_heads, minimum=1, maximum=cfg.num_attention_heads)
    if cfg.num_attention_heads % kv_heads:
        raise ValueError(f"The {cfg.num_attention_heads} query heads must split evenly into groups: "
                         f"kv_heads = {kv_heads} does not divide {cfg.num_attention_heads}.")
    size = KV_CACHE_DTYPES[as_choice("dtype", dtype, tuple(KV_CACHE_DTYPES))]
    context = as_int("context", context, minimum=1, maximum=MAX_POSITIONS * 64)
    h, per_head = cfg.num_attention_heads, cfg.qk_head_dim + cfg.v_head_dim
    values = {"mha": h * per_head, "gqa": kv_heads * per_head, "mla": cfg.kv_lora_rank + cfg.qk_rope_head_dim,
              "coupled": h * cfg.qk_head_dim + cfg.kv_lora_rank}
    per_token = {k: v * size * cfg.num_hidden_layers for k, v in values.items()}
    ref = GQA_REFERENCE
    reference = 2 * ref["num_key_value_heads"] * ref["head_dim"] * size * ref["num_hidden_layers"]
    return KvCachePerToken(values_per_layer=values, bytes_per_token=per_token,
                           gib_at_context={k: v * context / 2**30 for k, v in per_token.items()},
                           kib_per_token={k: v / 1024 for k, v in per_token.items()}, kv_heads=kv_heads,
                           reference_bytes_per_token=reference,  # GLM-4.5's GQA cache, for scale
                           rope_share_of_mla=cfg.qk_rope_head_dim / values["mla"], bytes_per_value=size,
                           mha_over_mla=per_token["mha"] / per_token["mla"])
