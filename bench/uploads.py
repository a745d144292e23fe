"""Time and peak memory of the largest upload the Learned page accepts, per dtype. A measurement, not a test.

    python bench/uploads.py

For each dtype the largest accepted file is written (the 6 Mi-value cap, or the 20 MB byte cap for wide
dtypes); a fresh process then holds its bytes (as the session holds an upload) and does what the page does
on the default view: load (header first), the analysis (similarity at the rows drawn, 6 principal
components, the summary) and the figures of every tab. Printed: wall time of that, the CPU time the process
used for it (on a shared machine the wall time mostly measures the other processes), and the growth of the
process's peak resident memory over what it held before (Linux: VmHWM reset through /proc/self/clear_refs).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from posenc_core.absolute import (  # noqa: E402
    MAX_TABLE_ROWS,
    MAX_TABLE_VALUES,
    MAX_UPLOAD_BYTES,
    learned_lookup,
    load_position_table,
    principal_components,
    sampled_similarity,
    table_summary,
)
from posenc_core.measures import similarity_matrix  # noqa: E402

TENSOR = "pos"


def largest_file(kind: str) -> tuple[bytes, str, tuple[int, int]]:
    """The largest accepted upload of one dtype: (bytes, file name, shape)."""
    itemsize = {"int8": 1, "float8_e4m3fn": 1, "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}[kind]
    values = min(MAX_TABLE_VALUES, (MAX_UPLOAD_BYTES - 256) // itemsize)
    shape = (MAX_TABLE_ROWS, values // MAX_TABLE_ROWS)
    table = np.random.default_rng(0).standard_normal(shape, dtype=np.float32)
    if kind in ("bfloat16", "float8_e4m3fn"):  # numpy has no such dtype: written by safetensors from torch
        import torch
        from safetensors.torch import save

        return save({TENSOR: torch.from_numpy(table).to(getattr(torch, kind))}), "t.safetensors", shape
    buffer = io.BytesIO()
    np.save(buffer, (table * 40).astype(kind) if kind == "int8" else table.astype(kind))
    return buffer.getvalue(), "t.npy", shape


def _rss_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(field)


def measure(path: str) -> None:
    """In a fresh process: what the page does with the upload at ``path``; prints seconds and MB."""
    from page_kit import figures  # the figure kit the page draws with (decimation included)

    data = Path(path).read_bytes()  # the upload, held as the session holds it
    name = "t.safetensors" if path.endswith(".safetensors") else "t.npy"
    Path("/proc/self/clear_refs").write_text("5")  # reset the peak to the current resident size
    before = _rss_kib("VmRSS")
    start, cpu = time.perf_counter(), time.process_time()
    table = load_position_table(memoryview(data), name, TENSOR)
    sim = sampled_similarity(table)
    similarity_matrix(table[[0, 1, -1]], "cosine")  # the formula's two cosines
    pca, summary = principal_components(table, 6), table_summary(table)
    figures.heatmap(table, title="t", x_title="c", y_title="p", value_name="P", name="t", signed=True, robust=99,
                    alt="t")
    figures.heatmap(sim.similarity, x=sim.positions, y=sim.positions, title="s", x_title="j", y_title="i",
                    name="s", alt="s")
    figures.heatmap(learned_lookup(table, 2 * table.shape[0], strict=False), title="l", x_title="c",
                    y_title="p", name="l", signed=True, robust=99, alt="l")
    figures.lines(range(table.shape[0]), {f"c{c}": table[:, c] for c in summary.busiest}, title="d",
                  x_title="p", y_title="v", name="d", alt="d")
    figures.lines(range(table.shape[0]), {f"PC {c}": pca.scores[:, c] for c in range(4)}, title="p",
                  x_title="p", y_title="v", name="p", alt="p")
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    grew = (_rss_kib("VmHWM") - before) / 1024
    print(f"{elapsed:.2f} {cpu:.2f} {grew:.0f}")


def main() -> None:
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")
    print(f"{'dtype':<15}{'file':>14}{'shape':>14}{'bytes':>12}{'wall s':>8}{'CPU s':>8}{'peak +MB':>10}")
    with tempfile.TemporaryDirectory() as folder:
        for kind in ("int8", "float8_e4m3fn", "float16", "bfloat16", "float32", "float64"):
            data, name, shape = largest_file(kind)
            path = Path(folder) / f"{kind}{Path(name).suffix}"
            path.write_bytes(data)
            out = subprocess.run([sys.executable, __file__, "--measure", str(path)], capture_output=True, text=True,
                                 check=True, cwd=ROOT).stdout.split()
            print(f"{kind:<15}{Path(name).suffix:>14}{str(shape):>14}{len(data):>12,}{float(out[0]):>8.2f}"
                  f"{float(out[1]):>8.2f}{float(out[2]):>10.0f}")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--measure":
        measure(sys.argv[2])
    else:
        main()
