"""SmolLM2's forward pass, layer by layer, with a RoPE of our choosing.

The loop below is ``LlamaModel.forward`` for one unpadded sequence without a cache, written out so that
(1) the rotary embedding can be swapped per call for one built by transformers' own ``LlamaRotaryEmbedding``
from a scaled config (the shared, cached model is never mutated), (2) progress can be reported per layer and
(3) a measurement can look at each layer's queries and keys. With ``attention_mask=None`` transformers' SDPA
path runs ``is_causal=True``, exactly what ``LlamaModel`` does for such an input, so no n x n mask is built.
A test checks the logits equal ``model(input_ids)``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._checks import as_int
from .models import require_libraries

__all__ = ["smollm2_forward", "smollm2_rotary", "smollm2_token_losses"]

# (layer index, attention module, normed input (1, n, 576)) -> rotated q (1, heads, n, 64), k (1, kv heads, n, 64)
QK = Callable[[int, Any, Any], tuple[Any, Any]]


def smollm2_rotary(model: Any, rope_parameters: dict[str, Any] | None = None) -> Any:
    """transformers' LlamaRotaryEmbedding for ``model``'s config with ``rope_parameters`` swapped in."""
    require_libraries("SmolLM2's rotary embedding", "torch", "transformers")
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    if rope_parameters is None:
        return model.model.rotary_emb
    config = LlamaConfig(**{**model.config.to_dict(), "rope_parameters": dict(rope_parameters)})
    return LlamaRotaryEmbedding(config)


def smollm2_forward(model: Any, input_ids: Any, *, position_ids: Any = None, rotary: Any = None,
                    on_layer: Callable[[int, object, object, tuple], None] | None = None,
                    progress: Callable[[int, int], None] | None = None, qk: QK | None = None) -> Any:
    """Final hidden states (1, n, 576) of SmolLM2 for ``input_ids`` (1, n).

    ``on_layer(index, attention_module, normed_input (1, n, 576), (cos, sin))`` runs before each layer's
    attention, for measurements; ``progress(done, total)`` after each layer. ``qk(index, attention_module,
    normed_input)`` -> (q (1, 9, n, 64), k (1, 3, n, 64)), already rotated, replaces each layer's projection and
    rotation (the layer then runs written out, ``_layer_with_qk``; ``rotary`` and ``position_ids`` are unused).
    """
    require_libraries("SmolLM2's forward pass", "torch", "transformers")
    import torch

    inner = model.model
    rotary = inner.rotary_emb if rotary is None else rotary
    n = input_ids.shape[1]
    if position_ids is None:
        position_ids = torch.arange(n, device=input_ids.device)[None]  # (1, n)
    with torch.no_grad():
        hidden = inner.embed_tokens(input_ids)  # (1, n, 576)
        cos_sin = rotary(hidden, position_ids=position_ids)  # 2 x (1, n, 64)
        layers = inner.layers[: model.config.num_hidden_layers]
        for index, layer in enumerate(layers):
            if on_layer is not None:
                on_layer(index, layer.self_attn, layer.input_layernorm(hidden), cos_sin)
            if qk is None:
                hidden = layer(hidden, attention_mask=None, position_embeddings=cos_sin, position_ids=position_ids)
            else:
                hidden = _layer_with_qk(layer, index, hidden, qk)
            if progress is not None:
                progress(index + 1, len(layers))
        return inner.norm(hidden)


def _layer_with_qk(layer: Any, index: int, hidden: Any, qk: QK) -> Any:
    """``LlamaDecoderLayer.forward`` for one unpadded sequence with the queries and keys ``qk`` gives: the same
    SDPA call transformers makes (causal, the module's scaling, grouped keys), o_proj, residuals and MLP."""
    import torch.nn.functional as F

    attn = layer.self_attn
    normed = layer.input_layernorm(hidden)  # (1, n, 576)
    n = hidden.shape[1]
    q, k = qk(index, attn, normed)  # (1, 9, n, 64), (1, 3, n, 64)
    v = attn.v_proj(normed).view(1, n, -1, attn.head_dim).transpose(1, 2)  # (1, 3, n, 64)
    out = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=attn.scaling, enable_gqa=True)  # (1, 9, n, 64)
    hidden = hidden + attn.o_proj(out.transpose(1, 2).reshape(1, n, -1))
    return hidden + layer.mlp(layer.post_attention_layernorm(hidden))


def smollm2_token_losses(model: Any, hidden: Any, input_ids: Any, chunk: int = 1024) -> np.ndarray:
    """Cross-entropy (nats) of each next token, shape (n - 1,), float64 numpy.

    The logits are made ``chunk`` positions at a time: all of them at once would be n x 49,152 floats
    (3.2 GB at n = 16,384).
    """
    as_int("chunk", chunk, minimum=1)
    require_libraries("SmolLM2's token losses", "torch")
    import torch
    import torch.nn.functional as F

    n = input_ids.shape[1]
    out = torch.empty(n - 1, dtype=torch.float64)
    with torch.no_grad():
        for start in range(0, n - 1, chunk):
            stop = min(start + chunk, n - 1)
            logits = model.lm_head(hidden[0, start:stop]).float()  # (c, vocab)
            out[start:stop] = F.cross_entropy(logits, input_ids[0, start + 1:stop + 1], reduction="none").double()
    return out.cpu().numpy()
