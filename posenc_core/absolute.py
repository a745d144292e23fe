"""Absolute encodings added to token embeddings.

The sinusoidal table of "Attention Is All You Need" (and the tensor2tensor / fairseq variant readers meet
in code), the naive codes it replaced (the raw integer, position / length), the binary analogy, and the
norm balance between a token embedding and the position code added to it.
"""

from __future__ import annotations

import math

import numpy as np

from ._backend import require_torch, to_backend, to_numpy
from ._checks import MAX_DIM, MAX_POSITIONS, as_base, as_choice, as_even_dim, as_int, check_size
from ._tokens import token_embeddings
from .scaling import base_inv_freq

__all__ = [
    "EMBEDDING_INITS",
    "LAYOUTS",
    "NAIVE_KINDS",
    "VARIANTS",
    "binary_codes",
    "binary_column",
    "binary_column_curve",
    "binary_waves",
    "MAX_BITS",
    "embedding_norm_balance",
    "norm_ratio_doubling",
    "fraction_code_order",
    "fraction_codes",
    "naive_codes",
    "naive_inputs",
    "naive_norm_ratio",
    "sinusoidal_coverage",
    "sinusoidal_wavelengths",
    "token_plus_position",
    "sinusoidal",
    "sinusoidal_at",
    "sinusoidal_entry",
    "sinusoidal_frequencies",
    "sinusoidal_shift_error",
    "sinusoidal_shift_matrix",
]


LAYOUTS = ("interleaved", "concat")
VARIANTS = ("paper", "tensor2tensor")  # the frequency exponent; see sinusoidal_frequencies
_BLOCK_VALUES = 1 << 15


def sinusoidal_frequencies(dim, base=10000.0, variant="paper") -> np.ndarray:
    """The angular frequencies of the d/2 (sin, cos) pairs, shape (dim/2,), float64.

    variant="paper": omega_i = base^(-2i/d), so the slowest pair stops just short of 1/base.
    variant="tensor2tensor": omega_i = base^(-i/(d/2 - 1)), so the last pair reaches exactly 1/base.
    The second is what tensor2tensor's get_timing_signal_1d (log_timescale_increment = ln(base) /
    (num_timescales - 1)) and fairseq's SinusoidalPositionalEmbedding.get_embedding (emb = ln(10000) /
    (half_dim - 1)) compute; both also put all sines first, then all cosines (our layout="concat").
    With a single pair (d = 2) the divisor is taken as 1, as later tensor2tensor versions do.
    """
    dim = as_even_dim("dim", dim)
    base = as_base(base)
    half = dim // 2
    if as_choice("variant", variant, VARIANTS) == "tensor2tensor":
        return base ** (-np.arange(half, dtype=np.float64) / max(half - 1, 1))
    return base_inv_freq(base, dim)  # the same frequencies as plain RoPE's


def sinusoidal_wavelengths(dim, base=10000.0, variant="paper") -> np.ndarray:
    """Wavelength 2*pi/omega_i of each pair, in positions, shape (dim/2,): from 2*pi up to (almost) 2*pi*base."""
    return 2 * np.pi / sinusoidal_frequencies(dim, base, variant)


