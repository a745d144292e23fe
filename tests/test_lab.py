"""The extrapolation lab: task generator, every method's forward pass, determinism, the CLI's JSON, results I/O.

All runs use tiny settings (T = 8, a few steps) so the whole file takes seconds.
"""

import json
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from posenc_core.attention_bias import t5_bucket_grid
from posenc_core.lab import (
    FULL,
    IGNORE,
    LAB_METHODS,
    LONGEST_CANDIDATES,
    QUICK,
    TRAINED_METHODS,
    LabResult,
    LabTask,
    MethodScores,
    best_method,
    build_model,
    check_methods,
    lab_attention_panels,
    lab_by_method,
    lab_interpolation_question,
    lab_live_series,
    lab_longest_question,
    lab_schedule,
    lab_scores_at,
    lab_series,
    lab_settings,
    lab_train_curves,
    load_lab_results,
    retrieval_batch,
    run_lab,
    save_lab_results,
    select_methods,
    shipped_lab_results,
    uniform_guess_loss,
    warmup_steps,
)
from posenc_core.lab.results import SHIPPED_LAB_JSON, SHIPPED_LAB_NPZ
from tests import apptest_pages
from tests.conftest import ROOT

torch = pytest.importorskip("torch")

TINY = replace(QUICK, train_len=8, steps=12, batch=4, eval_sequences=4)
ASSET_JSON, ASSET_NPZ = SHIPPED_LAB_JSON, SHIPPED_LAB_NPZ  # package data


# ---- the task -----------------------------------------------------------------------------------------------

def test_retrieval_batch_targets_are_the_tokens_k_back():
    tokens, targets = retrieval_batch(3, 10, 2, 16, seed=5)
    assert tokens.shape == targets.shape == (3, 10) and tokens.dtype == np.int64
    assert (targets[:, :2] == IGNORE).all()
    np.testing.assert_array_equal(targets[:, 2:], tokens[:, :-2])
    assert tokens.min() >= 0 and tokens.max() < 16


@settings(max_examples=40, deadline=None)
@given(batch=st.integers(1, 5), length=st.integers(2, 40), vocab=st.integers(2, 50), data=st.data())
def test_retrieval_batch_property(batch, length, vocab, data):
    k = data.draw(st.integers(1, length - 1))
    tokens, targets = retrieval_batch(batch, length, k, vocab, seed=0)
    for t in range(length):
        expected = tokens[:, t - k] if t >= k else np.full(batch, IGNORE)
        np.testing.assert_array_equal(targets[:, t], expected)
    assert tokens.max() < vocab


def test_retrieval_batch_is_seeded():
    a, b, c = (retrieval_batch(2, 12, 3, 8, seed=s)[0] for s in (1, 1, 2))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("args, message", [
    ((2, 4, 4, 16, 0), "shorter than the sequence"),
    ((2, 4, 0, 16, 0), "at least 1"),
    ((2, 4, 1, 1, 0), "vocab must be at least 2"),
    ((0, 4, 1, 16, 0), "batch must be at least 1"),
    ((2, 4, 1, 16, -1), "seed must be at least 0"),
    ((2, 4.5, 1, 16, 0), "whole number"),
])
def test_retrieval_batch_errors(args, message):
    with pytest.raises(ValueError, match=message):
        retrieval_batch(*args)


# ---- the model ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("method", TRAINED_METHODS)
@pytest.mark.parametrize("length", [8, 16])
def test_forward_shapes_and_causal_attention(method, length):
    model = build_model(method, TINY)
    tokens = torch.from_numpy(retrieval_batch(3, length, TINY.k, TINY.vocab, 0)[0])
    if method == "learned" and length > TINY.train_len:
        with pytest.raises(ValueError, match="learned table has 8 rows"):
            model(tokens)
        return
    logits, maps = model(tokens, return_attention=True)
    assert logits.shape == (3, length, TINY.vocab)
    assert len(maps) == TINY.n_layers
    for attn in maps:
        assert attn.shape == (3, TINY.n_heads, length, length)
        torch.testing.assert_close(attn.sum(-1), torch.ones(3, TINY.n_heads, length))
        assert float(attn.detach().triu(1).abs().max()) == 0.0  # nothing attends to the future


