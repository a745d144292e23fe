"""The snippets of "What the engine reads" reproduce what the page draws.

The page is opened at its default view and at another (set through the URL, as a shared link would); the snippet
under the hero figure is run as a student would run it, and the wavelengths it names are compared with the core
call the page makes for that view: bit for bit, because the page and the snippet make the same call.
"""

import numpy as np
import pytest

import posenc_core as pc
from page_kit import registry
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
    data, config = pc.gguf_example(ex)
    expected_pairs, expected = pc.engine_wavelengths(pc.engine_table(pc.read_gguf_header(data), config, llama_text,
                                                                     vllm_text))
    np.testing.assert_array_equal(pairs, expected_pairs)
    assert list(waves) == list(expected)
    for name in expected:
        np.testing.assert_array_equal(waves[name], expected[name])
