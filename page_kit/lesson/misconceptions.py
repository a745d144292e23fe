"""The belief behind each wrong option of every predict-then-reveal question, for the live class's teacher.

A teacher sees, per question, the most common wrong answer and the misconception it stands for. Each entry of
``MISCONCEPTIONS`` is keyed by the question's key (``classroom.predict``'s first argument); a key built at run time
(``f"divided_{method}"``) is entered as its fixed prefix followed by ``*``. The tuple holds one sentence per option,
in the options' order: what a learner who picks that option believes when it is wrong. ``None`` stands only at an
option that is always right; where the page computes the right option, every option has a sentence, shown only
when it is wrong. The sentences are plain text and name no number the page computes (those follow the sliders).
"""

from __future__ import annotations

from page_kit.i18n import N_, _
from page_kit.lesson import checkpoints

PREFIX_MARK = "*"  # a key ending in it stands for every key that starts with the part before it

MISCONCEPTIONS: dict[str, tuple[str | None, ...]] = {
    # --- why_position -------------------------------------------------------------------------------------------
    "binary_repeat": (
        N_("Each bit names one position, so b bits tell only b positions apart"),
        N_("Each added bit adds two positions, so the period grows in step with the bits"),
        None,
        N_("A fixed number of bits can give every position its own pattern, forever"),
    ),
    "naive_width": (
        N_("More channels carrying the integer make it outweigh the word more, as if the word did not grow too"),
        N_("The integer code grows with the width while the word's vector keeps its length"),
        None,
        N_("A wider embedding gives the word more room, so the integer code's share shrinks"),
    ),
    "naive_fraction": (
        N_("A fraction p / L gives a position one code, whatever the length of the sequence around it"),
        N_("A shorter sequence always gives a larger code, even at position 0 or past its end"),
        N_("A longer sequence gives the same position a larger code, as if p / L grew with L"),
        N_("The shorter sequence ends before position p, though p is still below its length"),
    ),
    "order_rows": (
        N_("Each output row only moves with its word, even when positions are added to the inputs"),
        N_("Attention alone notices word order, so reordering the words changes their output rows"),
        N_("Attention blends every word into one average, so all output rows come out alike"),
    ),
    # --- absolute -----------------------------------------------------------------------------------------------
    "learned_rows": (
        None,
        N_("The table's width, its number of channels, sets how many positions get a vector"),
        N_("A learned table extends its pattern past its last row, like a formula"),
        N_("Past its last row, a learned table wraps around and reuses its rows"),
    ),
    "base": (
        N_("A larger base makes the waves faster, so the slowest wavelength gets shorter"),
        N_("The base leaves the wavelengths where they are"),
        None,
        N_("The slowest wavelength depends so steeply on the base that doubling the base squares it"),
    ),
    "tp_louder": (
        N_("The word's embedding always outweighs its position row, whatever the init and the scaling"),
        N_("The position row always outweighs the word's embedding, whatever the init and the scaling"),
        N_("A word's embedding and its position row are made to have the same length"),
    ),
    "tp_width": (
        N_("The width never moves the balance of position and word, whatever the init and the scaling"),
        N_("A wider model always gives the position row a larger share of the input"),
        N_("A wider model always gives the word a larger share of the input"),
        N_("The position row's length grows in proportion to the width, not to its square root"),
    ),
    # --- rope ---------------------------------------------------------------------------------------------------
    "shift": (
        None,
        N_("RoPE rewards tokens further along the sequence, so moving both raises their score"),
        N_("RoPE weakens a pair's score as both tokens move further along the sequence"),
        N_("Turning both vectors further can flip the score's sign, as if each angle counted alone"),
    ),
    "rm_rotated": (
        N_("RoPE rotates the values too, not only the queries and keys"),
        None,
        N_("RoPE turns the vectors once at the input, as an added position vector would, not in every layer"),
        N_("Only the query heads are rotated; the keys are left as they are"),
    ),
    "rm_share": (
        N_("RoPE's rotations are a large part of a layer's q, k and v work"),
        N_("RoPE's rotations are a small but noticeable part of a layer's q, k and v work"),
        N_("RoPE's rotations cost next to nothing beside the projections in every model, small ones included"),
    ),
    "rr_diagonal": (
        None,
        N_("Scores along a diagonal grow as both tokens move further along"),
        N_("A score fades with the absolute position, even when the offset m − n stays fixed"),
        N_("The other layout breaks the relative property, so the score swings along a diagonal"),
    ),
    "rr_random": (
        N_("RoPE makes every query-key score decay with distance, whatever the vectors hold"),
        None,
        N_("Turning random vectors further apart lines them up, so their scores grow"),
    ),
    "rv_layouts": (
        N_("Turning each pair by the same angle gives the same vector, whichever dimensions form the pairs"),
        None,
        N_("The two layouts are different encodings that no reordering of the dimensions can match"),
    ),
    "rv_bfloat16": (
        N_("bfloat16's few significant bits ruin the angles almost at once, within a short prompt"),
        N_("bfloat16 angles hold through short prompts and break at the length of an ordinary document"),
        N_("bfloat16 forms angles precisely enough until very long contexts"),
        N_("bfloat16 forms angles precisely enough over any context length"),
    ),
    "rv_fope_clip": (
        N_("FoPE keeps every RoPE frequency and only mixes them, whatever the trained length"),
        N_("Only a few of the slowest pairs are ever too slow to turn once in the trained length"),
        N_("A large share of the head's pairs turn less than once in the trained length, so FoPE clips many"),
    ),
    # --- attention_bias -----------------------------------------------------------------------------------------
    "doubled": (
        N_("Each ALiBi head's slope is fixed by its index alone, whatever the number of heads"),
        None,
        N_("Doubling the heads halves every slope, as if one fixed amount of slope were shared out"),
    ),
    "cmp_length": (
        N_("Only the learned absolute table's size follows the maximum length"),
        N_("Every learned position table grows with the input, even one indexed by clipped or bucketed distance"),
        N_("Learned position parameters never depend on the maximum length, not even an absolute table"),
    ),
    "nope_rows": (
        None,
        N_("Attention alone keeps early positions closer to the start, even without a mask or encodings"),
        N_("Without positions, attention gives each position its own random output"),
    ),
    "nope_start": (
        None,
        N_("Under a causal mask every position pays all its attention to the first token, as position 0 does"),
        N_("Attention fades with distance by itself, so a far first token gets nothing"),
    ),
    "shaw_rows": (
        N_("Relative encoding still learns one vector per position, like an absolute table"),
        N_("The model learns a separate vector for every pair of tokens"),
        None,
        N_("Every distance in the input gets its own vector, so the table grows with the input"),
    ),
    "shaw_flat": (
        N_("The relative term keeps falling with distance past the clipping distance"),
        None,
        N_("Past the clipping distance the relative term alternates in sign from key to key"),
    ),
    "t5_far": (
        N_("T5's buckets grow in step with the distance, so four times as far means a bucket four times larger"),
        N_("T5's log buckets keep growing however far back a key is, with no last bucket"),
        N_("Keys at max_distance and beyond always share one bucket, whatever the buckets' settings"),
    ),
    # --- long_context -------------------------------------------------------------------------------------------
    "dca_far": (
        N_("Dual chunk attention still rotates each score by its true distance, so the farthest pair sets it"),
        N_("Every long input reaches chunk_size, even one that fits in a chunk or two"),
        N_("Positions restart in every chunk, so no score sees more than one chunk's length"),
        N_("DCA keeps every distance within the pretraining context the config names as the usual 32K"),
    ),
    "cmp_fast": (
        N_("Position interpolation alone moves the fastest pair; every other method leaves it alone"),
        N_("Raising the base, as NTK-aware scaling does, changes the fastest pair too"),
        N_("YaRN slows the fastest pair, though its ramp leaves the fast pairs unscaled"),
        N_("Llama 3's scaling slows the fastest pair, though it leaves the fast pairs as they are"),
        N_("Every extension method slows every pair, the fastest included"),
        N_("No method touches the fastest pair, not even one that divides every pair by s"),
    ),
    "cmp_ood": (
        N_("The fastest pairs meet new angles first, though they went round many times in training"),
        N_("Only the slowest pairs meet new angles, whatever the training and target lengths"),
        N_("A longer input takes every pair past the angles it saw, fast pairs included"),
        N_("Every pair's angle wraps around, so a longer input shows no pair a new angle"),
    ),
    "divided_*": (
        N_("A larger factor always pulls more pairs into the band divided by the full factor"),
        N_("Which pairs a method divides by the full factor never depends on the factor"),
        N_("A larger factor spreads the stretch thinner, so fewer pairs take all of it"),
    ),
    "cfg_trained": (
        N_("max_position_embeddings never decides the trained context; another field always does"),
        N_("max_position_embeddings is always the length the rotation was trained for"),
        N_("The trained context follows max_position_embeddings by some factor other than one"),
    ),
    # --- todays_models ------------------------------------------------------------------------------------------
    "sink_row_sum": (
        N_("Softmax hands all the probability to the real keys, even with a sink logit in the row"),
        N_("A sink logit always takes away a visible share of the real keys' probability"),
        N_("Adding a sink logit to the softmax pushes the real keys' total above one"),
    ),
    "sink_window": (
        N_("Under full attention the sink takes more, as if more keys to compete with did not dilute it"),
        N_("The sink always takes more in a sliding window, even one that still covers every key"),
        N_("The sink's share does not depend on how many keys it competes with"),
    ),
    "fewer_same": (
        N_("Rotating the same fraction of the head gives the same frequencies, however the pairs are chosen"),
        N_("Partial rotary always spans RoPE's full speed range and p-RoPE always drops the slow end"),
        N_("p-RoPE keeps RoPE's slowest turning pairs, and partial rotary its fastest"),
    ),
    "drope_dropped": (
        N_("A trained model's rotations carry little, so removing them leaves its accuracy as it was"),
        N_("A trained model always leans on its rotations, so removing them must cost accuracy"),
        N_("Dropping the rotations helps at once, before the model is recalibrated"),
    ),
    "cope_how_many": (
        N_("Exactly one key sits at each counted position, whatever unit is counted"),
        N_("Several keys always share a counted position, even when a unit is a single token"),
        N_("Counted positions run out fast, so no key reaches the position asked for"),
    ),
    "fox_zero": (
        None,
        N_("Without data dependence the forget gate does nothing, so no bias is left"),
        N_("FoX's bias still changes along each diagonal when every gate is the same"),
    ),
    "mla_shift": (
        N_("Shifting every token changes nothing at any start, as if float32 angles were exact far out"),
        N_("The rotated slice reads absolute positions, so moving every token changes the whole position term"),
        N_("Positions further out give a weaker position term that fades towards zero"),
    ),
    "nope_scout": (
        N_("Only Scout's layers without positions see the whole context"),
        N_("Scout's rotating layers see the whole context, and its chunked layers are the ones without positions"),
        N_("Chunking only saves memory; every layer still sees the whole context"),
        N_("No layer sees the whole context once a model chunks its attention"),
    ),
    "nope_first_step": (
        N_("Llama 4's query scale always steps above one first, whatever Mistral's period"),
        N_("Mistral's query scale always steps above one first, whatever its period"),
        N_("Both rules scale queries at the same positions, as if they shared one period"),
    ),
    "hybrid_drop": (
        N_("Every hybrid drops positions from attention, since its other mixers already read order"),
        N_("Hybrids split between attention without positions and attention with RoPE"),
        N_("Every hybrid keeps RoPE in its attention layers, since attention cannot see order on its own"),
    ),
    "hybrid_blind": (
        N_("A causal convolution ignores order, though its kernel weighs each of the last few tokens differently"),
        N_("A gated recurrence is blind to order, though it reads the tokens one after another"),
        N_("Attention without positions is blind to order even under a causal mask"),
        N_("Bidirectional attention still sees order, as if attention carried positions by itself"),
    ),
    "strip_longer": (
        N_("Every attention layer reaches further back with a longer prompt, windows and chunks included"),
        N_("Some attention layers always stay within a window or chunk, as if every model mixed both kinds"),
        N_("A model never looks further back than its context, however long the prompt"),
    ),
    "lg_slowest": (
        N_("Full-attention layers always turn their slowest pair more slowly, whatever the model's bases"),
        N_("Sliding-window layers need the slower pairs, as if a short window needed long wavelengths"),
        N_("Both layer kinds of a model share one base, so their slowest wavelengths match"),
    ),
    "path_fixed": (
        None,
        N_("PaTH's grid changes along the diagonals even when one fixed transform serves every word"),
        N_("Without word-dependent transforms PaTH has no position signal left"),
    ),
    "sb_level": (
        N_("Higher logits always pull stick-breaking's weight towards the nearest keys"),
        N_("Higher logits let far keys win more of the stick, spreading the weight further back"),
        N_("Stick-breaking ignores a rise of every logit, as softmax does"),
    ),
    # --- encoders -----------------------------------------------------------------------------------------------
    "deberta_same": (
        N_("Once two keys share a bucket, every term but pure content gives them the same value"),
        None,
        N_("Content → position still tells keys in one bucket apart, though it reads only the bucket"),
        N_("Keys in one distance bucket get the same score, as if a key's content played no part"),
    ),
    "deberta_far": (
        N_("Every distance keeps its own relative row, however far back the key"),
        None,
        N_("Relative rows wrap around past the table's end, as an index modulo its size"),
    ),
    "mb_window": (
        N_("A token sees only the half of the window on one side of it, as a causal model would"),
        N_("local_attention is the number of keys a token sees, itself included"),
        None,
        N_("An encoder attends to every token in every layer, local layers included"),
    ),
    "mb_cost": (
        N_("An encoder attends to everything in every layer, so local layers save nothing"),
        None,
        N_("ModernBERT saves by masking half the keys, as a causal decoder does"),
    ),
    "xl_d": (
        N_("Term (d) reads the query's word, as the content terms do"),
        N_("Term (d) reads the key's word, though it holds no key content"),
        None,
        N_("Transformer-XL's position term still depends on absolute positions"),
    ),
    # --- real_models --------------------------------------------------------------------------------------------
    "real_distance_far": (
        N_("A trained model starves far keys, giving them well under an even share of attention"),
        N_("A trained model treats far keys evenly, neither favouring nor starving them"),
        N_("A trained model favours far keys, giving them well over an even share of attention"),
    ),
    "encoder_no_rows": (
        N_("Without its position rows the encoder cannot tell a shuffled sentence from the typed one"),
        N_("Attention keeps a little sense of word order by itself, without any position rows"),
        N_("Attention sees where each word sits, so a shuffle changes the embedding a lot even without rows"),
    ),
    "encoder_prev_head": (
        N_("A previous-token head finds the previous word by its content, so it works without positions"),
        N_("A previous-token head loses most of its focus without the position rows"),
        N_("Removing the position rows sharpens a previous-token head's focus"),
    ),
    "real_freq_layer": (
        N_("Every layer puts more of its query energy in the slow pairs than the model does overall"),
        N_("Each layer splits its query energy between fast and slow pairs as the model does overall"),
        N_("Every layer puts less of its query energy in the slow pairs than the model does overall"),
    ),
    "real_long_past": (
        N_("More text always helps, so the loss keeps falling past the training length"),
        N_("RoPE carries a model past its training length with barely any change in loss"),
        N_("Reading past its training length costs a model only a modest rise in loss"),
        N_("Past its training length a model's loss shoots up at once"),
    ),
    "bugs_previous": (
        N_("A rotation bug can only blur attention, so a head's pull to the previous token must weaken"),
        N_("The first layer reads the same embeddings, so a rotation bug leaves its attention about as it was"),
        N_("A rotation bug can only sharpen attention, so a head's pull to the previous token must grow"),
    ),
    # --- images -------------------------------------------------------------------------------------------------
    "ff_sigma": (
        N_("More random features make the fastest one faster, as if their count set the top frequency"),
        N_("Only σ can speed up the fastest feature; more draws never reach a faster one"),
        N_("The number of features and their spread σ speed up the fastest one alike"),
        N_("The fastest feature is fixed by its draw, so neither more features nor a wider σ speeds it up"),
    ),
    "ff_worst": (
        N_("Raw coordinates always predict unseen samples worst, as if more frequencies could not overfit"),
        N_("The NeRF encoding's fixed octaves always predict unseen samples worst"),
        N_("Random Fourier features always predict unseen samples worst, as if random frequencies only add noise"),
    ),
    "vit_base": (
        N_("A larger base always draws neighbouring patches closer, whatever the patch and the direction"),
        N_("The base leaves one step between neighbouring patches as similar as before"),
        N_("A larger base turns each wave faster, so neighbouring patches look less alike"),
    ),
    "vit_flat": (
        N_("The neighbour one raster step away always scores highest under a flattened 1D code"),
        N_("A flattened 1D code keeps the patch above or below one step away, as the 2D grid does"),
        N_("Flattening the grid keeps both neighbours one step away, as the 2D code does"),
    ),
    "resize_other": (
        N_("Resizing to another grid moves neighbours closer, whichever way the grid size changes"),
        N_("One step between neighbouring cells looks the same on every grid size"),
        N_("Resizing to another grid moves neighbours apart, whichever way the grid size changes"),
    ),
    # --- diffusion ----------------------------------------------------------------------------------------------
    "dit_corner": (
        N_("A token's ids always count from the top-left corner, so widening the image never moves them"),
        N_("Widening an image always renumbers its corner, even where the ids count from the corner"),
    ),
    "dit_res_fast": (
        N_("Every remedy spares the fastest pair, so the finest detail keeps its speed"),
        N_("Every remedy slows every pair, the fastest included"),
    ),
    "dit_sd3_unseen": (
        N_("Any image reads only the cells a training image used, whatever its size"),
        N_("An image's patches always split between seen and unseen cells, whatever its size"),
        N_("A size other than the training size moves every patch onto cells training never used"),
    ),
    "dit_video_frames": (
        N_("A frame's time id depends only on its index, whatever the clip's length or padding"),
        N_("A longer clip gives the same frame another time id, as if ids were a fraction of the length"),
    ),
    # --- multimodal ---------------------------------------------------------------------------------------------
    "mm_axes_wide": (
        N_("Every width pair turns at least once across an image, as if every wavelength were short"),
        N_("Some width pairs are always too slow for one image while others are not, whatever the model"),
        N_("Every width pair is too slow to turn even once across an image"),
    ),
    "mm_axes_xd_halves": (
        N_("Both dimensions of a rotary pair always turn with the same id, in every implementation"),
        N_("Only some pairs of the head are split between two axes"),
        N_("Every rotary pair turns its two dimensions with two different ids"),
    ),
    # two or three options, smallest id first: as now, then the family's rule and one id per added token
    "mm_ids_wider": (
        N_("Widening an image costs no ids, as if the next text's id ignored the image's size"),
        N_("Each added image token pushes the next text one id further, as a text token would"),
        N_("Each added image token pushes the next text one id further, as a text token would"),
    ),
    "mm_scores_wider": (
        N_("A patch far along the row scores almost like the query itself, as if width pairs never turned"),
        N_("A far patch keeps a middling score, neither near the query's own nor clearly elsewhere"),
        N_("A patch far along the row always scores as clearly elsewhere"),
    ),
    "mm_scores_fps": (
        N_("Time ids count frame groups only, so the frame rate never moves them"),
        N_("Qwen2-VL's time ids follow the frame rate, so clip B's last group lands on a larger id"),
        N_("Qwen2-VL's time ids follow the frame rate, so clip B's last group lands on a smaller id"),
    ),
    "vision_theta": (
        N_("Gemma 4's θ makes the pairs turn more slowly, so a far patch scores more like the query"),
        N_("The base θ barely matters across an image, so the far patch keeps its score"),
        N_("Faster turning pairs always lower a far patch's score, as if scores fell steadily with turning"),
    ),
    # --- lab ----------------------------------------------------------------------------------------------------
    # two to four options, the models the page compares this run: the same belief whichever model is picked
    "lab_longest": (
        N_("The encoding picked keeps its accuracy best far past the length it was trained on"),
        N_("The encoding picked keeps its accuracy best far past the length it was trained on"),
        N_("The encoding picked keeps its accuracy best far past the length it was trained on"),
        N_("The encoding picked keeps its accuracy best far past the length it was trained on"),
    ),
    "lab_pi": (
        N_("Dividing every frequency by the stretch lets a model read longer inputs with no fine-tuning"),
        N_("Untuned position interpolation leaves a model merely unsure, guessing about uniformly"),
        N_("Untuned position interpolation makes a model confidently wrong"),
    ),
    # --- inference ----------------------------------------------------------------------------------------------
    "cs_offset": (
        N_("Shifting the cache keeps every offset, even between a kept token and a shifted one"),
        N_("A shift brings the newest token nearer to every other token, shifted ones included"),
        N_("Moving tokens back to lower positions puts them further from the newest token"),
        N_("The distance after a shift depends on RoPE's base, not only on the positions"),
    ),
    "cs_many": (
        N_("Rotations compose exactly, so shifting a float16 cache again and again loses nothing"),
        N_("Repeated shifts of a float16 cache add little error beyond that of a key computed fresh"),
        N_("Repeated float16 shifts multiply the error several times over, but not by orders of magnitude"),
        N_("Repeated float16 shifts multiply the key error by orders of magnitude"),
    ),
    "engine_bare": (
        N_("llama.cpp reads every RoPE setting it needs from the GGUF, so flags are never needed"),
        N_("Without flags llama.cpp always drops a model's RoPE scaling"),
        N_("Without flags llama.cpp gets some RoPE field other than the scaling wrong"),
    ),
    "kv_double": (
        N_("A KV cache always grows in proportion to the context, sliding-window layers included"),
        N_("Window layers always cap part of the cache, even when the context is shorter than the window"),
        N_("Sliding-window layers keep the whole cache at a fixed size, however long the context"),
    ),
    "kv_next_step": (
        N_("Cached keys always stay as written, whatever the engine does with their positions"),
        N_("Each step updates the newest cached key, as if it were still being written"),
        N_("Each new position re-rotates every cached key, so the whole cache is rewritten at every step"),
    ),
    "kv_dynamic": (
        N_("Decoding with a cache matches a fresh full forward bit for bit, whatever the scaling"),
        N_("Dynamic NTK with a cache differs from a fresh forward only by float32 rounding"),
        N_("A cached decode under dynamic NTK always drifts from a fresh forward, even within the original context"),
    ),
    "stream_window": (
        N_("Once the first tokens leave the window they no longer matter, so a plain window loses nothing"),
        N_("Losing the first tokens costs a plain window only a modest rise in loss"),
        N_("A plain window's loss shoots up as soon as the first tokens leave it"),
    ),
    "stream_share": (
        N_("A model spreads its attention by content, with no special weight on the first token"),
        N_("Token 0 alone draws a large share of attention, the next few tokens almost none"),
        N_("Token 0 and the few tokens after it all draw large shares of attention"),
        N_("The tokens just after the first draw the attention while token 0 itself draws little"),
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
    """The misconception of each option of question ``key``, with ``None`` at the right one (``answer``), in the
    reader's language.

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
    # the registry holds the English (marked N_); the reader reads their own language
    return tuple(None if index == answer or sentence is None else _(sentence)
                 for index, sentence in enumerate(sentences))