def test_position_inputs_use_the_core_tables():
    from posenc_core.lab.model import rope_scaling_for

    alibi = build_model("alibi", TINY)
    _, bias, _ = alibi.position_inputs(12)
    np.testing.assert_array_equal(bias.numpy(), pc.alibi_bias(TINY.n_heads, 12))
    sin = build_model("sinusoidal", TINY)
    added, _, _ = sin.position_inputs(12)
    np.testing.assert_array_equal(added.numpy(), pc.sinusoidal(12, TINY.d_model))
    rope = build_model("rope", TINY)
    scaling = rope_scaling_for("rope_yarn", 32, 8)
    assert scaling == {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8}
    _, _, (positions, inv_freq, factor) = rope.position_inputs(32, scaling)
    expected_inv, expected_factor = pc.rope_inv_freq(16, 10000.0, scaling)
    np.testing.assert_array_equal(inv_freq.numpy(), expected_inv)
    assert factor == pytest.approx(expected_factor) and factor > 1  # YaRN's attention factor is applied
    assert rope_scaling_for("rope_pi", 8, 8) is None  # within T every variant is plain RoPE
    assert rope_scaling_for("rope_pi", 16, 8) == {"rope_type": "linear", "factor": 2.0}
    assert rope_scaling_for("rope_ntk", 64, 8) == {"rope_type": "ntk", "factor": 8.0}
    t5 = build_model("t5", TINY)
    with torch.no_grad():
        t5.t5_bias.weight.copy_(torch.arange(32.0)[:, None].repeat(1, TINY.n_heads))
    _, bias, _ = t5.position_inputs(10)
    buckets = t5_bucket_grid(10, bidirectional=False, num_buckets=32, max_distance=128)
    lower = np.tril(np.ones((10, 10), dtype=bool))
    np.testing.assert_array_equal(bias[0].detach().numpy()[lower], buckets[lower])
    with pytest.raises(ValueError, match="only applies to the RoPE model"):
        alibi.position_inputs(8, {"rope_type": "linear", "factor": 2})


def test_build_model_is_seeded():
    a, b = build_model("rope", TINY), build_model("rope", TINY)
    c = build_model("rope", TINY, seed=1)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters(), strict=True))
    assert not torch.equal(a.embed.weight, c.embed.weight)


# ---- the experiment -----------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny_run():
    return run_lab(TINY, ["learned", "rope", "alibi", "rope_yarn"])


def test_run_lab_schema_and_null_for_learned_beyond_T(tiny_run):
    result = tiny_run
    assert result.train_len == 8 and result.eval_lengths == [8, 16, 32, 64]
    assert list(result.methods) == ["learned", "rope", "alibi", "rope_yarn"]
    learned = result.methods["learned"]
    assert learned.accuracy[0] is not None and learned.accuracy[1:] == [None, None, None]
    assert learned.loss[1:] == [None, None, None]
    assert all("never created" in note for note in learned.notes[1:])
    for name in ("rope", "alibi", "rope_yarn"):
        assert all(0 <= a <= 1 for a in result.methods[name].accuracy)
        assert all(v > 0 for v in result.methods[name].loss)
    # the YaRN variant is the RoPE model: identical at T, different beyond it
    assert result.methods["rope_yarn"].accuracy[0] == result.methods["rope"].accuracy[0]
    assert result.methods["rope_yarn"].train_curve is None
    assert len(result.methods["rope"].train_curve.loss) == TINY.steps
    attention = result.attention
    assert attention["learned"].at_4T is None and "never created" in attention["learned"].note
    assert attention["rope"].at_T.shape == (8, 8) and attention["rope"].at_4T.shape == (32, 32)
    assert 0 <= attention["rope"].mass_T <= 1


