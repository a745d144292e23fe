"""Reading a 2D table from the bytes of an uploaded .npy or .safetensors file, header first.

Both formats say the dtype and shape of their arrays in a small header before the data. Everything is
decided from that header (a numeric dtype, two dimensions, a size under the caps, exactly as many data bytes
as the header promises) before a single value is converted, so a file that lies about its shape, is cut
short, or holds Python objects is refused with a sentence instead of a MemoryError or a pickle load. The
values are then viewed in place (``np.frombuffer``) and converted once, to float32.

safetensors' bfloat16 and float8 types have no numpy dtype; they are decoded here bit for bit (a bfloat16 is
the top half of a float32, a float8 e5m2 the top half of a float16, a float8 e4m3fn by its 256-entry table).
"""

from __future__ import annotations

import io
import json

import numpy as np

__all__ = ["FLOAT8_E4M3FN", "SAFETENSORS_DTYPES", "TableLimits", "read_npy_table", "read_safetensors_table"]


class TableLimits:
    """The caps a table must meet: checked on the header, before any value is read."""

    def __init__(self, max_rows: int, max_cols: int, max_values: int):
        self.max_rows, self.max_cols, self.max_values = max_rows, max_cols, max_values

    def check(self, shape, where: str) -> tuple[int, int]:
        if len(shape) != 2:
            raise ValueError(f"{where} has shape {tuple(shape)}; a position table must be 2D (positions x channels).")
        rows, cols = (int(v) for v in shape)
        if rows < 2 or cols < 1:
            raise ValueError(f"{where} has shape {tuple(shape)}; it needs at least 2 positions and 1 channel.")
        if rows > self.max_rows or cols > self.max_cols:
            raise ValueError(f"{where} has shape {tuple(shape)}; this page takes at most {self.max_rows:,} "
                             f"positions and {self.max_cols:,} channels.")
        if rows * cols > self.max_values:
            raise ValueError(f"{where} has shape {tuple(shape)}, {rows * cols:,} values; this page takes at most "
                             f"{self.max_values:,} values (for example {self.max_rows:,} x "
                             f"{self.max_values // self.max_rows:,}), so that every analysis stays quick.")
        return rows, cols


def _e4m3fn_table() -> np.ndarray:
    """All 256 float8 e4m3fn values (OCP FP8: bias 7, no infinities, S.1111.111 is NaN) as float32."""
    bits = np.arange(256)
    sign = np.where(bits & 0x80, -1.0, 1.0)
    exponent, mantissa = (bits >> 3) & 0xF, bits & 0x7
    value = np.where(exponent == 0, mantissa / 8.0 * 2.0 ** -6, (1 + mantissa / 8.0) * 2.0 ** (exponent - 7.0))
    value = np.where((exponent == 0xF) & (mantissa == 0x7), np.nan, value)
    return (sign * value).astype(np.float32)


FLOAT8_E4M3FN = _e4m3fn_table()

# safetensors' dtype names: (bytes per value, how the raw little-endian bytes become float32)
SAFETENSORS_DTYPES = {
    "F64": (8, lambda raw: raw.view("<f8").astype(np.float32)),
    "F32": (4, lambda raw: raw.view("<f4").astype(np.float32)),
    "F16": (2, lambda raw: raw.view("<f2").astype(np.float32)),
    "BF16": (2, lambda raw: (raw.view("<u2").astype(np.uint32) << 16).view(np.float32)),
    "F8_E5M2": (1, lambda raw: (raw.astype(np.uint16) << 8).view("<f2").astype(np.float32)),
    "F8_E4M3": (1, lambda raw: FLOAT8_E4M3FN[raw]),
    "I64": (8, lambda raw: raw.view("<i8").astype(np.float32)),
    "I32": (4, lambda raw: raw.view("<i4").astype(np.float32)),
    "I16": (2, lambda raw: raw.view("<i2").astype(np.float32)),
    "I8": (1, lambda raw: raw.view(np.int8).astype(np.float32)),
    "U8": (1, lambda raw: raw.astype(np.float32)),
}


def _header_int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"This .safetensors file's header gives {what} as {value!r}, not a whole number; the file "
                         "is damaged.")
    return value