def sinusoidal_at(positions, dim, base=10000.0, layout="interleaved", *, dtype="float32", variant="paper",
                  backend="numpy", device=None):
    """Sinusoidal encodings of arbitrary (possibly fractional or negative) positions.

    ``dtype="float32"`` gives the table the models hold, bit-identical to transformers' code for it:
    the paper variant as DistilBERT's ``create_sinusoidal_embeddings`` (and Marian's table) builds it, angles
    pos / base^(2i/d) and their sine and cosine in float64, rounded once to float32; the tensor2tensor variant
    as fairseq's / M2M100's ``SinusoidalPositionalEmbedding.get_embedding``, all in torch float32 (exp of the
    scaled pair index, the products, sin and cos). ``"float64"`` gives the exact values a hand calculation gets.

    Returns an array of shape (len(positions), dim).
    """
    layout = as_choice("layout", layout, LAYOUTS)
    variant = as_choice("variant", variant, VARIANTS)
    dim = as_even_dim("dim", dim)
    base = as_base(base)
    if as_choice("dtype", dtype, ("float32", "float64")) == "float64":
        check_size(np.size(positions) * dim, "The sinusoidal table")
        return to_backend(_sinusoidal64(positions, dim, base, layout, variant), backend, device)
    positions = np.asarray(to_numpy(positions), dtype=np.float64).reshape(-1)  # (n,)
    n, half = positions.shape[0], dim // 2
    check_size(n * dim, "The sinusoidal table")
    out = np.empty((n, dim), dtype=np.float32)  # (n, d)
    sin_cols, cos_cols = (out[:, 0::2], out[:, 1::2]) if layout == "interleaved" else (out[:, :half], out[:, half:])
    fill = _t2t_model_block if variant == "tensor2tensor" else _paper_model_block
    # Row blocks of about 32k values keep the temporaries in cache before the strided copy into place.
    rows = max(1, _BLOCK_VALUES // half)
    for start in range(0, n, rows):
        sin, cos = fill(positions[start:start + rows], dim, base)  # (k, d/2) float32 each
        sin_cols[start:start + rows], cos_cols[start:start + rows] = sin, cos
    return to_backend(out, backend, device)


def _paper_model_block(positions, dim, base):
    """DistilBERT's arithmetic: pos / np.power(base, 2 * (j // 2) / dim) in float64, sin / cos, then float32."""
    angles = np.divide.outer(positions, np.power(base, np.arange(0, dim, 2) / dim))  # (k, d/2) float64
    return np.sin(angles).astype(np.float32), np.cos(angles).astype(np.float32)


def _t2t_model_block(positions, dim, base):
    """fairseq / M2M100's get_embedding: emb = ln(base) / (d/2 - 1) in Python, the rest in torch float32."""
    torch = require_torch()
    half = dim // 2
    step = math.log(base) / max(half - 1, 1)  # fairseq divides by zero at d = 2; one pair reaches 1/base
    freqs = torch.exp(torch.arange(half, dtype=torch.int64).float() * -step)  # (d/2,)
    angles = torch.from_numpy(positions).float()[:, None] * freqs[None, :]  # (k, d/2)
    return torch.sin(angles).numpy(), torch.cos(angles).numpy()


def sinusoidal(num_positions, dim, base=10000.0, layout="interleaved", *, dtype="float32", variant="paper",
               backend="numpy", device=None):
    """The sinusoidal position table for positions 0 .. num_positions-1.

    Args:
        num_positions: number of rows (positions 0, 1, ...).
        dim: model dimension (even).
        base: wavelength base (10000 in the paper).
        layout: "interleaved" (sin, cos, sin, cos, ...; the paper) or "concat" (sines then cosines).
        dtype: "float32" (the models' table, bit-identical to transformers' code; see ``sinusoidal_at``) or
            "float64" (exact, for checking by hand).
        variant: "paper" (omega_i = base^(-2i/d)) or "tensor2tensor" (omega_i = base^(-i/(d/2-1)), the
            exponent of tensor2tensor and fairseq, which also use layout="concat").

    Returns:
        Array of shape (num_positions, dim).
    """
    n = as_int("num_positions", num_positions, minimum=1, maximum=MAX_POSITIONS)
    check_size(n * as_even_dim("dim", dim), "The sinusoidal table")
    return sinusoidal_at(np.arange(n), dim, base, layout, dtype=dtype, variant=variant, backend=backend,
                         device=device)


def sinusoidal_shift_matrix(dim, offset, base=10000.0, layout="interleaved") -> np.ndarray:
    """The (dim, dim) matrix M with PE(p + offset) = M @ PE(p) for every position p.

    Each (sin, cos) pair at frequency omega is rotated by offset * omega, because
    sin(a + b) = sin a cos b + cos a sin b and cos(a + b) = cos a cos b - sin a sin b.
    M depends on the offset only, never on p: that is what lets attention read relative offsets.
    """
    layout = as_choice("layout", layout, LAYOUTS)
    omega = sinusoidal_frequencies(dim, base)  # (d/2,)
    half = omega.shape[0]
    c, s = np.cos(offset * omega), np.sin(offset * omega)
    sin_idx = np.arange(0, 2 * half, 2) if layout == "interleaved" else np.arange(half)
    cos_idx = sin_idx + 1 if layout == "interleaved" else sin_idx + half
    m = np.zeros((2 * half, 2 * half))
    m[sin_idx, sin_idx], m[sin_idx, cos_idx] = c, s
    m[cos_idx, sin_idx], m[cos_idx, cos_idx] = -s, c
    return m


def _sinusoidal64(positions, dim, base, layout, variant="paper") -> np.ndarray:
    """The same table in float64, for exact checks of identities."""
    layout = as_choice("layout", layout, LAYOUTS)
    omega = sinusoidal_frequencies(dim, base, variant)
    angles = np.multiply.outer(np.asarray(positions, dtype=np.float64), omega)  # (n, d/2)
    sin, cos = np.sin(angles), np.cos(angles)
    if layout == "interleaved":
        return np.stack([sin, cos], axis=-1).reshape(angles.shape[0], -1)
    return np.concatenate([sin, cos], axis=1)


def sinusoidal_entry(position, column, dim, base=10000.0, layout="interleaved") -> dict:
    """Everything that goes into one cell PE(position, column): pair index, frequency, angle, value."""
    dim = as_even_dim("dim", dim)
    column = as_int("column", column, minimum=0, maximum=dim - 1)
    layout = as_choice("layout", layout, LAYOUTS)
    half = dim // 2
    pair, is_cos = (column // 2, column % 2 == 1) if layout == "interleaved" else (column % half, column >= half)
    omega = float(sinusoidal_frequencies(dim, base)[pair])
    angle = float(position) * omega
    return {"pair": pair, "function": "cos" if is_cos else "sin", "omega": omega, "angle": angle,
            "wavelength": 2 * np.pi / omega, "value": float(np.cos(angle) if is_cos else np.sin(angle))}


def sinusoidal_shift_error(num_positions, dim, offset, base=10000.0, layout="interleaved") -> float:
    """max over p < num_positions of |M_offset PE(p) - PE(p + offset)|, computed in float64."""
    n = as_int("num_positions", num_positions, minimum=1, maximum=MAX_POSITIONS)
    dim = as_even_dim("dim", dim)
    check_size(n * dim, "The shift check")
    layout = as_choice("layout", layout, LAYOUTS)
    positions = np.arange(n, dtype=np.float64)
    moved = _sinusoidal64(positions, dim, base, layout) @ sinusoidal_shift_matrix(dim, offset, base, layout).T
    return float(np.abs(moved - _sinusoidal64(positions + offset, dim, base, layout)).max())


# --- Where a training length ends -------------------------------------------------------------------------

def sinusoidal_coverage(train_length, dim, base=10000.0, variant="paper") -> np.ndarray:
    """For each (sin, cos) pair, the fraction of one full turn that positions 0 .. train_length-1 cover.

    A pair whose wavelength is shorter than the training length has shown the model every value it can
    take (coverage 1); a slower pair has only swept an arc of its circle, so positions past the training
    length give it angles, and value combinations, that training never produced. Shape (dim/2,).
    """
    length = as_int("training length", train_length, minimum=1, maximum=MAX_POSITIONS)
    omega = sinusoidal_frequencies(dim, base, variant)  # (d/2,)
    return np.minimum(1.0, (length - 1) * omega / (2 * np.pi))


# --- Naive position codes ---------------------------------------------------------------------------------

NAIVE_KINDS = ("integer", "fraction")


def naive_codes(num_positions, kind="integer") -> np.ndarray:
    """The scalar code of each position of a sequence of num_positions tokens, shape (n,), float64.

    "integer": the position itself, p = 0, 1, 2, ... (grows without bound).
    "fraction": p / n, the position divided by the sequence's length (always in [0, 1), but the same
    position gets a different code in a sequence of a different length).
    Added to a token embedding, the code goes into every channel: x_p + code(p) * (1, ..., 1).
    """
    n = as_int("the number of positions", num_positions, minimum=1, maximum=MAX_POSITIONS)
    positions = np.arange(n, dtype=np.float64)
    if as_choice("kind", kind, NAIVE_KINDS) == "fraction":
        return positions / n
    return positions


def fraction_codes(lengths) -> np.ndarray:
    """p / L for several sequence lengths L at once: row k holds lengths[k]'s codes, NaN past its end.

    Returns float64 array of shape (len(lengths), max(lengths)).
    """
    lengths = [as_int("a sequence length", n, minimum=1, maximum=1 << 16) for n in lengths]
    if not lengths:
        raise ValueError("fraction_codes needs at least one sequence length.")
    check_size(len(lengths) * max(lengths), "The code table")
    out = np.full((len(lengths), max(lengths)), np.nan)
    for row, n in enumerate(lengths):
        out[row, :n] = naive_codes(n, "fraction")
    return out


def fraction_code_order(short, long, p) -> str:
    """How position p's code p / L compares in a sequence of ``short`` and one of ``long`` words.

    Returns "missing" (one of them has no position p), "same", "shorter" (larger in the shorter sequence) or
    "longer"; the order of the codes read from ``fraction_codes``, so the answer matches its table.
    """
    a, b = fraction_codes([short, long])[:, p]
    if np.isnan(a) or np.isnan(b):
        return "missing"
    if a == b:
        return "same"
    return "shorter" if (a > b) == (short < long) else "longer"


def naive_norm_ratio(num_positions, kind="integer", dim=64) -> np.ndarray:
    """||position code|| / ||token embedding|| at every position, for token entries of size 1.

    A token embedding with d entries of variance 1 has a norm of about sqrt(d). A scalar code c added to all
    d channels has norm |c| sqrt(d), so the ratio is |c|: the integer code outweighs the word from position
    2 on. kind="sinusoidal" gives the paper's table for comparison: its norm is exactly sqrt(d/2) (one
    sin^2 + cos^2 = 1 per pair), a constant ratio of 1/sqrt(2) at every position. Shape (n,).
    """
    n = as_int("the number of positions", num_positions, minimum=1, maximum=MAX_POSITIONS)
    dim = as_even_dim("dim", dim)
    token_norm = np.sqrt(dim)
    if kind == "sinusoidal":
        check_size(n * dim, "The sinusoidal table")
        return np.linalg.norm(_sinusoidal64(np.arange(n), dim, 10000.0, "interleaved"), axis=1) / token_norm
    return np.abs(naive_codes(n, kind)) * np.sqrt(dim) / token_norm


def naive_inputs(num_positions, dim, kind="integer") -> dict:
    """Token embeddings (entries of size 1) plus a naive code, for a sequence of made-up words w0, w1, ...

    Returns a dict of (n, dim) float64 arrays: "token", "code" (the code broadcast over channels) and
    "sum" (what the first layer would see).
    """
    n = as_int("the number of positions", num_positions, minimum=1, maximum=4096)
    dim = as_int("dim", dim, minimum=1, maximum=MAX_DIM)
    check_size(n * dim, "The inputs")
    token = token_embeddings([f"w{p}" for p in range(n)], dim)  # (n, d)
    code = np.repeat(naive_codes(n, kind)[:, None], dim, axis=1)  # (n, d)
    return {"token": token, "code": code, "sum": token + code}


# --- The binary analogy -----------------------------------------------------------------------------------

MAX_BITS = 24


def binary_codes(num_positions, bits) -> np.ndarray:
    """Bit k of each position p (column 0 is the least significant bit), shape (n, bits), int8.

    Column k repeats every 2^(k+1) positions: each column alternates half as fast as the one before. With
    fewer bits than log2(n) the codes wrap around and repeat.
    """
    n = as_int("the number of positions", num_positions, minimum=1, maximum=MAX_POSITIONS)
    bits = as_int("bits", bits, minimum=1, maximum=MAX_BITS)
    check_size(n * bits, "The binary table")
    return ((np.arange(n)[:, None] >> np.arange(bits)[None, :]) & 1).astype(np.int8)


def binary_waves(positions, bits) -> np.ndarray:
    """The smooth twin of each bit: cos(pi (p - (2^k - 1)/2) / 2^k), shape (len(positions), bits), float64.

    Column k has the period of bit k, 2^(k+1), and its phase puts a crest in the middle of every run of
    zeros, so at whole positions sign(wave_k(p)) = 1 - 2 bit_k(p): rounding the wave gives the bit back.
    Between whole positions (and at fractional ones) the wave is defined and continuous; the bit is not.
    """
    bits = as_int("bits", bits, minimum=1, maximum=MAX_BITS)
    p = np.asarray(positions, dtype=np.float64).reshape(-1)  # (n,)
    check_size(p.shape[0] * bits, "The wave table")
    scale = 2.0 ** np.arange(bits)  # (bits,)
    return np.cos(np.pi * (p[:, None] - (scale - 1) / 2) / scale)


def binary_column(positions, bit) -> dict:
    """Bit `bit` of (possibly fractional) positions, floor(p / 2^k) mod 2, next to its smooth twin.

    Returns a dict of (n,) float64 arrays: "bit" (0 or 1), "signed" (1 - 2 bit, in {-1, 1}, the scale of
    the wave) and "wave" (column k of binary_waves).
    """
    bit = as_int("bit", bit, minimum=0, maximum=MAX_BITS - 1)
    p = np.asarray(positions, dtype=np.float64).reshape(-1)
    check_size(p.shape[0], "The column")
    value = np.mod(np.floor(p / 2.0 ** bit), 2)
    return {"bit": value, "signed": 1 - 2 * value, "wave": binary_waves(p, bit + 1)[:, bit]}


def binary_column_curve(bit, periods=2, samples=801) -> tuple[np.ndarray, dict]:
    """binary_column on a fine grid of positions covering `periods` periods of bit `bit` (2^(bit+1) each).

    Returns (positions (samples,), the dict of binary_column).
    """
    bit = as_int("bit", bit, minimum=0, maximum=MAX_BITS - 1)
    periods = as_int("periods", periods, minimum=1, maximum=64)
    samples = as_int("samples", samples, minimum=2, maximum=100_000)
    positions = np.linspace(0, periods * 2.0 ** (bit + 1), samples)
    return positions, binary_column(positions, bit)


# --- Token + position -------------------------------------------------------------------------------------

# How token embedding entries are initialised, and where each convention comes from.
EMBEDDING_INITS = {
    "normal(0, 1)": "torch.nn.Embedding's default",
    "normal(0, 0.02)": "BERT and GPT-2 (initializer_range = 0.02)",
    "normal(0, 1/sqrt(d))": "tensor2tensor and fairseq (d^-0.5), meant to be multiplied by sqrt(d)",
}


def _init_std(init: str, dim: int) -> float:
    init = as_choice("init", init, tuple(EMBEDDING_INITS))
    return {"normal(0, 1)": 1.0, "normal(0, 0.02)": 0.02, "normal(0, 1/sqrt(d))": dim ** -0.5}[init]


def token_plus_position(tokens, dim, init="normal(0, 1/sqrt(d))", scale=True, base=10000.0) -> dict:
    """The model's input for a sentence: token embedding (times sqrt(d) when scale) + sinusoidal row.

    Args:
        tokens: list of words (see tokenize); repeated words get identical token rows.
        dim: model width (even).
        init: one of EMBEDDING_INITS.
        scale: multiply token embeddings by sqrt(d) first, as the Transformer paper (section 3.4) does.

    Returns:
        dict with "token", "position", "input" (each (n, d) float64) and the row norms "token_norm",
        "position_norm", "input_norm" (each (n,)).
    """
    dim = as_even_dim("dim", dim)
    std = _init_std(init, dim) * (np.sqrt(dim) if scale else 1.0)
    token = token_embeddings(tokens, dim, std)  # (n, d)
    position = _sinusoidal64(np.arange(token.shape[0]), dim, as_base(base), "interleaved")  # (n, d)
    total = token + position
    return {"token": token, "position": position, "input": total,
            "token_norm": np.linalg.norm(token, axis=1), "position_norm": np.linalg.norm(position, axis=1),
            "input_norm": np.linalg.norm(total, axis=1)}


def embedding_norm_balance(dims, init="normal(0, 1/sqrt(d))", scale=True, samples=256) -> dict:
    """||position row|| / ||token row|| as the width changes, measured on `samples` made-up words.

    The sinusoidal row has norm sqrt(d/2) at every position; a token row with entries of standard
    deviation s has norm about s sqrt(d). Their ratio is about 1 / (s sqrt(2)): a constant 0.71 when the
    entries have size 1 (init 1/sqrt(d) times sqrt(d), or normal(0, 1)), but it grows like sqrt(d) for an
    unscaled 1/sqrt(d) init, and is about 35 for 0.02: then the position code drowns the word.

    Returns:
        dict with "dim" (k,), "measured" (k,) mean ratio over the samples, "expected" (k,) 1/(s sqrt 2),
        "std" (k,) the effective entry size s (after the sqrt(d) factor when scale).
    """
    dims = [as_even_dim("dim", d) for d in dims]
    samples = as_int("samples", samples, minimum=1, maximum=4096)
    check_size(samples * sum(dims), "The norm balance")
    measured, expected, stds = [], [], []
    words = [f"w{i}" for i in range(samples)]
    for d in dims:
        std = _init_std(init, d) * (np.sqrt(d) if scale else 1.0)
        token_norm = np.linalg.norm(token_embeddings(words, d, std), axis=1)  # (samples,)
        measured.append(float(np.mean(np.sqrt(d / 2) / token_norm)))
        expected.append(1 / (std * np.sqrt(2)))
        stds.append(std)
    return {"dim": np.asarray(dims), "measured": np.asarray(measured), "expected": np.asarray(expected),
            "std": np.asarray(stds)}


def norm_ratio_doubling(dim, init="normal(0, 1/sqrt(d))", scale=True) -> str:
    """What doubling the width does to the expected ||position row|| / ||token row|| = 1 / (s sqrt 2).

    Returns "same" when the entry size s does not depend on d (normal(0, 1), 0.02, or 1/sqrt(d) times sqrt(d)),
    "grows" (by sqrt 2, s = 1/sqrt(d) unscaled) or "shrinks" (by sqrt 2, an entry size growing with d).
    """
    before, after = embedding_norm_balance([dim, 2 * dim], init, scale, samples=1)["expected"]
    if abs(after - before) < 1e-9 * before:  # 1/sqrt(d) * sqrt(d) is 1 only up to rounding
        return "same"
    return "grows" if after > before else "shrinks"
