"""rope_inv_freq is bit-identical to transformers' own arithmetic; dynamic NTK's state; the float64 ideal.

Random sweeps over every rope type (seeded loops, modest counts) compare the bits of our float32 frequencies
with transformers' init functions, and dynamic NTK with ``LlamaRotaryEmbedding`` driven call by call.
"""

import logging

import numpy as np
import pytest

import posenc_core as pc
from posenc_core.rope import DYNAMIC_CALL_PATTERNS, dynamic_call_lengths, rope_dynamic_calls

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
from transformers import LlamaConfig  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding  # noqa: E402

logging.getLogger("transformers").setLevel(logging.ERROR)

HEAD_DIMS = (16, 32, 64, 80, 96, 128, 256)


def llama_config(head_dim, theta, params, max_pos, partial=1.0):
    return LlamaConfig(hidden_size=head_dim * 4, num_attention_heads=4, head_dim=head_dim,
                       max_position_embeddings=max_pos,
                       rope_parameters={"rope_theta": theta, "partial_rotary_factor": partial, **params})


def transformers_inv_freq(config, seq_len=None):
    """What the model's buffer holds: the type's init function (a forward's tensor seq_len for dynamic)."""
    rope_type = config.rope_parameters.get("rope_type", "default")
    if rope_type == "default":
        return LlamaRotaryEmbedding.compute_default_rope_parameters(config)[0].numpy()
    if rope_type == "dynamic" and seq_len and seq_len > config.max_position_embeddings:
        seq_len = torch.tensor(seq_len)  # dynamic_rope_update passes max(position_ids) + 1, a tensor
    return ROPE_INIT_FUNCTIONS[rope_type](config, "cpu", seq_len=seq_len)[0].numpy()


