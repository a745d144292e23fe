"""The belief behind each wrong option of every predict-then-reveal question, for the live class's teacher.

A teacher sees, per question, the most common wrong answer and the misconception it stands for. Each entry of
``MISCONCEPTIONS`` is keyed by the question's key (``classroom.predict``'s first argument); a key built at run time
(``f"divided_{method}"``) is entered as its fixed prefix followed by ``*``. The tuple holds one sentence per option,
in the options' order: what a learner who picks that option believes when it is wrong. ``None`` stands only at an
option that is always right; where the page computes the right option, every option has a sentence, shown only
when it is wrong. The sentences are plain text and name no number the page computes (those follow the sliders).
"""

from __future__ import annotations

from page_kit.lesson import checkpoints

PREFIX_MARK = "*"  # a key ending in it stands for every key that starts with the part before it

MISCONCEPTIONS: dict[str, tuple[str | None, ...]] = {
    # --- why_position -------------------------------------------------------------------------------------------
    "binary_repeat": (
        "Each bit names one position, so b bits tell only b positions apart",
        "Each added bit adds two positions, so the period grows in step with the bits",
        None,
        "A fixed number of bits can give every position its own pattern, forever",
    ),
    "naive_width": (
        "More channels carrying the integer make it outweigh the word more, as if the word did not grow too",
        "The integer code grows with the width while the word's vector keeps its length",
        None,
        "A wider embedding gives the word more room, so the integer code's share shrinks",
    ),
    "naive_fraction": (
        "A fraction p / L gives a position one code, whatever the length of the sequence around it",
        "A shorter sequence always gives a larger code, even at position 0 or past its end",
        "A longer sequence gives the same position a larger code, as if p / L grew with L",
        "The shorter sequence ends before position p, though p is still below its length",
    ),
    "order_rows": (
        "Each output row only moves with its word, even when positions are added to the inputs",
        "Attention alone notices word order, so reordering the words changes their output rows",
        "Attention blends every word into one average, so all output rows come out alike",
    ),
    # --- absolute -----------------------------------------------------------------------------------------------
    "learned_rows": (
        None,
        "The table's width, its number of channels, sets how many positions get a vector",
        "A learned table extends its pattern past its last row, like a formula",
        "Past its last row, a learned table wraps around and reuses its rows",
    ),
    "base": (
        "A larger base makes the waves faster, so the slowest wavelength gets shorter",
        "The base leaves the wavelengths where they are",
        None,
        "The slowest wavelength depends so steeply on the base that doubling the base squares it",
    ),
    "tp_louder": (
        "The word's embedding always outweighs its position row, whatever the init and the scaling",
        "The position row always outweighs the word's embedding, whatever the init and the scaling",
        "A word's embedding and its position row are made to have the same length",
    ),
    "tp_width": (
        "The width never moves the balance of position and word, whatever the init and the scaling",
        "A wider model always gives the position row a larger share of the input",
        "A wider model always gives the word a larger share of the input",
        "The position row's length grows in proportion to the width, not to its square root",
    ),
    # --- rope ---------------------------------------------------------------------------------------------------
    "shift": (
        None,
        "RoPE rewards tokens further along the sequence, so moving both raises their score",
        "RoPE weakens a pair's score as both tokens move further along the sequence",
        "Turning both vectors further can flip the score's sign, as if each angle counted alone",
    ),
    "rm_rotated": (
        "RoPE rotates the values too, not only the queries and keys",
        None,
        "RoPE turns the vectors once at the input, as an added position vector would, not in every layer",
        "Only the query heads are rotated; the keys are left as they are",
    ),
    "rm_share": (
        "RoPE's rotations are a large part of a layer's q, k and v work",
        "RoPE's rotations are a small but noticeable part of a layer's q, k and v work",
        "RoPE's rotations cost next to nothing beside the projections in every model, small ones included",
    ),
    "rr_diagonal": (
        None,
        "Scores along a diagonal grow as both tokens move further along",
        "A score fades with the absolute position, even when the offset m − n stays fixed",
        "The other layout breaks the relative property, so the score swings along a diagonal",
    ),
    "rr_random": (
        "RoPE makes every query-key score decay with distance, whatever the vectors hold",
        None,
        "Turning random vectors further apart lines them up, so their scores grow",
    ),
    "rv_layouts": (
        "Turning each pair by the same angle gives the same vector, whichever dimensions form the pairs",
        None,
        "The two layouts are different encodings that no reordering of the dimensions can match",
    ),
    "rv_bfloat16": (
        "bfloat16's few significant bits ruin the angles almost at once, within a short prompt",
        "bfloat16 angles hold through short prompts and break at the length of an ordinary document",
        "bfloat16 forms angles precisely enough until very long contexts",
        "bfloat16 forms angles precisely enough over any context length",
    ),
    "rv_fope_clip": (
        "FoPE keeps every RoPE frequency and only mixes them, whatever the trained length",
        "Only a few of the slowest pairs are ever too slow to turn once in the trained length",
        "A large share of the head's pairs turn less than once in the trained length, so FoPE clips many",
    ),
    # --- attention_bias -----------------------------------------------------------------------------------------
    "doubled": (
        "Each ALiBi head's slope is fixed by its index alone, whatever the number of heads",
        None,
        "Doubling the heads halves every slope, as if one fixed amount of slope were shared out",
    ),
    "cmp_length": (
        "Only the learned absolute table's size follows the maximum length",
        "Every learned position table grows with the input, even one indexed by clipped or bucketed distance",
        "Learned position parameters never depend on the maximum length, not even an absolute table",
    ),
    "nope_rows": (
        None,
        "Attention alone keeps early positions closer to the start, even without a mask or encodings",
        "Without positions, attention gives each position its own random output",
    ),
    "nope_start": (
        None,
        "Under a causal mask every position pays all its attention to the first token, as position 0 does",
        "Attention fades with distance by itself, so a far first token gets nothing",
    ),
    "shaw_rows": (
        "Relative encoding still learns one vector per position, like an absolute table",
        "The model learns a separate vector for every pair of tokens",
        None,
        "Every distance in the input gets its own vector, so the table grows with the input",
    ),
    "shaw_flat": (
        "The relative term keeps falling with distance past the clipping distance",
        None,
        "Past the clipping distance the relative term alternates in sign from key to key",
    ),
    "t5_far": (
        "T5's buckets grow in step with the distance, so four times as far means a bucket four times larger",
        "T5's log buckets keep growing however far back a key is, with no last bucket",
        "Keys at max_distance and beyond always share one bucket, whatever the buckets' settings",
    ),
    # --- long_context -------------------------------------------------------------------------------------------
    "dca_far": (
        "Dual chunk attention still rotates each score by its true distance, so the farthest pair sets it",
        "Every long input reaches chunk_size, even one that fits in a chunk or two",
        "Positions restart in every chunk, so no score sees more than one chunk's length",
        "DCA keeps every distance within the pretraining context the config names as the usual 32K",
    ),
    "cmp_fast": (
        "Position interpolation alone moves the fastest pair; every other method leaves it alone",
        "Raising the base, as NTK-aware scaling does, changes the fastest pair too",
        "YaRN slows the fastest pair, though its ramp leaves the fast pairs unscaled",
        "Llama 3's scaling slows the fastest pair, though it leaves the fast pairs as they are",
        "Every extension method slows every pair, the fastest included",
        "No method touches the fastest pair, not even one that divides every pair by s",
    ),
    "cmp_ood": (
        "The fastest pairs meet new angles first, though they went round many times in training",
        "Only the slowest pairs meet new angles, whatever the training and target lengths",
        "A longer input takes every pair past the angles it saw, fast pairs included",
        "Every pair's angle wraps around, so a longer input shows no pair a new angle",
    ),
    "divided_*": (
        "A larger factor always pulls more pairs into the band divided by the full factor",
        "Which pairs a method divides by the full factor never depends on the factor",
        "A larger factor spreads the stretch thinner, so fewer pairs take all of it",
    ),
    "cfg_trained": (
        "max_position_embeddings never decides the trained context; another field always does",
        "max_position_embeddings is always the length the rotation was trained for",
        "The trained context follows max_position_embeddings by some factor other than one",
    ),
    # --- todays_models ------------------------------------------------------------------------------------------
    "sink_row_sum": (
        "Softmax hands all the probability to the real keys, even with a sink logit in the row",
        "A sink logit always takes away a visible share of the real keys' probability",
        "Adding a sink logit to the softmax pushes the real keys' total above one",
    ),
    "sink_window": (
        "Under full attention the sink takes more, as if more keys to compete with did not dilute it",
        "The sink always takes more in a sliding window, even one that still covers every key",
        "The sink's share does not depend on how many keys it competes with",
    ),
    "fewer_same": (
        "Rotating the same fraction of the head gives the same frequencies, however the pairs are chosen",
        "Partial rotary always spans RoPE's full speed range and p-RoPE always drops the slow end",
        "p-RoPE keeps RoPE's slowest turning pairs, and partial rotary its fastest",
    ),
    "drope_dropped": (
        "A trained model's rotations carry little, so removing them leaves its accuracy as it was",
        "A trained model always leans on its rotations, so removing them must cost accuracy",
        "Dropping the rotations helps at once, before the model is recalibrated",
    ),
    "cope_how_many": (
        "Exactly one key sits at each counted position, whatever unit is counted",
        "Several keys always share a counted position, even when a unit is a single token",
        "Counted positions run out fast, so no key reaches the position asked for",
    ),
    "fox_zero": (
        None,
        "Without data dependence the forget gate does nothing, so no bias is left",
        "FoX's bias still changes along each diagonal when every gate is the same",
    ),
    "mla_shift": (
        "Shifting every token changes nothing at any start, as if float32 angles were exact far out",
        "The rotated slice reads absolute positions, so moving every token changes the whole position term",
        "Positions further out give a weaker position term that fades towards zero",
    ),
    "nope_scout": (
        "Only Scout's layers without positions see the whole context",
        "Scout's rotating layers see the whole context, and its chunked layers are the ones without positions",
        "Chunking only saves memory; every layer still sees the whole context",
        "No layer sees the whole context once a model chunks its attention",
    ),
    "nope_first_step": (
        "Llama 4's query scale always steps above one first, whatever Mistral's period",
        "Mistral's query scale always steps above one first, whatever its period",
        "Both rules scale queries at the same positions, as if they shared one period",
    ),
    "hybrid_drop": (
        "Every hybrid drops positions from attention, since its other mixers already read order",
        "Hybrids split between attention without positions and attention with RoPE",
        "Every hybrid keeps RoPE in its attention layers, since attention cannot see order on its own",
    ),
    "hybrid_blind": (
        "A causal convolution ignores order, though its kernel weighs each of the last few tokens differently",
        "A gated recurrence is blind to order, though it reads the tokens one after another",
        "Attention without positions is blind to order even under a causal mask",
        "Bidirectional attention still sees order, as if attention carried positions by itself",
    ),
    "strip_longer": (
        "Every attention layer reaches further back with a longer prompt, windows and chunks included",
        "Some attention layers always stay within a window or chunk, as if every model mixed both kinds",
        "A model never looks further back than its context, however long the prompt",
    ),
    "lg_slowest": (
        "Full-attention layers always turn their slowest pair more slowly, whatever the model's bases",
        "Sliding-window layers need the slower pairs, as if a short window needed long wavelengths",
        "Both layer kinds of a model share one base, so their slowest wavelengths match",
    ),
    "path_fixed": (
        None,
        "PaTH's grid changes along the diagonals even when one fixed transform serves every word",
        "Without word-dependent transforms PaTH has no position signal left",
    ),
    "sb_level": (
        "Higher logits always pull stick-breaking's weight towards the nearest keys",
        "Higher logits let far keys win more of the stick, spreading the weight further back",
        "Stick-breaking ignores a rise of every logit, as softmax does",
    ),
    # --- encoders -----------------------------------------------------------------------------------------------
    "deberta_same": (
        "Once two keys share a bucket, every term but pure content gives them the same value",
        None,
        "Content → position still tells keys in one bucket apart, though it reads only the bucket",
        "Keys in one distance bucket get the same score, as if a key's content played no part",
    ),
    "deberta_far": (
        "Every distance keeps its own relative row, however far back the key",
        None,
        "Relative rows wrap around past the table's end, as an index modulo its size",
    ),
    "mb_window": (
        "A token sees only the half of the window on one side of it, as a causal model would",
        "local_attention is the number of keys a token sees, itself included",
        None,
        "An encoder attends to every token in every layer, local layers included",
    ),
    "mb_cost": (
        "An encoder attends to everything in every layer, so local layers save nothing",
        None,
        "ModernBERT saves by masking half the keys, as a causal decoder does",
    ),
    "xl_d": (
        "Term (d) reads the query's word, as the content terms do",
        "Term (d) reads the key's word, though it holds no key content",
        None,
        "Transformer-XL's position term still depends on absolute positions",
    ),
    # --- real_models --------------------------------------------------------------------------------------------
    "real_distance_far": (
        "A trained model starves far keys, giving them well under an even share of attention",
        "A trained model treats far keys evenly, neither favouring nor starving them",
        "A trained model favours far keys, giving them well over an even share of attention",
    ),
    "encoder_no_rows": (
        "Without its position rows the encoder cannot tell a shuffled sentence from the typed one",
        "Attention keeps a little sense of word order by itself, without any position rows",
        "Attention sees where each word sits, so a shuffle changes the embedding a lot even without rows",
    ),
    "encoder_prev_head": (
        "A previous-token head finds the previous word by its content, so it works without positions",
        "A previous-token head loses most of its focus without the position rows",
        "Removing the position rows sharpens a previous-token head's focus",
    ),
    "real_freq_layer": (
        "Every layer puts more of its query energy in the slow pairs than the model does overall",
        "Each layer splits its query energy between fast and slow pairs as the model does overall",
        "Every layer puts less of its query energy in the slow pairs than the model does overall",
    ),
    "real_long_past": (
        "More text always helps, so the loss keeps falling past the training length",
        "RoPE carries a model past its training length with barely any change in loss",
        "Reading past its training length costs a model only a modest rise in loss",
        "Past its training length a model's loss shoots up at once",
    ),
    "bugs_previous": (
        "A rotation bug can only blur attention, so a head's pull to the previous token must weaken",
        "The first layer reads the same embeddings, so a rotation bug leaves its attention about as it was",
        "A rotation bug can only sharpen attention, so a head's pull to the previous token must grow",
    ),
    # --- images -------------------------------------------------------------------------------------------------
    "ff_sigma": (
        "More random features make the fastest one faster, as if their count set the top frequency",
        "Only σ can speed up the fastest feature; more draws never reach a faster one",
        "The number of features and their spread σ speed up the fastest one alike",
        "The fastest feature is fixed by its draw, so neither more features nor a wider σ speeds it up",
    ),
    "ff_worst": (
        "Raw coordinates always predict unseen samples worst, as if more frequencies could not overfit",
        "The NeRF encoding's fixed octaves always predict unseen samples worst",
        "Random Fourier features always predict unseen samples worst, as if random frequencies only add noise",
    ),
    "vit_base": (
        "A larger base always draws neighbouring patches closer, whatever the patch and the direction",
        "The base leaves one step between neighbouring patches as similar as before",
        "A larger base turns each wave faster, so neighbouring patches look less alike",
    ),
    "vit_flat": (
        "The neighbour one raster step away always scores highest under a flattened 1D code",
        "A flattened 1D code keeps the patch above or below one step away, as the 2D grid does",
        "Flattening the grid keeps both neighbours one step away, as the 2D code does",
    ),
    "resize_other": (
        "Resizing to another grid moves neighbours closer, whichever way the grid size changes",
        "One step between neighbouring cells looks the same on every grid size",
        "Resizing to another grid moves neighbours apart, whichever way the grid size changes",
    ),
    # --- diffusion ----------------------------------------------------------------------------------------------
    "dit_corner": (
        "A token's ids always count from the top-left corner, so widening the image never moves them",
        "Widening an image always renumbers its corner, even where the ids count from the corner",
    ),
    "dit_res_fast": (
        "Every remedy spares the fastest pair, so the finest detail keeps its speed",
        "Every remedy slows every pair, the fastest included",
    ),
    "dit_sd3_unseen": (
        "Any image reads only the cells a training image used, whatever its size",
        "An image's patches always split between seen and unseen cells, whatever its size",
        "A size other than the training size moves every patch onto cells training never used",
    ),
    "dit_video_frames": (
        "A frame's time id depends only on its index, whatever the clip's length or padding",
        "A longer clip gives the same frame another time id, as if ids were a fraction of the length",
    ),
    # --- multimodal ---------------------------------------------------------------------------------------------
    "mm_axes_wide": (
        "Every width pair turns at least once across an image, as if every wavelength were short",
        "Some width pairs are always too slow for one image while others are not, whatever the model",
        "Every width pair is too slow to turn even once across an image",
    ),
    "mm_axes_xd_halves": (
        "Both dimensions of a rotary pair always turn with the same id, in every implementation",
        "Only some pairs of the head are split between two axes",
        "Every rotary pair turns its two dimensions with two different ids",
    ),
    # two or three options, smallest id first: as now, then the family's rule and one id per added token
    "mm_ids_wider": (
        "Widening an image costs no ids, as if the next text's id ignored the image's size",
        "Each added image token pushes the next text one id further, as a text token would",
        "Each added image token pushes the next text one id further, as a text token would",
    ),
    "mm_scores_wider": (
        "A patch far along the row scores almost like the query itself, as if width pairs never turned",
        "A far patch keeps a middling score, neither near the query's own nor clearly elsewhere",
        "A patch far along the row always scores as clearly elsewhere",
    ),
    "mm_scores_fps": (
        "Time ids count frame groups only, so the frame rate never moves them",
        "Qwen2-VL's time ids follow the frame rate, so clip B's last group lands on a larger id",
        "Qwen2-VL's time ids follow the frame rate, so clip B's last group lands on a smaller id",
    ),
    "vision_theta": (
        "Gemma 4's θ makes the pairs turn more slowly, so a far patch scores more like the query",
        "The base θ barely matters across an image, so the far patch keeps its score",
        "Faster turning pairs always lower a far patch's score, as if scores fell steadily with turning",
    ),
    # --- lab ----------------------------------------------------------------------------------------------------
    # two to four options, the models the page compares this run: the same belief whichever model is picked
    "lab_longest": (
        "The encoding picked keeps its accuracy best far past the length it was trained on",
        "The encoding picked keeps its accuracy best far past the length it was trained on",
        "The encoding picked keeps its accuracy best far past the length it was trained on",
        "The encoding picked keeps its accuracy best far past the length it was trained on",
    ),
    "lab_pi": (
        "Dividing every frequency by the stretch lets a model read longer inputs with no fine-tuning",
        "Untuned position interpolation leaves a model merely unsure, guessing about uniformly",
        "Untuned position interpolation makes a model confidently wrong",
    ),
    # --- inference ----------------------------------------------------------------------------------------------
    "cs_offset": (
        "Shifting the cache keeps every offset, even between a kept token and a shifted one",
        "A shift brings the newest token nearer to every other token, shifted ones included",
        "Moving tokens back to lower positions puts them further from the newest token",
        "The distance after a shift depends on RoPE's base, not only on the positions",
    ),
    "cs_many": (
        "Rotations compose exactly, so shifting a float16 cache again and again loses nothing",
        "Repeated shifts of a float16 cache add little error beyond that of a key computed fresh",
        "Repeated float16 shifts multiply the error several times over, but not by orders of magnitude",
        "Repeated float16 shifts multiply the key error by orders of magnitude",
    ),
    "engine_bare": (
        "llama.cpp reads every RoPE setting it needs from the GGUF, so flags are never needed",
        "Without flags llama.cpp always drops a model's RoPE scaling",
        "Without flags llama.cpp gets some RoPE field other than the scaling wrong",
    ),
    "kv_double": (
        "A KV cache always grows in proportion to the context, sliding-window layers included",
        "Window layers always cap part of the cache, even when the context is shorter than the window",
        "Sliding-window layers keep the whole cache at a fixed size, however long the context",
    ),
    "kv_next_step": (
        "Cached keys always stay as written, whatever the engine does with their positions",
        "Each step updates the newest cached key, as if it were still being written",
        "Each new position re-rotates every cached key, so the whole cache is rewritten at every step",
    ),
    "kv_dynamic": (
        "Decoding with a cache matches a fresh full forward bit for bit, whatever the scaling",
        "Dynamic NTK with a cache differs from a fresh forward only by float32 rounding",
        "A cached decode under dynamic NTK always drifts from a fresh forward, even within the original context",
    ),
    "stream_window": (
        "Once the first tokens leave the window they no longer matter, so a plain window loses nothing",
        "Losing the first tokens costs a plain window only a modest rise in loss",
        "A plain window's loss shoots up as soon as the first tokens leave it",
    ),
    "stream_share": (
        "A model spreads its attention by content, with no special weight on the first token",
        "Token 0 alone draws a large share of attention, the next few tokens almost none",
        "Token 0 and the few tokens after it all draw large shares of attention",
        "The tokens just after the first draw the attention while token 0 itself draws little",
    ),
}
# each checkpoint question's beliefs sit beside it (page_kit/lesson/checkpoint_questions/<section>.py)
MISCONCEPTIONS.update(checkpoints.beliefs())