def test_run_lab_is_deterministic(tiny_run):
    again = run_lab(TINY, ["learned", "rope", "alibi", "rope_yarn"])
    for name, entry in tiny_run.methods.items():
        assert again.methods[name].accuracy == entry.accuracy
        assert again.methods[name].loss == entry.loss
    np.testing.assert_array_equal(again.attention["rope"].at_4T, tiny_run.attention["rope"].at_4T)
    other = run_lab(replace(TINY, seed=1), ["rope"], with_attention=False)
    assert other.methods["rope"].loss != tiny_run.methods["rope"].loss
    assert other.attention is None


def test_rope_learns_the_task_at_T():
    small = replace(QUICK, train_len=16, steps=150, eval_sequences=16)
    result = run_lab(small, ["rope"], with_attention=False)
    assert result.methods["rope"].accuracy[0] >= 0.9


def test_progress_reports_reach_one():
    events = []
    run_lab(replace(TINY, steps=10), ["none", "rope_pi"], progress=events.append, with_attention=False)
    assert {e["kind"] for e in events} == {"train", "eval"}
    assert events[-1]["fraction"] == pytest.approx(1.0)
    assert all(a["fraction"] <= b["fraction"] for a, b in zip(events, events[1:], strict=False))


def test_results_roundtrip_and_helpers(tiny_run, tmp_path):
    save_lab_results(tiny_run, tmp_path / "r.json", tmp_path / "r.npz")
    loaded = load_lab_results(tmp_path / "r.json", tmp_path / "r.npz")
    assert loaded.attention is not None and loaded.task == tiny_run.task and loaded.eval_lengths == [8, 16, 32, 64]
    curve, saved = loaded.methods["rope"].train_curve, tiny_run.methods["rope"].train_curve
    assert curve.step == saved.step and curve.loss == pytest.approx(saved.loss, rel=1e-5)  # 6 significant digits
    np.testing.assert_allclose(loaded.attention["rope"].at_T, tiny_run.attention["rope"].at_T,
                               atol=1e-3)  # stored as float16
    lengths, series = lab_series(loaded, "accuracy")
    assert list(lengths) == [8, 16, 32, 64] and np.isnan(series["learned absolute"][1:]).all()
    panels = lab_attention_panels(loaded, "4T")
    assert [p.grid.shape for p in panels] == [(32, 32)] * 4 and np.isnan(panels[0].grid).all()
    assert (panels[0].method, panels[0].runs, panels[0].length, panels[0].layer) == ("learned", False, 32, None)
    from lessons.lab.lab_views import panel_title  # the page's words for a panel

    assert panel_title(panels[0]) == "learned: cannot run at 32"
    rope = panels[1]
    assert rope.runs and (rope.layer, rope.head) == (loaded.attention["rope"].layer, loaded.attention["rope"].head)
    assert rope.mass == loaded.attention["rope"].mass_4T
    steps, curves = lab_train_curves(loaded)
    assert list(curves) == ["learned absolute", "RoPE", "ALiBi"] and len(steps) == TINY.steps
    picked = select_methods(loaded, ["rope_yarn", "rope", "unknown"])
    assert list(picked.methods) == ["rope_yarn", "rope"] and list(picked.attention) == ["rope_yarn", "rope"]
    name, accuracy = best_method(loaded)
    assert accuracy == max(e.accuracy[0] for e in loaded.methods.values())
    assert name in loaded.methods


def test_live_series_pads_unfinished_curves():
    steps, series = lab_live_series({"a": {"step": [1, 2, 3], "loss": [3.0, 2.0, 1.0]},
                                        "b": {"step": [1], "loss": [2.5]}}, {"a": "A"})
    assert list(steps) == [1, 2, 3]
    np.testing.assert_array_equal(series["A"], [3, 2, 1])
    assert series["b"][0] == 2.5 and np.isnan(series["b"][1:]).all()
    assert lab_live_series({})[0].size == 0