def random_case(rng, rope_type):
    """(head_dim, theta, params, max_pos, seq_len) for one random configuration of ``rope_type``."""
    head_dim = int(rng.choice(HEAD_DIMS))
    theta = float(rng.choice([10000.0, 500000.0, 1e6, rng.uniform(100, 1e7)]))
    max_pos = int(rng.choice([2048, 4096, 8192]))
    factor = float(rng.choice([2.0, 4.0, 8.0, 32.0, rng.uniform(1.1, 64)]))
    seq_len = None
    if rope_type == "default":
        params = {}
    elif rope_type in ("linear", "dynamic"):
        params = {"rope_type": rope_type, "factor": factor}
        seq_len = int(rng.integers(1, 4 * max_pos)) if rope_type == "dynamic" else None
    elif rope_type in ("yarn", "yarn-truncate-null"):
        params = {"rope_type": "yarn", "factor": factor, "original_max_position_embeddings": max_pos}
        if rope_type == "yarn-truncate-null":
            params["truncate"] = None
        if rng.random() < 0.5:
            params |= {"beta_fast": float(rng.uniform(4, 64)), "beta_slow": float(rng.uniform(0.5, 2))}
    elif rope_type == "llama3":
        low = float(rng.uniform(0.5, 2))
        params = {"rope_type": "llama3", "factor": factor, "low_freq_factor": low,
                  "high_freq_factor": low + float(rng.uniform(0.1, 8)), "original_max_position_embeddings": max_pos}
    else:
        params = {"rope_type": "longrope", "original_max_position_embeddings": max_pos,
                  "short_factor": list(1 + rng.random(head_dim // 2)),
                  "long_factor": list(1 + 40 * rng.random(head_dim // 2))}
        seq_len = int(rng.choice([0, max_pos, max_pos + 1, 3 * max_pos]))
    return head_dim, theta, params, max_pos, seq_len


@pytest.mark.parametrize("rope_type", ["default", "linear", "dynamic", "yarn", "yarn-truncate-null", "llama3",
                                       "longrope"])
def test_every_rope_type_is_bit_identical_to_transformers(rope_type):
    rng = np.random.default_rng(sum(map(ord, rope_type)))
    for _ in range(40):
        head_dim, theta, params, max_pos, seq_len = random_case(rng, rope_type)
        # YaRN and LongRoPE read the model's length (8x the pretraining one) for their attention factor.
        model_len = max_pos * 8 if rope_type in ("yarn", "yarn-truncate-null", "longrope") else max_pos
        expected = transformers_inv_freq(llama_config(head_dim, theta, params, model_len), seq_len)
        ours, _ = pc.rope_inv_freq(head_dim, theta, params or None, seq_len=seq_len,
                                   max_position_embeddings=model_len)
        assert ours.dtype == np.float32
        np.testing.assert_array_equal(ours.view(np.uint32), expected.view(np.uint32),
                                      err_msg=f"{head_dim=} {theta=} {params=} {seq_len=}")


@pytest.mark.parametrize("partial", [0.25, 0.5])
def test_partial_rotary_is_bit_identical(partial):
    params = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
    expected = transformers_inv_freq(llama_config(128, 1e6, params, 32768, partial))
    ours, _ = pc.rope_inv_freq(128, 1e6, params, partial_rotary_factor=partial, max_position_embeddings=32768)
    np.testing.assert_array_equal(ours, expected)


def test_llama3_stays_between_interpolated_and_original_frequencies():
    # transformers' own llama3 check: default / factor <= llama3 <= default, pair by pair, for head_dim 128.
    default, _ = pc.rope_inv_freq(128, 500000.0)
    for factor in (2.0, 8.0, 32.0, 64.0):
        for low, high in ((1.0, 4.0), (0.5, 1.0), (1.0, 1.5), (2.0, 16.0)):
            scaled, _ = pc.rope_inv_freq(128, 500000.0, {"rope_type": "llama3", "factor": factor,
                                                         "low_freq_factor": low, "high_freq_factor": high,
                                                         "original_max_position_embeddings": 8192})
            assert np.all(default / factor <= scaled) and np.all(scaled <= default)


def test_longrope_seq_len_zero_gives_the_short_factors():
    short, long = [1.0 + i / 100 for i in range(48)], [4.0 + i for i in range(48)]
    params = {"rope_type": "longrope", "short_factor": short, "long_factor": long,
              "original_max_position_embeddings": 4096}
    config = llama_config(96, 10000.0, params, 131072)
    at_zero, _ = pc.rope_inv_freq(96, 10000.0, params, seq_len=0, max_position_embeddings=131072)
    np.testing.assert_array_equal(at_zero, transformers_inv_freq(config, seq_len=0))
    np.testing.assert_array_equal(at_zero, pc.rope_inv_freq(96, 10000.0, params, max_position_embeddings=131072)[0])
    assert not np.array_equal(at_zero, pc.rope_inv_freq(96, 10000.0, params, seq_len=5000,
                                                         max_position_embeddings=131072)[0])


def test_ideal_is_float64_and_within_a_few_float32_ulp():
    params = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
              "original_max_position_embeddings": 8192}
    model, factor = pc.rope_inv_freq(128, 500000.0, params)
    ideal, ideal_factor = pc.rope_inv_freq(128, 500000.0, params, ideal=True)
    assert ideal.dtype == np.float64 and factor == ideal_factor
    exact = pc.base_inv_freq(500000.0, 128)  # float64 closed form
    np.testing.assert_allclose(pc.rope_inv_freq(128, 500000.0, ideal=True)[0], exact, rtol=1e-15)
    ulp = np.spacing(ideal.astype(np.float32)).astype(np.float64)
    assert np.max(np.abs(model - ideal) / ulp) < 128  # float32 arithmetic, not a different formula


def test_backend_torch_returns_the_same_bits():
    numpy_inv, _ = pc.rope_inv_freq(64, 10000.0, {"rope_type": "linear", "factor": 3.0})
    torch_inv, _ = pc.rope_inv_freq(64, 10000.0, {"rope_type": "linear", "factor": 3.0}, backend="torch")
    assert torch_inv.dtype == torch.float32
    np.testing.assert_array_equal(torch_inv.numpy(), numpy_inv)


def drive_module(head_dim, theta, factor, max_pos, calls):
    """inv_freq of a LlamaRotaryEmbedding after each forward call of the given lengths, (n_calls, d/2)."""
    module = LlamaRotaryEmbedding(llama_config(head_dim, theta, {"rope_type": "dynamic", "factor": factor},
                                               max_pos))
    x = torch.zeros(1)
    used = []
    for n in calls:
        module(x, torch.arange(n)[None])
        used.append(module.inv_freq.clone().numpy())
    return np.stack(used)


def test_dynamic_calls_follow_the_stateful_module():
    rng = np.random.default_rng(7)
    for _ in range(20):
        head_dim = int(rng.choice((16, 64, 128)))
        theta = float(rng.choice([10000.0, 500000.0, rng.uniform(100, 1e7)]))
        max_pos, factor = int(rng.choice([256, 2048, 4096])), float(rng.uniform(1.1, 40))
        calls = [int(n) for n in rng.integers(1, 4 * max_pos, size=6)]
        ours = rope_dynamic_calls(head_dim, theta, factor, max_pos, calls)
        np.testing.assert_array_equal(ours.inv_freq, drive_module(head_dim, theta, factor, max_pos, calls))


def test_dynamic_calls_keep_long_frequencies_until_a_short_call():
    calls = [8192, 5000, 4096, 100, 6000]
    out = rope_dynamic_calls(64, 10000.0, 2.0, 4096, calls)
    assert out.event == ["grow", "keep", "keep", "reset", "grow"]
    assert list(out.cached) == [8192, 8192, 8192, 4096, 6000]
    np.testing.assert_array_equal(out.inv_freq[1], out.fresh[0])  # 5,000 runs with 8,192's frequencies
    assert not np.array_equal(out.inv_freq[1], out.fresh[1])
    np.testing.assert_array_equal(out.inv_freq[2], out.inv_freq[0])  # even at the trained length
    np.testing.assert_array_equal(out.inv_freq[3], pc.rope_inv_freq(64)[0])  # reset to the originals
    np.testing.assert_array_equal(out.inv_freq, drive_module(64, 10000.0, 2.0, 4096, calls))


@pytest.mark.parametrize("kwargs, message", [
    ({"call_lengths": []}, "between 1 and 256"),
    ({"call_lengths": [10] * 257}, "between 1 and 256"),
    ({"call_lengths": [0]}, "at least 1"),
    ({"call_lengths": [1.5]}, "whole number"),
    ({"call_lengths": [10], "max_position_embeddings": 0}, "at least 1"),
    ({"call_lengths": [10], "factor": -2.0}, "greater than 0"),
])
def test_dynamic_calls_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        rope_dynamic_calls(64, 10000.0, **({"factor": 2.0, "max_position_embeddings": 4096} | kwargs))


def test_seq_len_must_not_be_negative():
    with pytest.raises(ValueError, match="at least 0"):
        pc.rope_inv_freq(64, seq_len=-1)


def test_call_patterns_and_the_summary_columns():
    assert dynamic_call_lengths("long_then_shorter", 4096, 4.0) == [4096, 16384, 8192, 4096, 2048, 8192]
    for pattern in DYNAMIC_CALL_PATTERNS:
        lengths = dynamic_call_lengths(pattern, 2048, 8.0)
        out = rope_dynamic_calls(64, 10000.0, 8.0, 2048, lengths)
        assert list(out.length) == lengths
        original = pc.rope_inv_freq(64)[0].astype(np.float64)
        np.testing.assert_allclose(out.slowest_ratio, out.inv_freq[:, -1] / original[-1])
        np.testing.assert_array_equal(out.stale, np.any(out.inv_freq != out.fresh, axis=1))
    # the first pattern shows a stale call: 8,192 tokens after 16,384 run with 16,384's frequencies
    out = rope_dynamic_calls(64, 10000.0, 4.0, 4096, dynamic_call_lengths("long_then_shorter", 4096,
                                                                                4.0))
    assert out.stale[2] and out.slowest_ratio[2] < out.fresh_slowest_ratio[2]
    with pytest.raises(ValueError, match="pattern must be one of"):
        dynamic_call_lengths("random", 4096, 4.0)
    with pytest.raises(ValueError, match="at least 1"):
        dynamic_call_lengths("growing", 4096, 0.5)


def test_yarn_with_an_odd_rotary_dimension_is_refused_where_transformers_fails():
    """transformers 5.23's config check refuses an odd rotary dimension; its YaRN function, reached with one anyway,
    fails inside torch. The core says why, as a ValueError."""
    params = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
    config = llama_config(64, 10000.0, params, 4096)
    config.__dict__["head_dim"] = 63  # past the config's own validation, as an old config object could be
    with pytest.raises(RuntimeError):
        ROPE_INIT_FUNCTIONS["yarn"](config, "cpu")
    with pytest.raises(ValueError, match="YaRN .* must be even; it is 63"):
        pc.rope_inv_freq(63, 10000.0, params)
    with pytest.raises(ValueError, match="must be even; it is 19"):
        pc.rope_inv_freq(64, 10000.0, params, partial_rotary_factor=0.3)
