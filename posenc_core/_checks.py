"""Argument checks shared by the core.

Every public function validates its inputs here so that a bad value becomes one clear
sentence (a ``ValueError``) instead of a numpy traceback or a multi-gigabyte allocation.
"""

from __future__ import annotations

import math
import numbers
import sys

__all__ = ["MAX_DIM", "MAX_ELEMENTS", "MAX_HEADS", "MAX_POSITIONS", "as_base", "as_choice", "as_even_dim", "as_float",
           "as_int", "check_size"]

# Size caps. They bound memory, not correctness: 2**25 float32 values are 128 MiB,
# far more than any figure shows, and small enough for a 2-core laptop.
MAX_ELEMENTS = 1 << 25
MAX_DIM = 16384
MAX_HEADS = 1024
MAX_POSITIONS = 1 << 22


def as_int(name: str, value, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int, or raise a ValueError that names ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, numbers.Real) and not isinstance(value, bool) and float(value).is_integer():
            value = math.trunc(value)
        else:
            raise ValueError(f"{name} must be a whole number, but got {value!r}.")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, but got {value}.")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum:,} (a size cap that keeps memory bounded), "
                         f"but got {value:,}.")
    return value


def as_float(name: str, value, *, minimum: float | None = None, above: float | None = None,
             maximum: float | None = None) -> float:
    """Return ``value`` as a finite float, or raise a ValueError that names ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number, but got {value!r}.")
    try:
        value = float(value)
    except OverflowError:  # an int beyond the float range (a 401-digit integer in a config)
        digits = int(int(value).bit_length() * math.log10(2)) + 1  # str() of a 5,000-digit int raises
        raise ValueError(f"{name} must be a finite number no larger than {sys.float_info.max:.4g} in size, but "
                         f"got a whole number of about {digits:,} digits.") from None
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, but got {value}.")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum:g}, but got {value:g}.")
    if above is not None and value <= above:
        raise ValueError(f"{name} must be greater than {above:g}, but got {value:g}.")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be at most {maximum:g}, but got {value:g}.")
    return value


def as_base(value) -> float:
    """A frequency base: the geometric progression of wavelengths needs base > 1."""
    return as_float("base", value, above=1.0, maximum=1e12)


def as_even_dim(name: str, value, *, minimum: int = 2) -> int:
    value = as_int(name, value, minimum=minimum, maximum=MAX_DIM)
    if value % 2:
        raise ValueError(f"{name} must be even, because dimensions are used in (sin, cos) or rotation pairs; "
                         f"got {value}.")
    return value


def check_size(count: int, what: str) -> None:
    """Refuse requests whose result would hold more than MAX_ELEMENTS values."""
    if count > MAX_ELEMENTS:
        raise ValueError(
            f"{what} would hold {count:,} values, above the cap of {MAX_ELEMENTS:,}; "
            "ask for fewer positions or dimensions."
        )


def as_choice(name: str, value, choices) -> str:
    if value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {listed}, but got {value!r}.")
    return value
