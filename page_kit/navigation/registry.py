"""Every page of the app, in teaching order. app.py builds the navigation from this list, the home
page tells the story from it, and the page tests iterate over it, so a new page is registered once."""

from __future__ import annotations

from dataclasses import dataclass

from page_kit.i18n import N_


@dataclass(frozen=True)
class PageInfo:
    path: str  # relative to the repository root
    title: str
    # Stable: links shared by teachers depend on it. The lessons live in lessons/<section>/, not in a folder
    # called pages/: Streamlit treats pages/ beside app.py as a legacy multipage app, which finds only top-level
    # files and shows 'Page not found' on a first-visit deep link into a subfolder.
    url_path: str
    icon: str
    summary: str


@dataclass(frozen=True)
class Section:
    title: str
    story: str  # one or two sentences that place the section in the story
    pages: tuple[PageInfo, ...]

    @property
    def key(self) -> str:
        """The section's folder (``lessons/<key>/``, ``posenc_core/<key>/``): its name in addresses and progress."""
        return self.pages[0].path.split("/")[1]


HOME = PageInfo("lessons/home.py", N_("Home"), "home", ":material/home:", N_("The story of positional encodings."))
# one page for every section's checkpoint: ?section=<Section.key> names which
CHECKPOINT = PageInfo("lessons/checkpoint.py", N_("Checkpoint"), "checkpoint", ":material/quiz:",
                      N_("A few questions on a section's lessons, each answer explained."))