def read_npy_table(data, limits: TableLimits) -> np.ndarray:
    """A .npy file's 2D numeric array as float32, its header checked before any value is read."""
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"version {version[0]}.{version[1]} of the format is not read here")
    except (ValueError, OSError, EOFError, SyntaxError, TypeError) as error:
        raise ValueError(f"This is not a readable .npy file: its header cannot be read ({error}). Save the table "
                         "with np.save.") from None
    if dtype.hasobject:
        raise ValueError("This .npy file holds Python objects (a pickle), which this page never loads; save a "
                         "plain numeric array with np.save.")
    if dtype.kind not in "fiu" or dtype.itemsize > 8:  # no strings, structs, booleans, complex or long double
        raise ValueError(f"The array holds {dtype} values; a position table must hold real numbers (float or int).")
    rows, cols = limits.check(shape, "The array")
    offset, expected = stream.tell(), rows * cols * dtype.itemsize
    if len(data) - offset != expected:
        raise ValueError(f"The .npy header promises a {rows:,} x {cols:,} array of {dtype} ({expected:,} bytes), but "
                         f"the file holds {len(data) - offset:,} bytes after it: it is cut short or damaged.")
    values = np.frombuffer(data, dtype=dtype, count=rows * cols, offset=offset)  # a view, no copy
    return values.reshape((rows, cols), order="F" if fortran_order else "C").astype(np.float32)


def read_safetensors_table(data, tensor_name: str, limits: TableLimits) -> np.ndarray:
    """One named 2D tensor of a .safetensors file as float32, from its JSON header before any data."""
    view = memoryview(data)
    if len(view) < 8:
        raise ValueError("This is not a readable .safetensors file: it is shorter than its 8-byte header length.")
    header_size = int.from_bytes(view[:8], "little")
    if header_size > len(view) - 8:
        raise ValueError(f"This is not a readable .safetensors file: its header claims {header_size:,} bytes, more "
                         f"than the {len(view) - 8:,} that follow.")
    try:
        header = json.loads(bytes(view[8:8 + header_size]).decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ValueError("This is not a readable .safetensors file: its header is not valid JSON.") from None
    if not isinstance(header, dict):
        raise ValueError("This is not a readable .safetensors file: its header is not a JSON object.")
    names = [name for name in header if name != "__metadata__"]
    if tensor_name not in names:
        shown = ", ".join(repr(n) for n in names[:8]) + (" ..." if len(names) > 8 else "")
        raise ValueError(f"The file has no tensor named {tensor_name!r}; it has {shown or 'none'}.")
    entry = header[tensor_name]
    if not isinstance(entry, dict) or not isinstance(entry.get("shape"), list) or \
            not isinstance(entry.get("data_offsets"), list) or len(entry["data_offsets"]) != 2:
        raise ValueError(f"This .safetensors file's entry for {tensor_name!r} has no shape or data offsets; the file "
                         "is damaged.")
    dtype = entry.get("dtype")
    if dtype not in SAFETENSORS_DTYPES:
        raise ValueError(f"The tensor {tensor_name!r} holds {dtype} values; this page reads "
                         f"{', '.join(SAFETENSORS_DTYPES)}.")
    shape = [_header_int(v, "a dimension") for v in entry["shape"]]
    rows, cols = limits.check(shape, f"The tensor {tensor_name!r}")
    begin, end = (_header_int(v, "a data offset") for v in entry["data_offsets"])
    itemsize, decode = SAFETENSORS_DTYPES[dtype]
    start, stop = 8 + header_size + begin, 8 + header_size + end
    if end - begin != rows * cols * itemsize:
        raise ValueError(f"The header promises {rows:,} x {cols:,} {dtype} values ({rows * cols * itemsize:,} bytes) "
                         f"for {tensor_name!r} but gives them bytes {begin:,} to {end:,}: the file is damaged.")
    if stop > len(view):
        raise ValueError(f"The header promises {rows:,} x {cols:,} {dtype} values ({rows * cols * itemsize:,} bytes) "
                         f"for {tensor_name!r} at bytes {begin:,} to {end:,} of the data, but the file holds "
                         f"{len(view) - 8 - header_size:,} data bytes: it is cut short.")
    raw = np.frombuffer(view, dtype=np.uint8, count=stop - start, offset=start)  # a view, no copy
    return decode(raw).reshape(rows, cols)