def test_load_errors(tmp_path):
    with pytest.raises(ValueError, match="Could not read"):
        load_lab_results(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text(json.dumps({"task": 1}))
    with pytest.raises(ValueError, match="'train_len' is missing"):
        load_lab_results(tmp_path / "bad.json")
    empty = LabResult(LabTask("retrieve-k-back", "", 2, 16, 1 / 16, {}), 8, [8, 16, 32, 64], {}, 0.0)
    with pytest.raises(ValueError, match="metric must be"):
        lab_series(empty, "perplexity")
    with pytest.raises(ValueError, match="at must be"):
        lab_attention_panels(empty, "2T")
    unscored = replace(empty, methods={"learned": MethodScores([None], [None], [None], "learned absolute")})
    with pytest.raises(ValueError, match="No method has an accuracy"):
        best_method(unscored)


@pytest.mark.parametrize("call, message", [
    (lambda: lab_settings("medium"), "mode must be one of"),
    (lambda: lab_settings(train_len=4), "at least 8"),
    (lambda: lab_settings(train_len=4096), "at most 128"),
    (lambda: lab_settings(steps=5), "steps must be at least 10"),
    (lambda: lab_settings(seed=-1), "seed must be at least 0"),
    (lambda: lab_settings(device="tpu"), "device must be one of"),
    (lambda: check_methods(["rope", "xpos"]), "method must be one of"),
    (lambda: check_methods([]), "at least one method"),
    (lambda: build_model("rope_yarn", TINY), "method must be one of"),
])
def test_settings_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.skipif(pc.cuda_available(), reason="only meaningful without a GPU")
def test_cuda_without_gpu_is_a_clear_error():
    with pytest.raises(ValueError, match="no CUDA device"):
        run_lab(lab_settings(train_len=8, steps=10, device="cuda"), ["rope"])


def test_presets():
    assert lab_settings("quick") == QUICK
    full = lab_settings("full", seed=3)
    assert (full.train_len, full.steps, full.seed, full.mode) == (FULL.train_len, FULL.steps, 3, "full")
    assert check_methods("rope_yarn,none") == ["none", "rope_yarn"]  # registry order
    assert check_methods(None) == list(LAB_METHODS)


# ---- the command line ---------------------------------------------------------------------------------------

def test_cli_writes_the_documented_json(tmp_path):
    out = tmp_path / "lab.json"
    cmd = [sys.executable, "-m", "posenc_core.lab", "--json", str(out), "--quick", "--seed", "3", "--device", "cpu",
           "--train-len", "8", "--steps", "10", "--methods", "none,learned,rope,rope_ntk",
           "--attention", str(tmp_path / "lab.npz")]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "train rope" in done.stdout and "eval  learned" in done.stdout and "wrote" in done.stdout
    data = json.loads(out.read_text())
    assert {"task", "train_len", "eval_lengths", "methods", "seconds"} <= set(data)
    assert data["train_len"] == 8 and data["eval_lengths"] == [8, 16, 32, 64]
    assert data["task"]["name"] == "retrieve-k-back" and data["task"]["settings"]["seed"] == 3
    assert data["task"]["description"].startswith("Sequences of independent, uniformly random symbols")
    assert list(data["methods"]) == ["none", "learned", "rope", "rope_ntk"]
    for entry in data["methods"].values():
        assert len(entry["accuracy"]) == len(entry["loss"]) == len(entry["notes"]) == 4
    assert data["methods"]["learned"]["accuracy"][1:] == [None, None, None]
    assert data["methods"]["learned"]["notes"][2].startswith("The learned table has 8 rows")
    assert isinstance(data["seconds"], float) and data["seconds"] > 0
    assert (tmp_path / "lab.npz").exists()


def test_cli_reports_bad_arguments(tmp_path):
    done = subprocess.run([sys.executable, "-m", "posenc_core.lab", "--json", str(tmp_path / "x.json"), "--quick",
                           "--train-len", "2"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and "error: T (the training length) must be at least 8" in done.stderr
    assert not (tmp_path / "x.json").exists()


# ---- the shipped results ------------------------------------------------------------------------------------

def test_shipped_full_results_match_the_full_preset():
    data = load_lab_results(ASSET_JSON, ASSET_NPZ)
    s = data.task.settings
    assert (s["mode"], s["train_len"], s["steps"], s["seed"], s["batch"]) == (
        "full", FULL.train_len, FULL.steps, 0, FULL.batch)
    assert list(data.methods) == list(LAB_METHODS)
    assert data.methods["learned"].accuracy[1:] == [None, None, None]
    assert set(data.attention) == set(LAB_METHODS)
    assert data.attention["rope"].at_4T.shape == (4 * s["train_len"],) * 2


# ---- the page -----------------------------------------------------------------------------------------------

def _lab_page():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300).run()
    at.switch_page("lessons/lab/lab.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _quick_settings(at):
    """quick preset, T = 16, 100 steps, seed 7, learned only; T and steps are drag sliders, moved as a browser does."""
    at.session_state["preset"], at.session_state["seed"], at.session_state["methods"] = "quick", 7, ["learned"]
    at.run()
    apptest_pages.move_drag_slider(at, "drag_T", "16")
    apptest_pages.move_drag_slider(at, "drag_steps", "100")


def test_page_trains_only_when_run_is_pressed_and_caches_the_run():
    at = _lab_page()
    assert any("shipped full-preset results" in c.value for c in at.caption)
    _quick_settings(at)
    assert not at.success and any("have not been run yet" in i.value for i in at.info)
    at.button(key="run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.exception]
    assert [s.value for s in at.success][0].startswith("Your run: quick preset, T = 16, 100 steps, seed 7")
    at.session_state["view"] = "Attention maps"
    at.run()  # no click: the finished run is shown again, from the cache
    assert not at.exception and at.success
    fresh = _lab_page()  # a new session with the same settings sees the finished run without pressing Run
    _quick_settings(fresh)
    assert fresh.success and not fresh.exception


def test_uniform_guess_loss():
    assert uniform_guess_loss(16) == pytest.approx(np.log(16))
    with pytest.raises(ValueError, match="at least 2"):
        uniform_guess_loss(1)


def test_every_trained_method_has_its_position_inputs_and_an_unknown_one_is_named():
    from posenc_core.lab.model import POSITION_INPUTS, POSITION_PARAMETERS, ModelConfig, TinyTransformer

    assert set(POSITION_INPUTS) == set(TRAINED_METHODS)  # one registry entry per trained model
    assert set(POSITION_PARAMETERS) <= set(POSITION_INPUTS)
    with pytest.raises(ValueError, match="Unknown lab method 'rope_pi'"):
        TinyTransformer("rope_pi", ModelConfig())  # an inference-only variant runs the RoPE model


# ---- what the page states about a run ---------------------------------------------------------------------------

def test_findings_of_the_shipped_run():
    shipped = shipped_lab_results()
    acc = lab_by_method(shipped, "accuracy")
    assert list(acc) == list(shipped.methods)
    longest = lab_longest_question(shipped)
    assert longest.best == max(longest.accuracy, key=longest.accuracy.get)
    assert all(longest.accuracy[n] < longest.accuracy[longest.best] - 0.01
               for n in longest.names if n != longest.best)
    assert longest.length == shipped.eval_lengths[-1] and set(longest.names) <= set(LONGEST_CANDIDATES)
    pi = lab_interpolation_question(shipped)
    assert pi.loss == lab_by_method(shipped, "loss")["rope_pi"][1]
    assert pi.guess == uniform_guess_loss(shipped.task.vocab) and pi.factor == 2
    assert pi.side == 2  # the shipped run: confidently wrong
    at_t = lab_scores_at(shipped, "accuracy", "T")
    at_end = lab_scores_at(shipped, "accuracy", "longest")
    assert LAB_METHODS["learned"].label in at_t and LAB_METHODS["learned"].label not in at_end  # no rows
    schedule = lab_schedule(shipped)
    assert schedule.warmup == warmup_steps(schedule.steps) == schedule.steps // 10


def test_questions_are_not_asked_without_their_methods():
    shipped = shipped_lab_results()
    assert lab_longest_question(select_methods(shipped, ["rope"])) is None
    assert lab_interpolation_question(select_methods(shipped, ["rope", "alibi"])) is None
    with pytest.raises(ValueError, match="length"):
        lab_scores_at(shipped, "accuracy", "8T")
