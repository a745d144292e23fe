"""Every preset through every config reading under each subset of the extras: a library user never gets a number
that differs from a full install's without being told.

Each subset runs in one subprocess whose missing packages are refused at import (``sys.modules[name] = None``);
all presets are read inside it. A reading either returns exactly what the full install returns, raises
``MissingExtraError``, or says in its ``source`` field that it is a generic reading.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import ROOT

SCRIPT = textwrap.dedent('''
    import dataclasses, json, sys
    for name in sys.argv[1:]:
        sys.modules[name] = None  # refused at import, as where the extra is not installed
    import numpy as np
    import posenc_core as pc
    from posenc_core import MissingExtraError
    from posenc_core import configs

    def canon(value):
        if dataclasses.is_dataclass(value):
            return [type(value).__name__, {f.name: canon(getattr(value, f.name)) for f in dataclasses.fields(value)
                                           if f.name != "obj"}]
        if isinstance(value, np.ndarray):
            return [str(value.dtype), list(value.shape), value.tobytes().hex() if value.dtype != object
                    else [str(v) for v in value.ravel()]]
        if isinstance(value, dict):
            return {str(k): canon(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [canon(v) for v in value]
        if isinstance(value, float):
            return repr(value)
        return value if isinstance(value, (int, str, bool, type(None))) else repr(value)

    def run(fn):
        try:
            return ["value", canon(fn())]
        except MissingExtraError as error:
            return ["missing", error.name]
        except ValueError as error:
            return ["refused", str(error)]

    def rows_of(config):
        reading, rows = pc.read_layers(config)
        return reading, rows

    out = {}
    for key in pc.PRESETS:
        config = pc.preset_config(key)
        reading = configs.normalise_config(config)
        got = {"source": reading.source,
               "read_layers": run(lambda: rows_of(config)[1]),
               "normalise_config": run(lambda: [reading.fields, reading.read, reading.ignored]),
               "read_rope_config": run(lambda: pc.read_rope_config(config)),
               "rope_layer_types": run(lambda: configs.rope_layer_types(config)),
               "describe_rope_config": run(lambda: configs.describe_rope_config(config)),
               "config_view": run(lambda: configs.config_view(config)),
               "rope_from_config": run(lambda: pc.rope_from_config(config, seq_len=32768)),
               "config_object": run(lambda: configs.config_object(config).known)}
        layers = []
        for row in rows_of(config)[1] if got["read_layers"][0] == "value" else []:
            if row.rotates:
                layers.append(run(lambda: configs.layer_inv_freq(row)))
        got["layer_inv_freq"] = ["value", layers]
        out[key] = got
    print(json.dumps(out))
''')

# the functions whose result a generic reading (``source`` other than "class") may change, because it says so
FLAGGED = {"read_layers", "normalise_config", "layer_inv_freq"}


def _readings(missing: tuple[str, ...]) -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT, *missing], cwd=ROOT, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def full() -> dict:
    return _readings(())


@pytest.mark.parametrize("missing", [("torch",), ("transformers",), ("transformers", "torch")])
def test_every_reading_equals_the_full_install_or_says_it_cannot(full, missing):
    readings = _readings(missing)
    assert readings.keys() == full.keys()
    for key, got in readings.items():
        flagged = got["source"] != full[key]["source"]
        if flagged:  # a generic reading where the full install used the class: it must say so
            assert full[key]["source"] == "class" and got["source"] == "transformers_missing", key
        for name, result in got.items():
            if name == "source" or result == full[key][name]:
                continue
            if name in FLAGGED and flagged:
                continue
            if result[0] == "missing":
                assert result[1] in missing, (key, name, result)
                continue
            assert name == "layer_inv_freq" and all(r == ["missing", "torch"] for r in result[1]) and \
                "torch" in missing, (key, name, result, full[key][name])
