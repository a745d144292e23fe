"""Generated .npy and .safetensors files through the Learned page's loading and analysis.

Every file (any shape and dtype, cut short, with a lying header, pickled) gives a float32 table or a
ValueError, and the analysis of the largest accepted table stays within an allocation bound (tracemalloc,
not time: time depends on the machine's load, see bench/uploads.py).
"""

from __future__ import annotations

import io
import json
import math
import struct
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from posenc_core.absolute import (
    MAX_TABLE_ROWS,
    MAX_TABLE_VALUES,
    MAX_UPLOAD_BYTES,
    learned_lookup,
    load_position_table,
    principal_components,
    sampled_similarity,
    table_summary,
)
from posenc_core.absolute.table_files import FLOAT8_E4M3FN, SAFETENSORS_DTYPES
from posenc_core.configs import MAX_CONFIG_BYTES
from posenc_core.inference import MAX_HEADER_BYTES

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NPY_DTYPES = ["<f8", ">f8", "<f4", "<f2", "<i8", "<i4", "<i2", "|i1", "|u1", "<u2", "|b1", "<c8", "<U3", "|O",
              "<M8[s]", "|V4"]
ANALYSIS_BUDGET = 200 * 2**20  # bytes allocated at the peak by loading and analysing the largest table


def npy_bytes(array: np.ndarray, allow_pickle=False) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def npy_header(descr: str, shape, fortran=False) -> bytes:
    """A .npy header alone (a file whose data can be anything, including missing)."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": descr, "fortran_order": fortran, "shape": tuple(shape)})
    return buffer.getvalue()


def safetensors_bytes(entries: dict, data: bytes, metadata=None) -> bytes:
    header = dict(entries, **({"__metadata__": metadata} if metadata else {}))
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


def load_or_refuse(data, name, tensor=None):
    try:
        table = load_position_table(data, name, tensor)
    except ValueError as error:
        assert str(error) and "Traceback" not in str(error)
        return None
    assert table.dtype == np.float32 and table.ndim == 2 and np.isfinite(table).all()
    assert 2 <= table.shape[0] <= MAX_TABLE_ROWS and table.size <= MAX_TABLE_VALUES
    return table


shapes = st.lists(st.integers(0, 9), min_size=0, max_size=4)
lying_shapes = st.lists(st.sampled_from([0, 1, 3, 4096, 4097, 10**4, 10**6, 2**40, 2**63 - 1]), max_size=3)


@SETTINGS
@given(st.sampled_from(NPY_DTYPES), shapes, st.booleans(), st.integers(-40, 40))
def test_generated_npy_files_give_a_table_or_a_value_error(descr, shape, fortran, cut):
    dtype = np.dtype(descr)
    array = np.zeros(shape, dtype=dtype) if dtype.kind != "O" else np.full(shape, None, dtype=object)
    if fortran:
        array = np.asfortranarray(array)
    data = npy_bytes(array, allow_pickle=True)
    data = data[:len(data) + cut] if cut < 0 else data + b"\x00" * cut  # cut short, or trailing bytes
    table = load_or_refuse(data, "t.npy")
    if table is not None:
        assert cut == 0 and dtype.kind in "fiu"
        np.testing.assert_array_equal(table, array.astype(np.float32))


@SETTINGS
@given(st.sampled_from(NPY_DTYPES), lying_shapes, st.binary(max_size=64))
def test_npy_headers_that_lie_about_the_shape_are_refused_before_allocating(descr, shape, data):
    tracemalloc.start()
    try:
        load_or_refuse(npy_header(descr, shape) + data, "t.npy")
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < 2**20  # a header that claims terabytes allocates nothing of them


@SETTINGS
@given(st.sampled_from([*SAFETENSORS_DTYPES, "BOOL", "F8_E8M0", "C64", "nope", 7, None]),
       st.one_of(shapes, lying_shapes, st.just("2x3")), st.integers(0, 2**40), st.integers(-3, 64),
       st.booleans())
def test_generated_safetensors_give_a_table_or_a_value_error(dtype, shape, begin, length, named):
    itemsize = SAFETENSORS_DTYPES.get(dtype, (1,))[0] if isinstance(dtype, str) else 1
    size = math.prod(shape) * itemsize if isinstance(shape, list) else 4
    offsets = [0, size] if begin % 3 == 0 else [begin, begin + length]
    data = safetensors_bytes({"pos": {"dtype": dtype, "shape": shape, "data_offsets": offsets}},
                             b"\x01" * min(size, 4096), metadata={"format": "pt"})
    load_or_refuse(data, "t.safetensors", "pos" if named else "other")
    load_or_refuse(data[:len(data) // 2], "t.safetensors", "pos")  # cut inside the header or the data
    load_or_refuse(struct.pack("<Q", 2**63) + data[8:], "t.safetensors", "pos")  # header length lies


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2", "bfloat16", "float16", "float32", "float64",
                                   "int8", "uint8", "int16", "int32", "int64"])
def test_every_safetensors_dtype_reads_exactly_as_torch_converts_it(dtype):
    torch = pytest.importorskip("torch")
    from safetensors.torch import save

    table = torch.randn(37, 11, generator=torch.Generator().manual_seed(1)) * 20
    table = table.to(getattr(torch, dtype))
    read = load_position_table(save({"pos": table, "other": torch.ones(3)}), "t.safetensors", "pos")
    np.testing.assert_array_equal(read, table.float().numpy())


def test_the_float8_e4m3fn_table_is_torchs():
    torch = pytest.importorskip("torch")
    bits = torch.arange(256, dtype=torch.uint8).view(torch.float8_e4m3fn).float().numpy()
    np.testing.assert_array_equal(FLOAT8_E4M3FN, bits)  # NaN at 0x7F and 0xFF in both
    assert FLOAT8_E4M3FN[0x7E] == 448.0  # the format's largest finite value


# ------------------------------------------------------------------ the listed cases

@pytest.mark.parametrize("shape", [(1000000, 1000000), (10000, 10000, 10000)])
def test_a_header_claiming_a_huge_array_over_64_bytes_is_a_sentence(shape):
    with pytest.raises(ValueError, match="2D|at most"):
        load_position_table(npy_header("<f4", shape) + b"\x00" * 64, "t.npy")


def test_a_float8_safetensors_upload_is_read_not_an_attribute_error():
    torch = pytest.importorskip("torch")
    from safetensors.torch import save

    table = torch.linspace(-2, 2, 64).reshape(8, 8).to(torch.float8_e4m3fn)
    read = load_position_table(save({"pos": table}), "t.safetensors", "pos")
    np.testing.assert_array_equal(read, table.float().numpy())


def test_a_pickled_object_array_is_refused_without_unpickling():
    class Boom:
        def __reduce__(self):
            return (pytest.fail, ("unpickled",))

    data = npy_bytes(np.array([[Boom(), Boom()], [Boom(), Boom()]], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="pickle"):
        load_position_table(data, "t.npy")


def largest_tables():
    """The largest table each dtype can upload: the values cap, or the byte cap for wide dtypes."""
    for dtype in ("int8", "float16", "float32", "float64"):
        itemsize = np.dtype(dtype).itemsize
        values = min(MAX_TABLE_VALUES, (MAX_UPLOAD_BYTES - 128) // itemsize)
        cols = values // MAX_TABLE_ROWS
        yield dtype, (MAX_TABLE_ROWS, cols)


@pytest.mark.parametrize("dtype, shape", list(largest_tables()))
def test_the_largest_accepted_upload_is_analysed_within_the_allocation_bound(dtype, shape):
    rng = np.random.default_rng(0)
    table = (rng.standard_normal(shape) * 10).astype(dtype)
    data = npy_bytes(table)
    assert len(data) <= MAX_UPLOAD_BYTES
    tracemalloc.start()
    try:
        loaded = load_position_table(data, "t.npy")
        sampled_similarity(loaded)
        principal_components(loaded, 6)
        table_summary(loaded)
        learned_lookup(loaded, 2 * loaded.shape[0], strict=False)
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peak < ANALYSIS_BUDGET, f"{peak / 2**20:.0f} MiB"


def test_one_row_past_a_cap_is_refused_by_the_header():
    for shape in ((MAX_TABLE_ROWS + 1, 2), (2, 16385), (MAX_TABLE_ROWS, MAX_TABLE_VALUES // 4096 + 1)):
        with pytest.raises(ValueError, match="at most"):
            load_position_table(npy_header("|i1", shape), "t.npy")


def test_server_cap_is_the_largest_widget_limit():
    import re
    from pathlib import Path

    config = (Path(__file__).resolve().parents[1] / ".streamlit" / "config.toml").read_text()
    server_mb = int(re.search(r"^maxUploadSize\s*=\s*(\d+)", config, re.M).group(1))
    assert server_mb * 2**20 == max(MAX_UPLOAD_BYTES, MAX_CONFIG_BYTES, MAX_HEADER_BYTES)
