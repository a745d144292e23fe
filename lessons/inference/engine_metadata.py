import streamlit as st

from lessons.inference import engine_metadata_views as views
from lessons.inference import engine_words_views as words
from lessons.inference import vllm_length_views as vllm_views
from lessons.inference.engine_examples_views import GGUF_EXAMPLES, config_code, example_code
from page_kit import classroom, controls, formula, guard, header, hero, notice, show, source, stage, why
from page_kit.lesson import literal
from page_kit.lesson.config_input import choose_config
from posenc_core.inference import (
    HEADER_COMMAND,
    MAX_FLAGS_CHARS,
    MAX_HEADER_BYTES,
    engine_table,
    engine_wavelengths,
    llama_cpp_flags,
    llama_cpp_rope,
    vllm_context,
    vllm_flags,
)

EXAMPLES = list(GGUF_EXAMPLES)
# the examples' names on their buttons (the figure's title and the caption name each one in full)
SHORT = {"smollm2": "SmolLM2-135M, the shipped file", "qwen-yarn": "Qwen2.5-7B with YaRN kept",
         "qwen-no-yarn": "Qwen2.5-7B from its released config"}
LLAMA_DEFAULT = "llama-server -m model.gguf -c 32768"
VLLM_DEFAULT = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768"

header("What the engine reads",
       "One model, four readers: its config.json, transformers loading its GGUF file, llama.cpp with its flags, "
       "and vLLM with its flags. Each reads the RoPE settings its own way, and they do not always agree.")
WHY = (
    "A model's positions are set by a handful of numbers: the base, the rotated dimensions, a scaling type with "
    "its factor and original context, and the context length. The config.json holds them for transformers; a GGUF "
    "file holds its own copy as `<arch>.rope.*` keys, written by whoever converted the model; and each engine can "
    "override them with flags. When the copies disagree, the same weights see different angles. Of the position "
    "keys, transformers' GGUF loader maps only " + vllm_views.both(vllm_views.loader_keys()) +
    " (each for the architectures its GGUF_CONFIG_MAPPING names), so a YaRN model loaded from GGUF runs as plain "
    "RoPE there, while llama.cpp reads the YaRN keys itself. A conversion "
    "from a config.json without the model card's YaRN block carries no YaRN at all, and llama.cpp then needs "
    "`--rope-scaling yarn --rope-scale 4 --yarn-orig-ctx 32768` to match. Llama 3's scaling travels another way: "
    "the conversion bakes it into a `rope_freqs` tensor of per-pair factors, which llama.cpp reads from the tensor "
    "data, past the header. vLLM reads the config.json and derives the context it allows from it, family by "
    "family (the vLLM tab); its old `--rope-scaling` / `--rope-theta` flags were removed in November 2025 "
    "(PR #28006): use `--hf-overrides`."
)


def side_by_side_tab(page, v: dict):
    ex, length, llama_text, vllm_text = v["ex"], v["L"], v["lf"], v["vf"]
    table = views.table_for(ex, llama_text, vllm_text)
    show(hero(views.wave_chart, ex=ex, L=length, lf=llama_text, vf=vllm_text))
    classroom.snippet(*example_code(ex), "header = pc.inference.read_gguf_header(data)",
                      f"table = pc.inference.engine_table(header, config, {llama_text!r}, {vllm_text!r})",
                      "pairs, waves = pc.inference.engine_wavelengths(table)  # {source: (pairs,) wavelength in "
                      "tokens}")
    notice(words.wave_notice(table, views.turns_for(ex, llama_text, vllm_text, length), length,
                             vllm_views.disagreements(table)))
    with engine_question(ex, vllm_text, length):
        views.rows_table(table)
        for name, sentences in vllm_views.disagreements(table).items():
            if sentences:
                st.markdown(f"**{words.SOURCE_LABELS[name]}** against config.json: " + " ".join(sentences))
        for name, reason in table.failed.items():
            st.warning(f"{words.SOURCE_LABELS[name]}: {reason}", icon=":material/warning:")
        for note in words.notes(table):
            st.info(note, icon=":material/info:")
    st.caption(GGUF_EXAMPLES[ex].note + f" Set beside {GGUF_EXAMPLES[ex].config_name}.")
    formula(r"\lambda_i = 2\pi/\theta_i,\quad \theta_i = b^{-2i/d}")
    source(engine_table, engine_wavelengths)


def engine_question(ex: str, vllm_text: str, length: int):
    """A what-if about the figure: llama.cpp on this file with no rope flags at all reads the GGUF's own keys."""
    found = views.table_for(ex, "", vllm_text).disagreements.get("llama.cpp", ())
    said = words.said(found, "config.json", "llama.cpp")
    answer = 0 if not found else 1 if any(d.kind == "dropped" for d in found) else 2

    def reveal() -> str:
        turns = views.turns_for(ex, "", vllm_text, length)
        counted = (f" Pairs that complete a turn within {length:,} tokens: {turns.get('llama.cpp', 0)} with no "
                   f"flags, {turns.get('config', 0)} by the config.json.")
        if not said:
            return ("The same as the config.json: with no flags llama.cpp takes the base, the scaling and its "
                    "original context from the file's own rope keys, and this file has them all." + counted)
        return ("With no flags llama.cpp has only the file's keys: " + " ".join(said) + counted + " The flags "
                "above (or a conversion that keeps the scaling) put it back.")

    return classroom.predict(
        "engine_bare", "Run llama.cpp on this file with no rope flags at all (llama-server -m model.gguf). "
        "Against the config.json, the RoPE it runs is…",
        ["the same", "plain RoPE: the scaling is dropped", "different in another field"], answer, reveal)