# Questions whose number of options varies at run time: the entry holds the largest count, in the order the options
# take, and a question with fewer options takes the first ones.
VARIABLE_COUNT = frozenset({"mm_ids_wider", "lab_longest"})


def entry_for(key: str) -> tuple[str | None, ...]:
    """The registry's tuple for question ``key``: its exact entry, else the longest prefix pattern it matches.

    Raises KeyError naming the key when neither is there.
    """
    if key in MISCONCEPTIONS:
        return MISCONCEPTIONS[key]
    patterns = [name for name in MISCONCEPTIONS if name.endswith(PREFIX_MARK) and key.startswith(name[:-1])]
    if not patterns:
        raise KeyError(f"no misconceptions are registered for the question {key!r}")
    return MISCONCEPTIONS[max(patterns, key=len)]


def for_question(key: str, options: int, answer: int) -> tuple[str | None, ...]:
    """The misconception of each option of question ``key``, with ``None`` at the right one (``answer``).

    Args:
        key: the question's key, as given to ``classroom.predict``.
        options: how many options the question shows this run.
        answer: the index of the right option this run.

    Raises:
        KeyError: the key has no entry, exact or by prefix.
        ValueError: the entry's length is not ``options``, ``answer`` is no option's index, or a wrong option has
            no sentence.
    """
    sentences = entry_for(key)
    if key in VARIABLE_COUNT and 2 <= options < len(sentences):
        sentences = sentences[:options]
    if len(sentences) != options:
        raise ValueError(f"the question {key!r} has {options} options but {len(sentences)} misconceptions")
    if not 0 <= answer < options:
        raise ValueError(f"the question {key!r} has no option {answer} (it has {options})")
    missing = [index for index, sentence in enumerate(sentences) if sentence is None and index != answer]
    if missing:
        raise ValueError(f"the question {key!r} has no misconception for its wrong option(s) {missing}")
    return tuple(None if index == answer else sentence for index, sentence in enumerate(sentences))
