"""The snippets of "What the engine reads" reproduce what the page draws.

The page is opened at its default view and at another (set through the URL, as a shared link would); the snippet
under the hero figure is run as a student would run it, and the wavelengths it names are compared with the core
call the page makes for that view: bit for bit, because the page and the snippet make the same call.
"""

import numpy as np
import pytest

import posenc_core as pc
from lessons.inference.engine_examples_views import gguf_example
from page_kit import registry
from posenc_core.inference import (
    REFUSALS,
    VllmContext,
    engine_table,
    engine_wavelengths,
    read_gguf_header,
    vllm_context,
    vllm_flags,
)
from tests import apptest_pages

INFO = registry.page("engine_metadata")


def _named(spaces: list[dict], name: str):
    found = [s[name] for s in spaces if name in s]
    assert found, f"no snippet names {name!r}"
    return found[0]


@pytest.mark.parametrize("query, view", [
    ({}, ("qwen-yarn", "llama-server -m model.gguf -c 32768",
          "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768")),
    ({"ex": "qwen-no-yarn", "lf": "--rope-scaling yarn --rope-scale 4", "vf": "--max-model-len 65536"},
     ("qwen-no-yarn", "--rope-scaling yarn --rope-scale 4", "--max-model-len 65536")),
])
def test_hero_snippet_reproduces_the_wavelengths(query, view):
    ex, llama_text, vllm_text = view
    spaces = apptest_pages.run_snippets(apptest_pages.load(INFO, **query), "engine_metadata")
    pairs, waves = _named(spaces, "pairs"), _named(spaces, "waves")
    data, config = gguf_example(ex)
    expected_pairs, expected = engine_wavelengths(engine_table(read_gguf_header(data), config, llama_text,
                                                                     vllm_text))
    np.testing.assert_array_equal(pairs, expected_pairs)
    assert list(waves) == list(expected)
    for name in expected:
        np.testing.assert_array_equal(waves[name], expected[name])


@pytest.mark.parametrize("query, model, vllm_text", [
    ({"view": "vLLM's length"}, "example", "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768"),
    ({"view": "vLLM's length", "vm": "Phi-3.5 mini (LongRoPE)", "vf": "vllm serve m"}, "phi3.5-mini",
     "vllm serve m"),
    ({"view": "vLLM's length", "vm": "Gemma 3 27B", "vf": "--max-model-len 1048576"}, "gemma3-27b",
     "--max-model-len 1048576"),
])
def test_vllm_snippet_reproduces_the_length(query, model, vllm_text):
    spaces = apptest_pages.run_snippets(apptest_pages.load(INFO, **query), "engine_metadata")
    config = gguf_example("qwen-yarn")[1] if model == "example" else pc.preset_config(model)
    assert _named(spaces, "ctx") == vllm_context(config, vllm_flags(vllm_text))


def test_every_vllm_code_has_words():
    from lessons.inference import vllm_length_views as words

    assert set(words.REFUSAL_WORDS) == set(REFUSALS)
    for code in REFUSALS:
        stopped = VllmContext("llama", "transformers", "max_position_embeddings", 4096, ("default",), "unchanged",
                                 1.0, None, 4096.0, 4096, "derived", 8192, None, None, code, None)
        assert words.sentence(stopped).startswith(("vLLM stops", "transformers has no config class"))
    served = {vllm_context(pc.preset_config(key), vllm_flags(text)).served_rule
              for key in ("phi3.5-mini", "llama2-7b") for text in ("", "--max-model-len 4096",
                                                                    "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve m "
                                                                    "--max-model-len 300000")}
    assert served <= set(words.SERVED_WORDS) and len(served) == 3
    own = vllm_context(pc.preset_config("qwen3-next-80b"), vllm_flags(""))
    assert words.sentence(own).endswith(words.CLASS_NOTE)