def header_tab(page, v: dict):
    ex = v["ex"]
    head, _ = views.example_header(ex)
    st.markdown(f"**{GGUF_EXAMPLES[ex].label}**: GGUF version {head.version}, {head.kv_count} keys, "
                f"{head.tensor_count:,} tensors; the key-value section ends at byte {head.end:,}.")
    views.keys_table(head)
    classroom.snippet(*example_code(ex), "header = pc.inference.read_gguf_header(data)",
                      "rows = pc.inference.gguf_rope_keys(header)  # the table")
    ignored = views.table_for(ex, "", "").ignored
    st.markdown("transformers' GGUF loader puts " + vllm_views.both(vllm_views.loader_keys()) +
                " into the config where its mapping names a field for them; `rope.dimension_count` only for " +
                vllm_views.loader_sentence("rope.dimension_count") + ". " + (
                    "Of this file's position keys it leaves out " + ", ".join(f"`{k}`" for k in ignored) + "."
                    if ignored else "It puts every position key of this file into the config."))
    st.markdown(f"**Your own GGUF file.** A GGUF file is gigabytes; its settings sit in the first few megabytes. "
                f"Send only those: `{HEADER_COMMAND}` (at most {views.UPLOAD_MB} MB).")
    uploaded = st.file_uploader(f"Upload the header of a GGUF file (at most {views.UPLOAD_MB} MB)",
                                type=["gguf", "bin"], key="gguf_up", max_upload_size=views.UPLOAD_MB)
    if uploaded is None:
        return
    if uploaded.size > MAX_HEADER_BYTES:
        raise ValueError(f"{literal(uploaded.name)} is {uploaded.size:,} bytes; send its first "
                         f"{views.UPLOAD_MB} MB at most: {HEADER_COMMAND}.")
    data = uploaded.getvalue()
    mine = views.uploaded_header(data)
    views.keys_table(mine)
    config_text, said = choose_config("qwen2.5-7b-yarn", views.example_config_text(), stacked=False)
    st.caption(said)
    if config_text is not None:
        table = views.upload_table(views.digest(data), data, config_text)
        views.rows_table(table)
        for name, sentences in words.disagreement_sentences(table).items():
            st.markdown(f"**{words.SOURCE_LABELS[name]}**: " + (" ".join(sentences) or "agrees with the config.json."))
        for note in words.notes(table):
            st.info(note, icon=":material/info:")


def flags_tab(page, v: dict):
    ex, llama_text, vllm_text = v["ex"], v["lf"], v["vf"]
    llama = views.table_for(ex, llama_text, vllm_text).llama
    st.markdown("**llama.cpp** takes each setting from the GGUF unless a flag gives it "
                f"(flags given: {', '.join(llama.given) or 'none'}).")
    views.llama_table(llama)
    formula(r"\theta'_i = s\,\theta_i\,(1-\gamma_i) + \theta_i\,\gamma_i,\quad "
            r"\gamma_i = \text{ext}\cdot(1-\text{ramp}_i),\quad s = $s,\ \text{ext} = $e",
            s=llama.freq_scale, e=llama.ext_factor)
    classroom.snippet(*example_code(ex), "header = pc.inference.read_gguf_header(data)",
                      f"rope = pc.inference.llama_cpp_rope(header, pc.inference.llama_cpp_flags({llama_text!r}))  # "
                      "the table above")
    source(llama_cpp_flags, llama_cpp_rope)


def vllm_tab(page, v: dict):
    ex, vllm_text = v["ex"], v["vf"]
    model = controls.select("Config vLLM reads", "vm", vllm_views.MODELS, format_func=vllm_views.model_label)
    ctx = vllm_views.context_for(model, ex, vllm_text)
    st.markdown(vllm_views.sentence(ctx))
    vllm_views.steps(ctx)
    config = config_code(ex) if model == "example" else [f"config = pc.preset_config({model!r})"]
    classroom.snippet(*config, f"ctx = pc.inference.vllm_context(config, pc.inference.vllm_flags({vllm_text!r}))  "
                      "# the table above")
    removed = vllm_flags(vllm_text).removed
    if removed:
        st.warning(f"{' and '.join(removed)}: read here as vLLM before PR #28006 read them; current vLLM "
                   "refuses them (unrecognized arguments).", icon=":material/history:")
    st.caption("vLLM's --rope-scaling and --rope-theta were removed in PR #28006 (November 2025); current vLLM "
               "takes --hf-overrides '{\"rope_parameters\": {...}}'. Both forms are read here.")
    source(vllm_flags, vllm_context)


TABS = [
    ("Side by side", side_by_side_tab),
    ("GGUF header", header_tab),
    ("Engine flags", flags_tab),
    ("vLLM's length", vllm_tab),
]


@st.fragment
def lesson():
    page = stage()
    with guard():
        with page.side:
            view = {
                "ex": controls.choice("GGUF file", "ex", EXAMPLES, EXAMPLES[1], format_func=SHORT.get),
                "L": controls.select_slider("Length L (tokens)", "L", views.LENGTHS, 32768,
                                            format_func=lambda n: f"{n:,}"),
                "lf": controls.text("llama.cpp command", "lf", LLAMA_DEFAULT, max_chars=MAX_FLAGS_CHARS),
                "vf": controls.text("vLLM command", "vf", VLLM_DEFAULT, max_chars=MAX_FLAGS_CHARS),
            }
        view["lf"], view["vf"], problems = views.usable_flags(view["lf"], view["vf"])
        for problem in problems:
            with page.main:
                st.warning(literal(problem), icon=":material/warning:")
        page.walk(TABS, page, view)


lesson()
why(WHY)