SECTIONS: tuple[Section, ...] = (
    Section(
        N_("Why position matters"),
        N_("Self-attention compares every token with every other token and never looks at where they sit. "
           "Before any encoding, see what that means, and why the first ideas for fixing it fall short."),
        (
            PageInfo("lessons/why_position/order.py", N_("Attention has no sense of order"),
                     "order", ":material/shuffle:",
                     N_("Shuffle a sentence or an image: outputs move with their tokens and every pooled summary "
                        "stays the same, until a positional encoding is added.")),
            PageInfo("lessons/why_position/naive.py", N_("Naive position codes"), "naive", ":material/pin:",
                     N_("Add the raw integer and it drowns the word; divide by the length and the same position "
                        "gets a different code in every sequence length.")),
            PageInfo("lessons/why_position/binary.py", N_("The binary analogy"), "binary", ":material/looks_one:",
                     N_("Bits of the position, each column alternating half as fast as the last, next to their "
                        "smooth, bounded sine-wave twins.")),
        ),
    ),
    Section(
        N_("Absolute encodings"),
        N_("The first real fix gives every position its own vector and adds it to the token embedding: a fixed "
           "table of waves, or a table the model learns."),
        (
            PageInfo("lessons/absolute/sinusoidal.py", N_("Sinusoidal encoding"), "sinusoidal", ":material/waves:",
                     N_("The fixed sine/cosine table of the original Transformer: its wavelengths, why its dot "
                        "products depend only on the offset, and the linear map that shifts a position.")),
            PageInfo("lessons/absolute/learned.py", N_("Learned absolute embeddings"),
                     "learned", ":material/table_rows:",
                     N_("A trainable table with one row per position: why it stops at its last row, and what "
                        "all-MiniLM-L6-v2's trained table (or your own) looks like.")),
            PageInfo("lessons/absolute/token_position.py", N_("Token + position"), "token_position",
                     ":material/add_circle:",
                     N_("The model's input is token embedding plus position row; how their norms balance as the "
                        "width and the initialisation change.")),
        ),
    ),
    Section(
        N_("Rotary embeddings (RoPE)"),
        N_("Instead of adding a vector, rotate the queries and keys by angles that grow with position. The "
           "score between two tokens then depends only on how far apart they are."),
        (
            PageInfo("lessons/rope/rope.py", N_("RoPE: one rotation"), "rope", ":material/rotate_right:",
                     N_("One pair of numbers turned by mθ and nθ, the same thing as complex numbers, then every pair "
                        "at once: the angle table and each pair's wavelength against the context.")),
            PageInfo("lessons/rope/rope_relative.py", N_("RoPE is relative, and decays"), "rope_relative",
                     ":material/stacked_line_chart:",
                     N_("The score grid q_m·k_n is constant along its diagonals; RoFormer's decay bound next to the "
                        "mean |q·k| actually measured for random and for identical vectors.")),
            PageInfo("lessons/rope/rope_variants.py", N_("RoPE layouts, partial rotary and precision"), "rope_variants",
                     ":material/swap_horiz:",
                     N_("Half-split versus interleaved pairs, the weight permutation a checkpoint conversion needs, "
                        "GPT-NeoX's partial rotary, and how far bfloat16 or float16 angles drift at long positions.")),
            PageInfo("lessons/rope/rope_model.py", N_("Where RoPE lives in a model"), "rope_model",
                     ":material/account_tree:",
                     N_("x → W_q, W_k → rotate q and k (never v) → scores, in every layer, with no parameters; what "
                        "that costs in a real model's config.")),
        ),
    ),
    Section(
        N_("Position as an attention bias"),
        N_("Instead of changing the token vectors, position can act inside attention: a penalty or a learned "
           "number added to each query-key score, or a vector per relative distance. Or nothing at all."),
        (
            PageInfo("lessons/attention_bias/alibi.py", N_("ALiBi"), "alibi", ":material/trending_down:",
                     N_("A fixed linear penalty per head: the slopes (and where the code differs from the paper), "
                        "the attention a bias alone produces, and what happens past the training length.")),
            PageInfo("lessons/attention_bias/t5.py", N_("T5 relative buckets"), "t5", ":material/view_week:",
                     N_("One learned number per distance bucket: exact near zero, logarithmic further out, and one "
                        "shared bucket for everything past max_distance.")),
            PageInfo("lessons/attention_bias/nope.py", N_("NoPE and the causal mask"), "nope", ":material/block:",
                     N_("No encoding at all: with a causal mask, uniform attention is a running mean, so the "
                        "outputs still depend on position.")),
            PageInfo("lessons/attention_bias/shaw.py", N_("Relative positions in keys and values (Shaw)"), "shaw",
                     ":material/link:",
                     N_("A learned vector per clipped distance added to keys and values: the score splits into a "
                        "content and a relative term, and the key/value cache gets awkward.")),
            PageInfo("lessons/attention_bias/compare.py", N_("Compare all encodings"), "compare",
                     ":material/compare_arrows:",
                     N_("Every method in one table, and what each adds to a score as the distance grows, on "
                        "the same axes.")),
        ),
    ),
    Section(
        N_("Long context"),
        N_("A RoPE model trained on L tokens meets angles it never saw when run on more. Context-extension "
           "methods decide which rotary pairs to slow down, and by how much; dual chunk attention counts positions "
           "inside chunks instead, so no score sees a distance it was not trained on."),
        (
            PageInfo("lessons/long_context/extension.py", N_("Extending RoPE's context"),
                     "extension", ":material/expand:",
                     N_("Position interpolation, NTK-aware, dynamic NTK, YaRN, Llama 3 and LongRoPE, pair by pair: "
                        "wavelengths, the new/old ratio, angles out of distribution, attention factor.")),
            PageInfo("lessons/long_context/extension_compare.py", N_("Compare extension methods"), "extension_compare",
                     ":material/compare_arrows:",
                     N_("Several methods overlaid for the same L, L' and head_dim.")),
            PageInfo("lessons/long_context/dual_chunk.py", N_("Dual chunk attention (Qwen2.5-1M)"), "dual_chunk",
                     ":material/view_agenda:",
                     N_("vLLM's DCA: positions counted inside chunks, so no score sees a distance past chunk_size.")),
            PageInfo("lessons/long_context/model_configs.py", N_("Model presets and config.json"), "model_configs",
                     ":material/data_object:",
                     N_("The RoPE settings of well-known models, cited to their configs, or your own config.json: "
                        "what was read, and everything drawn for it.")),
        ),
    ),
    Section(
        N_("Position in today's models"),
        N_("The open models of 2025-26 do not use one rotary setting everywhere: layers differ in window, base, "
        "rotated "
           "fraction, or use no positions at all, and some rotate only a slice of each head. Read a model's config "
           "layer "
           "by layer, then see each idea on its own."),
        (
            PageInfo("lessons/todays_models/layer_strip.py", N_("Layer by layer: read any config"), "layer_strip",
                     ":material/view_agenda:",
                     N_("Any preset or config.json read through its transformers class, one row per layer: window, "
                        "base, rotated fraction, NoPE, query scaling, sinks; pick a layer to see its pairs.")),
            PageInfo("lessons/todays_models/local_global.py", N_("Local and global layers"), "local_global",
                     ":material/center_focus_strong:",
                     N_("Sliding-window layers rotate fast and see a few hundred tokens; full layers rotate slowly, "
                        "scaled or partly: Gemma 3 and 4, Olmo 3 and MiMo-V2-Flash, pair by pair.")),
            PageInfo("lessons/todays_models/nope_layers.py", N_("Layers without positions, and query temperature"),
                     "nope_layers", ":material/thermostat:",
                     N_("Llama 4, SmolLM3, Cohere2 and EXAONE 4 leave some layers unrotated; Llama 4 and Mistral "
                        "scale the query with log position, and what that does to attention entropy far away.")),
            PageInfo("lessons/todays_models/hybrids.py", N_("Hybrids: attention among recurrent layers"), "hybrids",
                     ":material/merge_type:",
                     N_("Qwen3-Next, Kimi Linear, Granite 4, Nemotron-H, Falcon-H1 and LFM2: convolutions and "
                        "recurrences know order by construction, measured, so attention may go without.")),
            PageInfo("lessons/todays_models/attention_sinks.py", N_("Attention sinks"), "attention_sinks",
                     ":material/vertical_align_bottom:",
                     N_("GPT-OSS's learned sink logit: an extra softmax column that absorbs probability, and why "
                        "sliding windows and streaming caches need one.")),
            PageInfo("lessons/todays_models/latent_attention.py", N_("Latent attention's shared rotated key"),
                     "latent_attention", ":material/compress:",
                     N_("DeepSeek V3-style multi-head latent attention: a content term plus a position term from one "
                        "rotated key shared by all heads, YaRN's mscale in the softmax scale, and the KV cache per "
                        "token for MHA, GQA and MLA.")),
            PageInfo("lessons/todays_models/fewer_frequencies.py",
                     N_("Fewer frequencies: partial, p-RoPE, proportional"),
                     "fewer_frequencies", ":material/filter_list:",
                     N_("Rotating only part of each head: partial rotary keeps the whole wavelength range with fewer "
                        "pairs, p-RoPE and Gemma 4's proportional type keep only the fastest pairs.")),
            PageInfo("lessons/todays_models/drope.py", N_("DroPE: dropping positions after training"), "drope",
                     ":material/layers_clear:",
                     N_("Train a tiny model with RoPE, remove its rotations, recalibrate briefly without them: "
                     "measured "
                        "accuracy at T to 8T and what the retrieval head does.")),
            PageInfo("lessons/todays_models/cope.py", N_("CoPE: counting what matters"), "cope",
                     ":material/format_list_numbered:",
                     N_("Contextual positions: sigmoid gates decide which tokens count, so 'three back' can mean three "
                        "tokens, three words or three sentences.")),
            PageInfo("lessons/todays_models/fox.py", N_("Forgetting Transformer (FoX)"), "fox",
                     ":material/auto_delete:",
                     N_("FoX's forget gate per token: the log of the gates between key and query joins the logits, "
                        "ALiBi when every gate is equal; the bias for your sentence next to ALiBi's.")),
            PageInfo("lessons/todays_models/stick_breaking.py", N_("Stick-breaking attention"), "stick_breaking",
                     ":material/content_cut:",
                     N_("Each query hands its attention out from the nearest key back, each key taking a share of "
                        "what is left: recency with no position encoding, next to softmax + ALiBi.")),
            PageInfo("lessons/todays_models/path_attention.py", N_("PaTH: transforms along the path"), "path_attention",
                     ":material/route:",
                     N_("Every token brings a Householder-like transform and a query sees a key through all those in "
                        "between: RoPE is the case of one fixed rotation; what words that choose them change.")),
        ),
    ),
    Section(
        N_("Encoders"),
        N_("Encoders read the whole input at once, both directions, for retrieval, classification and reranking. "
           "Three designs: DeBERTa's disentangled relative attention, ModernBERT's local and global rotary layers over "
           "8,192 tokens, and Transformer-XL / XLNet's relative sinusoid with its two learned biases."),
        (
            PageInfo("lessons/encoders/deberta.py", N_("DeBERTa: disentangled attention"), "deberta",
                     ":material/call_split:",
                     N_("Content-to-content, content-to-position and position-to-content terms from one shared, "
                        "log-bucketed table of relative positions, term by term for one query.")),
            PageInfo("lessons/encoders/modernbert.py", N_("ModernBERT: local and global layers"), "modernbert",
                     ":material/view_week:",
                     N_("A global layer with theta 160,000 every third layer, local layers with theta 10,000 that see "
                        "64 tokens each side: the pairs, the masks and the cost of reading 8,192 tokens.")),
            PageInfo("lessons/encoders/xl_relative.py", N_("Transformer-XL / XLNet relative attention"), "xl_relative",
                     ":material/stacked_bar_chart:",
                     N_("A relative sinusoid R and two learned biases u and v: the four terms of the score, and how "
                     "they "
                        "sit between Shaw's clipped vectors and T5's bias per bucket.")),
        ),
    ),
    Section(
        N_("Multimodal positions"),
        N_("Vision-language and omni models give every token several position ids (time, height, width) and split "
           "the rotary pairs between them. Build a mixed sequence and see the ids, the pairs and the scores each "
           "model computes."),
        (
            PageInfo("lessons/multimodal/mm_position_ids.py", N_("Position ids of a mixed sequence"), "mm_position_ids",
                     ":material/view_timeline:",
                     N_("Text, an image, a video and sound in one prompt: the time, row and column id every token "
                        "gets in Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Qwen3.5, GLM-4V, ERNIE 4.5 VL and Qwen3-Omni.")),
            PageInfo("lessons/multimodal/mm_pair_axes.py", N_("Which pairs carry which axis"), "mm_pair_axes",
                     ":material/view_column:",
                     N_("Contiguous sections, interleaved t-h-w and ERNIE's 3D layout: which rotary pairs turn with "
                        "time, rows and columns, and the wavelengths each axis is left with.")),
            PageInfo("lessons/multimodal/mm_scores.py", N_("What the model can see"), "mm_scores",
                     ":material/center_focus_strong:",
                     N_("A query patch against its image, a video token against the same patch in other frames, under "
                        "each allocation; time ids that follow frames or seconds as the fps changes.")),
            PageInfo("lessons/multimodal/vision_rope.py", N_("Vision towers: 2D RoPE and learned tables"),
                     "vision_rope",
                     ":material/camera:",
                     N_("Inside the image encoder: Qwen's axial 2D RoPE at theta 10,000, Gemma 4's at theta 100 with "
                        "its x-x-y-y layout, and a learned table per axis.")),
        ),
    ),
    Section(
        N_("Diffusion transformers"),
        N_("Image and video generators ask the same question (where is this patch?) in 2D and 3D: integer ids "
           "per token for one shared rotary, or a cropped sin-cos table, and every new resolution or frame count "
           "moves them. The numbers are those diffusers computes."),
        (
            PageInfo("lessons/diffusion/dit_image_ids.py", N_("Position ids of an image"), "dit_image_ids",
                     ":material/grid_on:",
                     N_("FLUX.1's text at zero and image at (0, row, column), FLUX.2's four ids, Qwen-Image's centred "
                        "ids with negative rows, and how the head's rotary pairs split between the axes.")),
            PageInfo("lessons/diffusion/dit_sd3_grid.py", N_("SD3: a cropped sin-cos grid"), "dit_sd3_grid",
                     ":material/crop:",
                     N_("Stable Diffusion 3.5's fixed 2D table, made once on a large square grid; each image takes its "
                        "centred window, and an image bigger than the grid has none.")),
            PageInfo("lessons/diffusion/dit_video_rope.py", N_("Video: 3D rotary over time, rows and columns"),
                     "dit_video_rope", ":material/movie:",
                     N_("Wan, HunyuanVideo and CogVideoX: how each splits a head between time, height and width, and "
                        "the same clip at two frame counts.")),
            PageInfo("lessons/diffusion/dit_resolution.py", N_("Changing the resolution"), "dit_resolution",
                     ":material/aspect_ratio:",
                     N_("Ids left alone, interpolated ids, linear_factor and ntk_factor: what each does to every "
                        "pair's turns across a bigger image or a longer clip.")),
        ),
    ),
    Section(
        N_("Images and coordinates"),
        N_("The same sine waves that number tokens can number image patches on a grid, survive a change of "
           "resolution, and turn raw coordinates into detail a small network can learn."),
        (
            PageInfo("lessons/images/patches.py", N_("2D positions for image patches"), "patches", ":material/grid_on:",
                     N_("MAE's 2D code for a grid of patches: each patch's similarity map, all of them at once "
                        "as in the ViT paper, what flattening the grid to 1D loses, and axial 2D RoPE.")),
            PageInfo("lessons/images/resize.py", N_("Resizing a position grid"), "resize",
                     ":material/photo_size_select_large:",
                     N_("Fine-tuning a ViT at a higher resolution: timm's bicubic resize of the position grid, "
                        "with the [CLS] token kept aside, against bilinear and nearest.")),
            PageInfo("lessons/images/fourier.py", N_("Fourier features and NeRF"), "fourier", ":material/blur_on:",
                     N_("A small network fits a signal and an image from raw coordinates, NeRF's encoding and "
                        "random Fourier features: spectral bias, sigma's trade-off, and the duality with "
                        "the Transformer's table.")),
        ),
    ),
    Section(
        N_("Lab"),
        N_("Claims about extrapolation are easy to make and easy to test: train tiny models that differ only in "
           "their positional encoding and measure them beyond the length they were trained on."),
        (
            PageInfo("lessons/lab/lab.py", N_("Extrapolation lab"), "lab", ":material/science:",
                     N_("One tiny transformer per encoding trained at length T and tested at 2T, 4T and 8T, with "
                        "RoPE's context-extension rules at test time: accuracy, loss and attention maps.")),
        ),
    ),
    Section(
        N_("Inside real models"),
        N_("Everything before this ran on synthetic vectors or tiny lab models. Here two real pretrained models run "
           "offline on this machine, all-MiniLM-L6-v2 (learned positions) and SmolLM2-135M (RoPE), and every claim "
           "is a measurement: what removing positions does, which rotary pairs carry the energy, how attention "
           "falls with distance, what happens past the trained context, and what a porting bug costs."),
        (
            PageInfo("lessons/real_models/real_encoder.py", N_("Positions in a real encoder (MiniLM)"), "real_encoder",
                     ":material/text_fields:",
                     N_("all-MiniLM-L6-v2 on your sentence: shuffle the words with and without its position rows, "
                        "the heads that read the previous or next token, and what happens past row 512.")),
            PageInfo("lessons/real_models/real_frequencies.py", N_("Which rotary pairs SmolLM2 uses"),
                     "real_frequencies", ":material/equalizer:",
                     N_("SmolLM2-135M on real text: how its query and key energy spreads over fast and slow rotary "
                        "pairs, which heads follow relative position, and the sink on the first token.")),
            PageInfo("lessons/real_models/real_distance.py", N_("Attention against distance, measured"),
                     "real_distance",
                     ":material/social_distance:",
                     N_("SmolLM2's mean attention weight and mean q·k at each offset, layer by layer, next to the "
                        "decay bound RoFormer proves and to uniform attention.")),
            PageInfo("lessons/real_models/real_long_context.py", N_("Past the context window, for real"),
                     "real_long_context", ":material/open_in_full:",
                     N_("SmolLM2's loss at every position up to 2 x its 8,192 trained positions with no scaling, "
                        "position interpolation, NTK (static, dynamic) and YaRN, through transformers' own code.")),
            PageInfo("lessons/real_models/porting_bugs.py", N_("Porting bugs"), "porting_bugs", ":material/bug_report:",
                     N_("Seven RoPE bugs that shipped in real ports (wrong pairs, bfloat16 frequencies, a dropped YaRN "
                        "factor, a stale dynamic base...), each switched on in SmolLM2: the loss it costs and the "
                        "one-line test that catches it.")),
        ),
    ),
    Section(
        N_("Positions at inference"),
        N_("Serving a model meets positions again: keys are cached already rotated, a chat that outgrows the "
           "context is shifted, a stream keeps its first tokens as sinks, and the engines read the rope settings "
           "from their own metadata."),
        (
            PageInfo("lessons/inference/kv_cache.py", N_("What the cache holds"), "kv_cache", ":material/memory:",
                     N_("A tiny Llama's DynamicCache after prefill and decode: keys stored turned at their position, "
                        "values never turned, and why dynamic NTK leaves cached keys out of date while YaRN does "
                        "not.")),
            PageInfo("lessons/inference/context_shift.py", N_("Context shift"),
                     "context_shift", ":material/low_priority:",
                     N_("llama.cpp's answer to a full context: keep n_keep tokens, drop n_discard, rotate the cached "
                        "keys back; what float16 rounding adds shift after shift, and what the query sees.")),
            PageInfo("lessons/inference/streaming.py", N_("Streaming with attention sinks"), "streaming",
                     ":material/stream:",
                     N_("StreamingLLM's rolling cache on SmolLM2 over 24,576 tokens: a plain window, 1 or 4 sink "
                        "tokens with positions counted in the cache, and the same sinks at their text positions.")),
            PageInfo("lessons/inference/engine_metadata.py", N_("What the engine reads"), "engine_metadata",
                     ":material/settings_input_component:",
                     N_("A GGUF file's rope keys read from its header, what transformers' GGUF loader makes of them, "
                        "and llama.cpp's and vLLM's flags, each set beside the model's config.json.")),
        ),
    ),
)


def all_pages() -> list[PageInfo]:
    return [HOME] + [page for section in SECTIONS for page in section.pages]


def routed_pages() -> list[PageInfo]:
    """Every page the app serves: the home page, the lessons, and the checkpoint page every section shares."""
    return [*all_pages(), CHECKPOINT]


def section(key: str) -> Section | None:
    """The section whose folder is ``key``, or None."""
    return next((s for s in SECTIONS if s.key == key), None)


def section_of(url_path: str) -> Section | None:
    """The section a lesson belongs to (None for the home page and pages outside the sections)."""
    return next((s for s in SECTIONS if any(p.url_path == url_path for p in s.pages)), None)


def page(url_path: str) -> PageInfo | None:
    """The registered page with this url_path, or None (links to a page another branch adds are skipped)."""
    return next((p for p in routed_pages() if p.url_path == url_path), None)
