"""Hostile uploads and pastes on the pages themselves (AppTest): a result or the core's sentence, never an
exception box or the last-line guard (the conftest fixture fails a test on that)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

import posenc_core as pc
from page_kit import registry
from posenc_core.absolute import MINILM_TENSOR
from tests import apptest_pages


def _npy(array, **kwargs) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, **kwargs)
    return buffer.getvalue()


def _learned_with(filename: str, content: bytes, **query):
    at = apptest_pages.load(registry.page("learned"), src="your upload", **query)
    at.file_uploader(key="upload").upload(filename, content).run()
    return at


def test_an_uploaded_table_is_shown_on_every_tab():
    table = (np.random.default_rng(0).standard_normal((600, 300)) * 0.1).astype(np.float16)
    at = _learned_with("pos.npy", _npy(table))
    apptest_pages.assert_clean(at, "upload")
    assert any("Row norms run from" in m.value for m in at.markdown)  # the table tab, from the upload
    for label in apptest_pages.tab_groups(at)["view"]:
        apptest_pages.open_tab(at, "view", label)  # each tab: no exception, no error box


@pytest.mark.parametrize("filename, content, sentence", [
    ("huge.npy", b"", "at most"),  # filled in below: a header claiming 10^12 values over 64 bytes
    ("cube.npy", b"", "2D"),
    ("pickle.npy", _npy(np.array([[{"a": 1}] * 2] * 2, dtype=object), allow_pickle=True), "pickle"),
    ("cut.npy", _npy(np.zeros((64, 8), dtype=np.float32))[:-100], "cut short"),
])
def test_hostile_npy_uploads_give_the_cores_sentence(filename, content, sentence):
    if filename in ("huge.npy", "cube.npy"):
        shape = (1000000, 1000000) if filename == "huge.npy" else (10000, 10000, 10000)
        buffer = io.BytesIO()
        np.lib.format.write_array_header_1_0(buffer, {"descr": "<f4", "fortran_order": False, "shape": shape})
        content = buffer.getvalue() + b"\x00" * 64
    at = _learned_with(filename, content)
    assert not at.exception
    assert len(at.error) == 1 and sentence in apptest_pages.read(at.error[0])


def test_a_float8_safetensors_upload_is_shown():
    torch = pytest.importorskip("torch")
    from safetensors.torch import save

    table = torch.randn(64, 32, generator=torch.Generator().manual_seed(0)).to(torch.float8_e4m3fn)
    at = _learned_with("model.safetensors", save({MINILM_TENSOR: table}))
    apptest_pages.assert_clean(at, "float8 upload")


@pytest.mark.parametrize("page, body, sentence", [
    ("model_configs", '{"model_type": "llama", "rope_theta": ' + "9" * 401 + "}", "401 digits"),
    ("model_configs", '{"model_type": "llama", "rope_scaling": {"rope_type": "yarn", "factor": 4, '
                      '"original_max_position_embeddings": 8192, "attention_factor": 1e308}}', "attention_factor"),
    ("model_configs", '{"model_type": "llama", "rope_scaling": {"rope_type": "yarn", "factor": 4, '
                      '"original_max_position_embeddings": 8192, "beta_fast": -1, "beta_slow": 1e308}}', "beta_"),
    ("model_configs", '{"model_type": "llama", "max_position_embeddings": 131072, "rope_scaling": '
                      '{"rope_type": "llama3", "factor": 1e300, "original_max_position_embeddings": 8192, '
                      '"low_freq_factor": 1, "high_freq_factor": 4}}', "factor"),
    ("layer_strip", '{"model_type": "llama", ' + '"x": ' + "[" * 700 + "]" * 700 + "}", "nested"),
    ("layer_strip", '{"model_type": "llama", "rope_theta": Infinity}', "rope_theta"),
    ("mm_position_ids", '{"model_type": ["llama"]}', "model_type"),
])
def test_hostile_pasted_configs_give_a_sentence_naming_the_field(page, body, sentence):
    at = apptest_pages.load(registry.page(page), src="Your config.json" if page.startswith("mm_") else "json")
    at.text_area(key="cfg").set_value(body).run()
    assert not at.exception
    shown = [apptest_pages.read(e) for e in at.error]
    assert len(shown) == 1 and sentence in shown[0], shown
    assert "math domain" not in shown[0] and "max_distance" not in shown[0]


def test_transformers_infinity_tokens_outside_position_fields_are_read():
    config = pc.preset_config("llama3.1-8b")
    body = json.dumps(config)[:-1] + ', "attn_logit_softcapping": Infinity}'
    at = apptest_pages.load(registry.page("model_configs"), src="json")
    at.text_area(key="cfg").set_value(body).run()
    apptest_pages.assert_clean(at, "a config with Infinity outside position fields")
    # Granite 4.0-H's time_step_limit is (0.0, inf) by default, in transformers 5's tagged form here
    granite = '{"model_type": "granitemoehybrid", "num_hidden_layers": 4, "time_step_limit": [0.0, ' \
              '{"__float__": "Infinity"}]}'
    at = apptest_pages.load(registry.page("layer_strip"), src="json")
    at.text_area(key="cfg").set_value(granite).run()
    apptest_pages.assert_clean(at, "Granite 4.0-H with an infinite time_step_limit")
    # a value transformers' own class refuses is refused with its reason, naming the field
    at = apptest_pages.load(registry.page("model_configs"), src="json")
    at.text_area(key="cfg").set_value(json.dumps(config)[:-1] + ', "initializer_range": NaN}').run()
    assert not at.exception and any("initializer_range" in apptest_pages.read(e) for e in at.error)


def test_a_sliding_layer_without_a_window_is_drawn():
    config = {"model_type": "gemma3_text", "num_hidden_layers": 4, "head_dim": 64, "num_attention_heads": 4,
              "hidden_size": 256, "layer_types": ["sliding_attention", "full_attention"] * 2, "sliding_window": None}
    at = apptest_pages.load(registry.page("layer_strip"), src="json")
    at.text_area(key="cfg").set_value(json.dumps(config)).run()
    assert not at.exception and not any("TypeError" in e.value for e in at.error)
