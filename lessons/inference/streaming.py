import streamlit as st

import posenc_core as pc
from lessons.inference import streaming_views as views
from page_kit import classroom, controls, figures, formula, guard, header, hero, notice, show, source, stage, why
from page_kit.lesson import folded
from page_kit.lesson.model_runs import TEXT_TITLE, models_ready, run_with_progress
from posenc_core.inference import (
    STREAM_VARIANTS,
    cache_curves,
    first_token_shares,
    streaming_cache_layout,
    streaming_hidden,
    streaming_pass,
    streaming_run,
    streaming_summary,
)

STEPS = [100, 1000, 2000, 4000, 8000, 12000, 16000]
LIVE_BLOCK = 32


RUN = views.shipped(512)[0]
header("Streaming with attention sinks",
       "A rolling cache keeps a stream's first tokens (the sinks) and its latest, with positions counted in the "
       f"cache. SmolLM2-135M reads {RUN.tokens:,} tokens this way.")
WHY = (
    "A served model cannot keep every key: StreamingLLM (Xiao et al., 2023) keeps the first 4 tokens and a "
    "window of the latest, and drops the middle. The keys and values in the cache were computed once, when each "
    "token was read, so when the first tokens leave a plain window the tokens after it are read by a model "
    "whose attention has lost the place it parks its weight: the first tokens, which every query sees, collect "
    "a large share of attention (the *attention sink*; see *Attention sinks* and SmolLM2's own sink on "
    "*Which rotary pairs SmolLM2 uses*). Keeping them costs 4 keys.\n\n"
    "Positions are counted in the cache, not in the text. The authors' code (`StartRecentKVCache` with the "
    "`pos_shift` attention of mit-han-lab/streaming-llm) caches keys **before** the rotation and rotates them at "
    "every step at their place in the cache: sinks at 0 to 3, the window after them, the new token last. So no "
    "position ever passes the cache size, however long the text. Keeping text positions instead puts the sinks "
    "thousands of positions behind the window and, past 8,192, outside anything the model was trained on (the "
    "*Past the context window* lesson). For a plain window the two are the same: RoPE sees only distances, and "
    "sliding every key by the same amount changes none.\n\n"
    f"Here the text is read {RUN.block} tokens at a time to keep the run affordable on two CPU cores: a block "
    f"attends to the cache and causally to itself, then joins the cache, and the cache is cut back to "
    f"{RUN.cache:,} keys. Eviction thus happens every {RUN.block} tokens, and with 4 sinks a token sees "
    f"between {RUN.cache - 4:,} and {RUN.cache - 4 + RUN.block - 1:,} recent tokens before it besides the "
    "sinks (the authors' loop reads one token at a time, always after the same number). A test checks the blocks "
    "against a token-by-token version, and, with nothing evicted, against SmolLM2's own forward pass.")


def curve_tab(page):
    with page.side:
        bin_size = controls.select_slider("Bin width (tokens)", "bin", [128, 256, 512, 1024, 2048], 512)
    s, made = views.shipped(bin_size)
    show(hero(views.sinks_chart, bin=bin_size))
    with views.window_question(s):
        show(hero(views.all_chart, bin=bin_size))
        classroom.snippet(f"s = pc.inference.streaming_summary(pc.inference.shipped_streaming(), {bin_size})",
                          "# (bins,) first token of each bin; {cache key: (bins,) mean loss in nats}",
                          "start, losses = s.start, s.loss")
        notice(views.findings(s))
    st.caption(f"Shipped run: {s.tokens:,} tokens of *{TEXT_TITLE}*, {made['model']}; caches of "
               f"{s.cache:,} keys, read {s.block} tokens a step; one process per cache, {s.minutes:.0f} min "
               f"each, {s.cpu_minutes:.0f} CPU min in all.")
    with folded("How the shipped run was made", "stream_made", icon=":material/terminal:") as is_open:
        if is_open:
            st.markdown("One process per cache, one thread each, joined with the `merge` form of the same command:")
            st.code("\n".join(f"{r['command']}  # {r['date']}, {r['machine']}, load {r['load_at_start'][0]:.1f}, "
                              f"{r['cpu_seconds'] / 60:.0f} CPU min" for r in made["runs"]), language="bash",
                    wrap_lines=True)
    formula(r"\ell_t = -\log p_\theta(x_{t+1}\mid \text{cache}_t,\ x_{b..t})")
    formula(r"\mathrm{PPL} = e^{\bar\ell}")
    source(streaming_hidden, streaming_summary)


def sinks_tab(page):
    f, one, (s, _) = views.shares("sink4"), views.shares("sink1"), views.shipped(512)
    st.markdown(f"Each query spreads its attention, a softmax that sums to 1, over the keys it sees: once the "
                f"cache is full, {f.sinks} sinks, {f.cache - f.sinks:,} recent tokens and its own block up to "
                f"itself. Spread evenly, each key would get {views.pct(f.uniform)}.")
    with views.share_question(f):
        show(views.share_chart(f, one))
        classroom.snippet("f = pc.inference.first_token_shares(pc.inference.shipped_streaming(), 'sink4')",
                          "one = pc.inference.first_token_shares(pc.inference.shipped_streaming(), 'sink1')",
                          "# (layers, 4): weight on tokens 0-3, averaged over heads and the queries f.queries",
                          "per_layer, one_sink = f.per_layer, one.per_layer[:, 0]")
        notice(views.share_findings(f, one, s))
        st.markdown(views.implication(f, one, s))
    formula(r"\begin{gathered}a_{\ell h}(j) = \frac{1}{|Q|}\sum_{t \in Q} \operatorname{softmax}_k\!\Big("
            r"\frac{q_t \cdot k_k}{\sqrt{d}}\Big)_{\!j}\\ Q = [$a, $b)\end{gathered}", a=f.queries[0], b=f.queries[1])
    with folded("What StreamingLLM's code keeps", "stream_llm_code", icon=":material/menu_book:") as is_open:
        if is_open:
            st.markdown(views.STREAMING_LLM)
    source(streaming_pass, first_token_shares)


