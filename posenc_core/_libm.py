"""The C library's single-precision functions (``powf``, ``logf``, ``cosf``, ``sinf``), called through ctypes.

ggml's CPU kernels call these C functions on floats; numpy's float32 ``power``, ``cos`` and ``sin`` are other
implementations and may round differently (``np.power(np.float32(1e5), np.float32(-2 / 64))`` is one ulp above
glibc's ``powf``). Where the core reproduces a C kernel's numbers it calls the same functions of the C library
this process runs on.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys

import numpy as np

__all__ = ["c_cosf", "c_logf", "c_powf", "c_sinf"]

_NAMES = ("powf", "logf", "cosf", "sinf")


@functools.cache
def _library():
    """The loaded C maths library, with float signatures set; a ValueError where there is none to call."""
    candidates = ["msvcrt"] if sys.platform == "win32" else [ctypes.util.find_library("m"), "libm.so.6"]
    for name in filter(None, candidates):
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        for fn in _NAMES:
            getattr(lib, fn).restype = ctypes.c_float
        lib.powf.argtypes = [ctypes.c_float, ctypes.c_float]
        for fn in _NAMES[1:]:
            getattr(lib, fn).argtypes = [ctypes.c_float]
        return lib
    raise ValueError("The C maths library (libm) cannot be loaded here, so ggml's float32 powf, cosf and sinf "
                     "cannot be reproduced exactly.")


def c_powf(x: float, y: float) -> np.float32:
    """C's ``powf(x, y)`` on float32 arguments."""
    return np.float32(_library().powf(np.float32(x), np.float32(y)))


def _each(fn: str, values) -> np.ndarray:
    f = getattr(_library(), fn)
    flat = np.asarray(values, dtype=np.float32).ravel()  # (n,)
    return np.fromiter((f(v) for v in flat.tolist()), dtype=np.float32, count=flat.size).reshape(np.shape(values))


def c_logf(values) -> np.ndarray:
    """C's ``logf`` of each float32 value (same shape, float32)."""
    return _each("logf", values)


def c_cosf(values) -> np.ndarray:
    """C's ``cosf`` of each float32 value (same shape, float32)."""
    return _each("cosf", values)


def c_sinf(values) -> np.ndarray:
    """C's ``sinf`` of each float32 value (same shape, float32)."""
    return _each("sinf", values)
