"""Each section's checkpoint: a handful of questions drawn from its lessons, answered on the checkpoint page.

``CHECKPOINTS`` maps a section's key (``registry.Section.key``, its folder) to its questions, in the order they are
asked. A question's key is stable (a learner's saved progress names it) and starts with ``cp_``; its wrong
options' misconceptions sit in ``misconceptions.MISCONCEPTIONS`` under the same key, in the wording the live
class's results use. ``lesson`` is the url_path of the lesson to revisit when the answer is wrong. A question
whose right option depends on a number names a ``check`` that computes the right option's index from
``posenc_core``; the tests run it, so the text and the code cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

KEY_PREFIX = "cp_"


@dataclass(frozen=True)
class CheckpointQuestion:
    """key: stable id (``cp_<section>_<word>``); question: one or two sentences (plain markdown, no heading);
    options: two to four short answers; answer: the right option's index; why: the explanation shown once
    answered; lesson: the url_path to revisit when wrong; check: computes ``answer`` from the core, or None when
    the question states no number."""

    key: str
    question: str
    options: tuple[str, ...]
    answer: int
    why: str
    lesson: str
    check: Callable[[], int] | None = None


CHECKPOINTS: dict[str, tuple[CheckpointQuestion, ...]] = {}
Q = CheckpointQuestion  # each section's block below: its checks (each computes its answer), then its questions

# --- why_position --------------------------------------------------------------------------------------------------
def _bit_3_flips() -> int:
    import posenc_core as pc

    column = pc.why_position.binary_codes(64, 6)[:, 3]
    first = next(p for p, bit in enumerate(column) if bit != column[0])  # the first position where bit 3 flips
    return {3: 0, 8: 1, 16: 2, 4: 3}.get(first, -1)


def _integer_code_ratio() -> int:
    import posenc_core as pc

    narrow, wide = (float(pc.why_position.naive_norm_ratio(128, "integer", d)[100]) for d in (32, 256))
    if abs(narrow - wide) > 0.1 * narrow:
        return 3
    return 0 if narrow < 2 else 1 if narrow < 30 else 2 if narrow < 300 else -1


CHECKPOINTS["why_position"] = (
    Q("cp_why_position_pooled",
      "With no positional encoding, swap two words of a sentence, run one self-attention layer and mean-pool its "
      "outputs. How does the pooled summary compare with the original sentence's?",
      ("it changes a little", "it changes completely", "it is the same, up to float rounding"), 2,
      "Attention is *permutation equivariant*: reordering the words only reorders the output rows, each moving "
      "with its word. A sum, a mean or a max ignores the order of what it summarises, so both sentences give the "
      "same summary.", "order"),
    Q("cp_why_position_set",
      "Each point of a point cloud carries its own (x, y, z) coordinates. Does a transformer over the points need a "
      "positional encoding for the order in which they are listed?",
      ("no: the points form a set, and each one's place is already in its content",
       "yes: without one it cannot tell the points apart"), 0,
      "Some inputs *are* sets. A point's coordinates are part of its content, so any order of listing the points "
      "should give the same result: there, attention without a positional encoding is exactly right.", "order"),
    Q("cp_why_position_integer",
      "Add the raw position p to every channel of a word embedding whose entries have size about 1. At position "
      "100, roughly how many times longer than the word's vector is the position code?",
      ("about as long: both grow with the width", "about 10 times (√100)", "about 100 times",
       "it depends on the width d"), 2,
      "The code p·1 has length p√d and the word about √d, so the width cancels and the ratio is p itself. At "
      "position 100 the position drowns the word: the first layer mostly sees 'how far along', barely 'which word'.",
      "naive", _integer_code_ratio),
    Q("cp_why_position_bits",
      "Write each position in binary, bit 0 being the lowest. How often does bit 3 flip as the position counts up?",
      ("every 3 positions", "every 8 positions", "every 16 positions", "every 4 positions"), 1,
      "Bit k flips every 2^k positions and repeats every 2^(k+1): bit 3 is 0 for positions 0 to 7 and 1 for 8 to "
      "15. Each column alternates half as fast as the one before, the rhythm the sinusoidal encoding smooths into "
      "waves.", "binary", _bit_3_flips),
)


# --- absolute ------------------------------------------------------------------------------------------------------
def _slowest_sinusoidal_wavelength() -> int:
    import posenc_core as pc

    slowest = float(pc.absolute.sinusoidal_wavelengths(512, 10000.0)[-1])
    bands = ((400, 700), (8_000, 12_000), (50_000, 70_000), (5, 8))
    return next((i for i, (low, high) in enumerate(bands) if low < slowest < high), -1)


def _rows_missing() -> int:
    import posenc_core as pc

    return 2 if pc.absolute.missing_rows(512, 600) == 600 - 512 else -1


def _unscaled_width_doubling() -> int:
    import posenc_core as pc

    return ("same", "shrinks", "grows").index(pc.absolute.norm_ratio_doubling(256, "normal(0, 1/sqrt(d))", False))


CHECKPOINTS["absolute"] = (
    Q("cp_absolute_slowest",
      "The original Transformer's sinusoidal table with d = 512 and base 10,000: about how many positions long is "
      "the wavelength of its slowest pair?",
      ("about 512", "about 10,000", "about 60,000", "about 6.3"), 2,
      "Wavelengths grow geometrically from 2π for the first pair to 2π·base^((d−2)/d) for the last, almost 2π × "
      "10,000. The base, not the width, sets where the range ends; the width only fills it more densely.",
      "sinusoidal", _slowest_sinusoidal_wavelength),
    Q("cp_absolute_offset",
      "Take two rows of the sinusoidal table, PE(i) and PE(j). What does their dot product depend on?",
      ("the absolute positions i and j", "only the offset i − j", "only the larger of i and j"), 1,
      "PE(i)·PE(j) is a sum of cos((i − j)ω) over the pairs, so every diagonal of the dot-product grid has one "
      "colour. A fixed matrix also moves any row by k positions: the paper's argument that offsets are easy to "
      "attend to.", "sinusoidal"),
    Q("cp_absolute_rows",
      "A BERT-style model has a learned table of 512 position rows. What happens to an input of 600 tokens?",
      ("rows wrap around: position 512 reuses row 0",
       "the table extends its learned pattern to positions 512 to 599",
       "positions 512 to 599 have no row, so the model refuses or truncates the input"), 2,
      "The rows past the table were never created, and nothing in it says what row 512 should be. That is why "
      "BERT-style models stop at 512 tokens; a formula such as the sinusoidal table can at least produce a row for "
      "any position.", "learned", _rows_missing),
    Q("cp_absolute_width",
      "Token embeddings with entries of standard deviation 1/√d, *not* multiplied by √d, plus a sinusoidal row. "
      "Double the width d: what happens to ||position row|| / ||token embedding||?",
      ("it stays the same", "it shrinks by √2", "it grows by √2"), 2,
      "A sinusoidal row has length √(d/2) at every position, while a token row with entries of size 1/√d has "
      "length about 1 whatever the width. The position's share grows like √d; the paper's × √d keeps the ratio "
      "fixed.", "token_position", _unscaled_width_doubling),
)


# --- rope ----------------------------------------------------------------------------------------------------------
def _fastest_rope_pair() -> int:
    import math

    import posenc_core as pc

    inv_freq, _ = pc.rope_inv_freq(128, 10000.0)
    wavelengths = [2 * math.pi / float(f) for f in inv_freq]
    fastest = min(range(len(wavelengths)), key=wavelengths.__getitem__)
    if max(wavelengths) - min(wavelengths) < 1e-9:
        return 1
    return 2 if fastest == 0 and abs(wavelengths[0] - 2 * math.pi) < 0.01 else 0 if fastest == 63 else -1


CHECKPOINTS["rope"] = (
    Q("cp_rope_fastest",
      "Head dimension 128, base 10,000. Which rotary pair completes a full turn in the fewest positions?",
      ("the last pair, pair 63", "all pairs turn at the same speed", "pair 0, about every 6.3 positions"), 2,
      "θ_i = base^(−2i/d), so pair 0 turns one radian per position, once every 2π positions, and each later pair "
      "is slower by the same factor. The slow, late pairs are the ones long-context methods rescale.", "rope",
      _fastest_rope_pair),
    Q("cp_rope_decay",
      "RoFormer proves a bound on |q·k| that falls as the distance m − n grows. Which scores actually fade with "
      "distance?",
      ("every query-key score, whatever q and k are",
       "a query with an identical key; independent random q and k stay about flat",
       "none: a rotation never changes a score"), 1,
      "The bound limits the score, loosely. An identical query and key start aligned and drift out of phase, so "
      "their score fades; independent random vectors already point in random directions, and turning a random "
      "direction gives another random direction.", "rope_relative"),
    Q("cp_rope_layouts",
      "You convert a checkpoint from Meta's interleaved RoPE layout to transformers' half-split layout. What must "
      "change in its weights?",
      ("the rows of W_q and W_k inside every head are permuted",
       "nothing: both layouts turn pair i by the same angle",
       "W_q, W_k, W_v and W_o all get permuted"), 0,
      "The layout is baked into the trained weights: the half layout pairs dimension i with i + d/2, the "
      "interleaved one 2i with 2i + 1. Conversion permutes the rows of W_q and W_k in every head; W_v and W_o are "
      "untouched, since values are never rotated.", "rope_variants"),
    Q("cp_rope_values",
      "Inside a RoPE model's attention layer, which vectors are rotated?",
      ("q, k and v", "the token embedding, once before the first layer", "only q and k, in every layer",
       "only q"), 2,
      "RoPE is a fixed step after the query and key projections and before their dot product, repeated in every "
      "layer with no parameters. The values carry no position, unlike the original Transformer's added vector, "
      "which flows into everything.", "rope_model"),
)


# --- attention_bias ------------------------------------------------------------------------------------------------
def _alibi_first_slope() -> int:
    import posenc_core as pc

    slopes = [float(s) for s in pc.alibi_slopes(16)]
    if abs(slopes[0] - 2 ** -0.5) < 1e-6 and abs(slopes[-1] - 2 ** -8) < 1e-9:
        return 1
    return 0 if abs(slopes[0] - 0.5) < 1e-6 else 2 if abs(slopes[0] - 2 ** -8) < 1e-9 else -1


def _t5_far_buckets() -> int:
    import numpy as np

    import posenc_core as pc

    near, far = (int(b) for b in pc.t5_relative_position_bucket(np.array([-200, -2000])))
    return 0 if near == far else 1


CHECKPOINTS["attention_bias"] = (
    Q("cp_attention_bias_slope",
      "A model with 16 ALiBi heads uses the slopes of the authors' code. What is head 1's slope?",
      ("1/2, then 1/4, 1/8, … down to 1/2^16", "about 0.707 (2^(−1/2)), halving every second head",
       "1/256, the gentlest"), 1,
      "The first slope is 2^(−8/n) for n heads and the last is always 2^(−8) = 1/256. The rule 1/2, 1/4, … holds "
      "only for 8 heads; with 16 the sequence starts gentler and steps down more finely.", "alibi",
      _alibi_first_slope),
    Q("cp_attention_bias_far",
      "T5's default buckets (32 buckets, max_distance 128, bidirectional). Two keys sit 200 and 2,000 tokens before "
      "the query: how do their biases compare?",
      ("exactly the same: they share the last bucket", "a little different: log-spaced buckets",
       "the farther key's is about ten times lower"), 0,
      "Everything past max_distance lands in one last bucket, so T5 gives a token 200 and a token 2,000 positions "
      "away the same bias: only their content differs. The table stays small and runs on longer inputs, at the "
      "price of no fine position far away.", "t5", _t5_far_buckets),
    Q("cp_attention_bias_nope",
      "A causal decoder with no positional encoding at all. Can its outputs still depend on position?",
      ("no: without an encoding attention is blind to order",
       "yes: the causal mask makes each output a mean over a growing prefix",
       "only where the tokens differ in content"), 1,
      "With equal scores, position i gives each of its i + 1 keys the weight 1/(i + 1): the first token's share is "
      "an exact position counter, even when every token after the first is the same. The signal is real but blurry, "
      "and fades with distance.", "nope"),
    Q("cp_attention_bias_shaw",
      "Why do Shaw et al.'s relative vectors sit awkwardly with a KV cache?",
      ("the stored keys must be rewritten every time a token is added",
       "it does not: keys are cached with their position already in them, as with RoPE",
       "each cached key's relative term depends on its distance to the new query, so it is recomputed at every "
       "step"), 2,
      "The cache can only hold plain k_j: the table row added to a key depends on who reads it. The stored keys do "
      "not change, but each decoding step adds a different row for every cached token (and again on the value "
      "side), outside the usual fused kernels.", "shaw"),
)


# --- end of the sections ------------------------------------------------------------------------------------------


def questions(section: str) -> tuple[CheckpointQuestion, ...]:
    """The checkpoint of section ``section`` (its key); empty for a section without one."""
    return CHECKPOINTS.get(section, ())


def all_keys() -> list[str]:
    """Every checkpoint question's key, section by section."""
    return [q.key for qs in CHECKPOINTS.values() for q in qs]