def cache_tab(page):
    s, _ = views.shipped(512)
    sinks = STREAM_VARIANTS["sink4"].sinks
    window = s.cache - sinks
    with page.side:
        step = controls.select_slider("Token being read", "step", STEPS, 12000, format_func=lambda v: f"{v:,}")
    c = views.curves(step, sinks, window, s.block)
    show(figures.lines(c.x, {"position in the cache (StreamingLLM)": c.cache, "position in the text": c.text},
                       title=f"The {c.held:,} keys token {step:,} attends to", x_title="token in the text",
                       y_title="position its key is rotated at", name="stream_cache", legend_right=True,
                       markers=False, hlines=[(s.context, f"trained {s.context:,}")],
                       alt=f"For token {step:,}: the text index of each of the {c.held:,} keys it sees against "
                           f"the position that key is rotated at, counted in the cache (at most "
                           f"{c.query_cache:,}) or in the text (up to {step:,})."))
    classroom.snippet(f"c = pc.inference.cache_curves({step}, {sinks}, {window}, {s.block})",
                      "# x: the text index of each key; c.cache, c.text: the position it is rotated at",
                      "x, in_cache, in_text = c.x, c.cache, c.text")
    if c.evicted:
        where = (f"{c.evicted:,} tokens have left the cache. Token {step:,} sees the {sinks} sinks and the "
                 f"{c.held - sinks:,} latest tokens, its own block included")
    else:
        where = f"Nothing has left the cache yet: token {step:,} sees all {c.held:,} tokens so far"
    past = f", past the {s.context:,} SmolLM2 was trained on." if step >= s.context else "."
    notice(f"{where}. Counted in the cache, it sits at position {c.query_cache:,}; counted in the text, at "
           f"{c.query_text:,}{past}")
    formula(r"p_j = \begin{cases} j, & j < S \\ S + j - j_0, & j \ge j_0 \end{cases}")
    formula(r"S = $s,\quad j_0 = $j0", s=sinks, j0=c.window_start)
    source(streaming_cache_layout, cache_curves)


def live_tab(page):
    st.markdown(f"A shorter run you can start here: the first tokens of the text through a small cache, read "
                f"{LIVE_BLOCK} tokens a step, so the first tokens leave it early. Its text positions stay under "
                "8,192; the shipped run shows what they do past it.")
    with page.side:
        tokens = controls.select_slider("Tokens", "n", [512, 1024, 2048], 1024, format_func=lambda v: f"{v:,}")
        cache = controls.select_slider("Cache (keys)", "cache", [64, 128, 256], 128)
        names = controls.multiselect("Caches", "variants", list(STREAM_VARIANTS), list(STREAM_VARIANTS),
                                     format_func=lambda v: views.LABELS[v])
    key = f"stream_live/{tokens}/{cache}/{','.join(names)}"  # this view's finished run
    if st.button("Run", key="run", type="primary", icon=":material/play_arrow:") and names:
        if models_ready(pc.real_models.SMOLLM2_NAME):
            st.session_state[key] = run_with_progress(
                lambda progress: streaming_run(names, tokens, cache=cache, block=LIVE_BLOCK,
                                                  progress=lambda v, d, t: progress(
                                                      names.index(v) * t + d, len(names) * t)),
                f"SmolLM2 over {tokens:,} tokens through a {cache}-key cache…")
    result = st.session_state.get(key)
    if result is None:
        st.info("Press **Run**: each cache takes some seconds per 1,024 tokens on two CPU cores.",
                icon=":material/info:")
        return
    s = streaming_summary(result, LIVE_BLOCK)
    show(figures.lines(s.start + LIVE_BLOCK / 2, views.worded(s.loss), title=f"{tokens:,} tokens through {cache} keys",
                       x_title="token in the text", y_title=f"mean loss per {LIVE_BLOCK} tokens (nats)",
                       name="stream_live", colours=views.COLOURS, legend_right=True,
                       vlines=[(s.evict, "first eviction")],
                       alt=f"Loss of {len(s.loss)} caches of {cache} keys over {tokens:,} tokens, in bins of "
                           f"{LIVE_BLOCK}; the first eviction at token {s.evict:,} marked."))
    classroom.snippet(f"result = pc.inference.streaming_run({list(names)!r}, {tokens}, cache={cache}, "
                      f"block={LIVE_BLOCK})"
                      "  # SmolLM2 runs",
                      f"s = pc.inference.streaming_summary(result, {LIVE_BLOCK})  # s.loss: plotted")
    notice(f"Mean loss from token {s.evict:,} on: " + "; ".join(
        f"{views.LABELS[k]} {v:.3f} nats (perplexity {s.after_ppl[k]:.1f})" for k, v in s.after.items()) + ".")


# The lesson's tabs in order: label, and the function that draws it (each runs only while its tab is open).
TABS = [
    ("Loss along the text", curve_tab),
    ("One sink or four", sinks_tab),
    ("What the cache holds", cache_tab),
    ("Run it here", live_tab),
]


@st.fragment
def lesson():
    page = stage()
    with guard():
        page.walk(TABS, page)


lesson()
why(WHY)
