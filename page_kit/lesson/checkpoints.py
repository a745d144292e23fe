"""Each section's checkpoint: a handful of questions drawn from its lessons, answered on the checkpoint page.

``CHECKPOINTS`` maps a section's key (``registry.Section.key``, its folder) to its questions, in the order they are
asked. A question's key is stable (a learner's saved progress names it) and starts with ``cp_``; its wrong
options' misconceptions sit in ``misconceptions.MISCONCEPTIONS`` under the same key, in the wording the live
class's results use. ``lesson`` is the url_path of the lesson to revisit when the answer is wrong. A question
whose right option depends on a number names a ``check`` that computes the right option's index from
``posenc_core``; the tests run it, so the text and the code cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from page_kit.lesson import checkpoint_questions as checks

KEY_PREFIX = "cp_"


@dataclass(frozen=True)
class CheckpointQuestion:
    """key: stable id (``cp_<section>_<word>``); question: one or two sentences (plain markdown, no heading);
    options: two to four short answers; answer: the right option's index; why: the explanation shown once
    answered; lesson: the url_path to revisit when wrong; check: computes ``answer`` from the core, or None when
    the question states no number."""

    key: str
    question: str
    options: tuple[str, ...]
    answer: int
    why: str
    lesson: str
    check: Callable[[], int] | None = None


CHECKPOINTS: dict[str, tuple[CheckpointQuestion, ...]] = {}
Q = CheckpointQuestion  # below, each section's questions; their checks are in checkpoint_questions/<section>.py

# --- why_position --------------------------------------------------------------------------------------------------
CHECKPOINTS["why_position"] = (
    Q("cp_why_position_pooled",
      "With no positional encoding, swap two words of a sentence, run one self-attention layer and mean-pool its "
      "outputs. How does the pooled summary compare with the original sentence's?",
      ("it changes a little", "it changes completely", "it is the same, up to float rounding"), 2,
      "Attention is *permutation equivariant*: reordering the words only reorders the output rows, each moving "
      "with its word. A sum, a mean or a max ignores the order of what it summarises, so both sentences give the "
      "same summary.", "order"),
    Q("cp_why_position_set",
      "Each point of a point cloud carries its own (x, y, z) coordinates. Does a transformer over the points need a "
      "positional encoding for the order in which they are listed?",
      ("no: the points form a set, and each one's place is already in its content",
       "yes: without one it cannot tell the points apart"), 0,
      "Some inputs *are* sets. A point's coordinates are part of its content, so any order of listing the points "
      "should give the same result: there, attention without a positional encoding is exactly right.", "order"),
    Q("cp_why_position_integer",
      "Add the raw position p to every channel of a word embedding whose entries have size about 1. At position "
      "100, roughly how many times longer than the word's vector is the position code?",
      ("about as long: both grow with the width", "about 10 times (√100)", "about 100 times",
       "it depends on the width d"), 2,
      "The code p·1 has length p√d and the word about √d, so the width cancels and the ratio is p itself. At "
      "position 100 the position drowns the word: the first layer mostly sees 'how far along', barely 'which word'.",
      "naive", checks.why_position.integer_code_ratio),
    Q("cp_why_position_bits",
      "Write each position in binary, bit 0 being the lowest. How often does bit 3 flip as the position counts up?",
      ("every 3 positions", "every 4 positions", "every 16 positions", "every 8 positions"), 3,
      "Bit k flips every 2^k positions and repeats every 2^(k+1): bit 3 is 0 for positions 0 to 7 and 1 for 8 to "
      "15. Each column alternates half as fast as the one before, the rhythm the sinusoidal encoding smooths into "
      "waves.", "binary", checks.why_position.bit_3_flips),
)


# --- absolute ------------------------------------------------------------------------------------------------------
CHECKPOINTS["absolute"] = (
    Q("cp_absolute_slowest",
      "The original Transformer's sinusoidal table with d = 512 and base 10,000: about how many positions long is "
      "the wavelength of its slowest pair?",
      ("about 512", "about 10,000", "about 60,000", "about 6.3"), 2,
      "Wavelengths grow geometrically from 2π for the first pair to 2π·base^((d−2)/d) for the last, almost 2π × "
      "10,000. The base, not the width, sets where the range ends; the width only fills it more densely.",
      "sinusoidal", checks.absolute.slowest_sinusoidal_wavelength),
    Q("cp_absolute_offset",
      "Take two rows of the sinusoidal table, PE(i) and PE(j). What does their dot product depend on?",
      ("the absolute positions i and j", "only the offset i − j", "only the larger of i and j"), 1,
      "PE(i)·PE(j) is a sum of cos((i − j)ω) over the pairs, so every diagonal of the dot-product grid has one "
      "colour. A fixed matrix also moves any row by k positions: the paper's argument that offsets are easy to "
      "attend to.", "sinusoidal"),
    Q("cp_absolute_rows",
      "A BERT-style model has a learned table of 512 position rows. What happens to an input of 600 tokens?",
      ("rows wrap around: position 512 reuses row 0",
       "the table extends its learned pattern to positions 512 to 599",
       "positions 512 to 599 have no row, so the model refuses or truncates the input"), 2,
      "The rows past the table were never created, and nothing in it says what row 512 should be. That is why "
      "BERT-style models stop at 512 tokens; a formula such as the sinusoidal table can at least produce a row for "
      "any position.", "learned", checks.absolute.rows_missing),
    Q("cp_absolute_width",
      "Token embeddings with entries of standard deviation 1/√d, *not* multiplied by √d, plus a sinusoidal row. "
      "Double the width d: what happens to ||position row|| / ||token embedding||?",
      ("it stays the same", "it shrinks by √2", "it grows by √2"), 2,
      "A sinusoidal row has length √(d/2) at every position, while a token row with entries of size 1/√d has "
      "length about 1 whatever the width. The position's share grows like √d; the paper's × √d keeps the ratio "
      "fixed.", "token_position", checks.absolute.unscaled_width_doubling),
)


# --- rope ----------------------------------------------------------------------------------------------------------
CHECKPOINTS["rope"] = (
    Q("cp_rope_fastest",
      "Head dimension 128, base 10,000. Which rotary pair completes a full turn in the fewest positions?",
      ("the last pair, pair 63", "all pairs turn at the same speed", "pair 0, about every 6.3 positions"), 2,
      "θ_i = base^(−2i/d), so pair 0 turns one radian per position, once every 2π positions, and each later pair "
      "is slower by the same factor. The slow, late pairs are the ones long-context methods rescale.", "rope",
      checks.rope.fastest_rope_pair),
    Q("cp_rope_decay",
      "RoFormer proves a bound on |q·k| that falls as the distance m − n grows. Which scores actually fade with "
      "distance?",
      ("a query with an identical key; independent random q and k stay about flat",
       "every query-key score, whatever q and k are",
       "none: a rotation never changes a score"), 0,
      "The bound limits the score, loosely. An identical query and key start aligned and drift out of phase, so "
      "their score fades; independent random vectors already point in random directions, and turning a random "
      "direction gives another random direction.", "rope_relative"),
    Q("cp_rope_layouts",
      "You convert a checkpoint from Meta's interleaved RoPE layout to transformers' half-split layout. What must "
      "change in its weights?",
      ("the rows of W_q and W_k inside every head are permuted",
       "nothing: both layouts turn pair i by the same angle",
       "W_q, W_k, W_v and W_o all get permuted"), 0,
      "The layout is baked into the trained weights: the half layout pairs dimension i with i + d/2, the "
      "interleaved one 2i with 2i + 1. Conversion permutes the rows of W_q and W_k in every head; W_v and W_o are "
      "untouched, since values are never rotated.", "rope_variants"),
    Q("cp_rope_values",
      "Inside a RoPE model's attention layer, which vectors are rotated?",
      ("q, k and v", "the token embedding, once before the first layer", "only q", "only q and k, in every layer"),
      3,
      "RoPE is a fixed step after the query and key projections and before their dot product, repeated in every "
      "layer with no parameters. The values carry no position, unlike the original Transformer's added vector, "
      "which flows into everything.", "rope_model"),
)


# --- attention_bias ------------------------------------------------------------------------------------------------
CHECKPOINTS["attention_bias"] = (
    Q("cp_attention_bias_slope",
      "A model with 16 ALiBi heads uses the slopes of the authors' code. What is head 1's slope?",
      ("1/2, then 1/4, 1/8, … down to 1/2^16", "about 0.707 (2^(−1/2)), halving every second head",
       "1/256, the gentlest"), 1,
      "The first slope is 2^(−8/n) for n heads and the last is always 2^(−8) = 1/256. The rule 1/2, 1/4, … holds "
      "only for 8 heads; with 16 the sequence starts gentler and steps down more finely.", "alibi",
      checks.attention_bias.alibi_first_slope),
    Q("cp_attention_bias_far",
      "T5's default buckets (32 buckets, max_distance 128, bidirectional). Two keys sit 200 and 2,000 tokens before "
      "the query: how do their biases compare?",
      ("exactly the same: they share the last bucket", "a little different: log-spaced buckets",
       "the farther key's is about ten times lower"), 0,
      "Everything past max_distance lands in one last bucket, so T5 gives a token 200 and a token 2,000 positions "
      "away the same bias: only their content differs. The table stays small and runs on longer inputs, at the "
      "price of no fine position far away.", "t5", checks.attention_bias.t5_far_buckets),
    Q("cp_attention_bias_nope",
      "A causal decoder with no positional encoding at all. Can its outputs still depend on position?",
      ("yes: the causal mask makes each output a mean over a growing prefix",
       "no: without an encoding attention is blind to order",
       "only where the tokens differ in content"), 0,
      "With equal scores, position i gives each of its i + 1 keys the weight 1/(i + 1): the first token's share is "
      "an exact position counter, even when every token after the first is the same. The signal is real but blurry, "
      "and fades with distance.", "nope"),
    Q("cp_attention_bias_shaw",
      "Why do Shaw et al.'s relative vectors sit awkwardly with a KV cache?",
      ("the stored keys must be rewritten every time a token is added",
       "it does not: keys are cached with their position already in them, as with RoPE",
       "each cached key's relative term depends on its distance to the new query, so it is recomputed at every "
       "step"), 2,
      "The cache can only hold plain k_j: the table row added to a key depends on who reads it. The stored keys do "
      "not change, but each decoding step adds a different row for every cached token (and again on the value "
      "side), outside the usual fused kernels.", "shaw"),
)


# --- long_context --------------------------------------------------------------------------------------------------
CHECKPOINTS["long_context"] = (
    Q("cp_long_context_unseen",
      "A RoPE model trained on L tokens is run, unscaled, on 4L. Which rotary pairs meet angles they never saw in "
      "training?",
      ("the fastest pairs",
       "every pair",
       "none",
       "the slowest pairs, which never completed a turn within L"), 3,
      "Fast pairs went round many times within L and have seen every angle. A pair whose angle stayed below 2π "
      "across L only saw part of its circle; at 4L its angle grows four times, into values the model never met. "
      "Those are the pairs extension methods slow down.", "extension"),
    Q("cp_long_context_dynamic",
      "In transformers, a dynamic-NTK model (L = 4,096, factor 4) runs a 12,288-token call, then a 6,144-token "
      "call. Which frequencies does the second call use?",
      ("those cached for 12,288 tokens by the earlier, longer call", "those computed for its own 6,144 tokens",
       "the original, unscaled ones"), 0,
      "transformers' dynamic NTK keeps state: a call longer than any before recomputes the base and caches it, and "
      "a later, shorter call keeps those frequencies until one is shorter than L. The same prompt can be encoded "
      "differently depending on what ran before it.", "extension", checks.long_context.dynamic_second_call),
    Q("cp_long_context_fastest",
      "Which of these context-extension methods slows down the fastest rotary pair (pair 0), the one that tells "
      "neighbouring tokens apart?",
      ("NTK-aware", "YaRN", "Llama 3", "position interpolation"), 3,
      "Position interpolation divides every pair by s, so even the fastest is slowed and local order blurs. "
      "NTK-aware, YaRN and Llama 3 keep the fast pairs at θ′/θ = 1 and concentrate the slowing on pairs that never "
      "completed a turn in training.", "extension_compare", checks.long_context.slows_fastest_pair),
    Q("cp_long_context_trained",
      "Llama 3.1 8B's config declares max_position_embeddings 131,072 and a llama3 rope_scaling with factor 8 and "
      "original_max_position_embeddings 8,192. What context L was its rotation trained for?",
      ("131,072", "8,192", "1,048,576 (131,072 × 8)"), 1,
      "For llama3, YaRN and LongRoPE, transformers builds the rule around original_max_position_embeddings and the "
      "factor, so L is 8,192. max_position_embeddings declares the length the model may be run at, not the length "
      "it was trained on.", "model_configs", checks.long_context.llama31_trained_context),
)


# --- todays_models -------------------------------------------------------------------------------------------------
CHECKPOINTS["todays_models"] = (
    Q("cp_todays_models_slowest",
      "Gemma 3 27B rotates its sliding-window layers with base 10,000 and its full-attention layers with base "
      "1,000,000 and a linear factor of 8. Which kind's slowest rotating pair has the longer wavelength?",
      ("the sliding-window layers'", "the full layers'", "neither: they are equal"), 1,
      "A local layer only compares tokens inside its window, so fast pairs are what it needs. A full layer needs "
      "slow pairs that do not wrap around over the long context, so that a far token is not mistaken for a near one.",
      "local_global", checks.todays_models.gemma3_slowest_kind),
    Q("cp_todays_models_sink",
      "GPT-OSS adds a learned sink logit to every row of the softmax and drops its column afterwards. What do a "
      "row's probabilities on the real keys add up to?",
      ("exactly 1: softmax always hands out everything", "more than 1", "less than 1: the sink's share goes nowhere"),
      2,
      "The sink joins the softmax as one more column, so the real keys share what it leaves, and its column is "
      "thrown away before the values are mixed. A head with nothing relevant in view can attend to nothing, which "
      "matters most in sliding windows and streaming caches.", "attention_sinks"),
    Q("cp_todays_models_fraction",
      "Qwen3.5 (partial rotary) and Gemma 4's full layers (proportional RoPE) both set partial_rotary_factor to "
      "0.25. How do the frequencies they rotate with compare?",
      ("partial rotary spans RoPE's whole range with fewer pairs; proportional keeps only RoPE's fastest pairs",
       "they are the same: the same fraction gives the same frequencies",
       "proportional keeps RoPE's slowest pairs, partial rotary its fastest"), 0,
      "Partial rotary puts the rotated size in θ's exponent, so its block runs from fast to RoPE's slowest speed. "
      "p-RoPE and proportional divide by the whole head_dim and zero the rest, keeping RoPE's fastest frequencies; "
      "only `rope_type` tells the two readings apart.", "fewer_frequencies"),
    Q("cp_todays_models_hybrid",
      "Hybrid models fill most layers with convolutions or recurrences that read the sequence in order. What do "
      "their attention layers do about positions?",
      ("every hybrid drops positions from its attention",
       "none drops them: attention always needs RoPE",
       "some drop them (Kimi Linear, Nemotron-H), some keep RoPE (Qwen3-Next, Falcon-H1, LFM2)"), 2,
      "Convolutions and recurrences know order by construction, so attention may go without, and some hybrids do. "
      "Others keep RoPE: Qwen3-Next rotates a quarter of each head, Falcon-H1 and LFM2 the whole head, as "
      "transformers' modeling code shows.", "hybrids"),
)


# --- encoders ------------------------------------------------------------------------------------------------------
CHECKPOINTS["encoders"] = (
    Q("cp_encoders_terms",
      "DeBERTa scores content → content, content → position and position → content. Which term reads the key's "
      "content and the distance, but not the query's content?",
      ("content → content", "content → position", "position → content"), 2,
      "Position → content scores the key's content against the relative vector of the bucket δ(i, j), so it "
      "depends only on the key and the bucket. Content → position depends only on the query and the bucket: two "
      "keys in one bucket get the same value from it.", "deberta"),
    Q("cp_encoders_far",
      "DeBERTa v3 (256 buckets, max_relative_positions 512) reads keys 600 and 1,000 tokens before the query. "
      "Which rows of its relative table do they use?",
      ("the same row: the table's last, shared by every far key", "two different log-bucket rows",
       "rows 600 and 1,000, taken modulo 512"), 0,
      "The bucket function keeps growing, but the gather clamps its index to the table: past the table's reach "
      "every key reads the last row, one row for 'far', like T5's last bucket. Distances up to 128 keep their own "
      "row.", "deberta", checks.encoders.deberta_far_rows),
    Q("cp_encoders_window",
      "ModernBERT's config says `local_attention: 128`. Which keys does a token in the middle of a long input see "
      "in a local layer?",
      ("the 128 tokens before it, as in a causal window", "64 tokens before it, 64 after it, and itself",
       "every token of the input", "128 tokens on each side, and itself"), 1,
      "An encoder has no causal mask, so the window reaches both ways: 128 counts the window without the token, "
      "64 on each side. Every third layer is global, sees all keys and rotates with a much larger base.",
      "modernbert", checks.encoders.modernbert_local_keys),
    Q("cp_encoders_xl",
      "Shaw's relative term stops changing past the clipping distance k. What do Transformer-XL's position terms "
      "do for keys further away?",
      ("they keep changing: R is a sinusoid of the exact distance", "they stop changing too, past a clip",
       "they fall linearly with the distance, like ALiBi"), 0,
      "Transformer-XL projects a fixed sinusoid R_(i−j) of the exact distance through a learned W_R, so every "
      "distance has its own vector and the model can run on any length, with memory from earlier segments.",
      "xl_relative"),
)


# --- multimodal ----------------------------------------------------------------------------------------------------
CHECKPOINTS["multimodal"] = (
    Q("cp_multimodal_advance",
      "In Qwen2-VL, an image of 8 rows × 12 columns of tokens (96 tokens) starts at id s. At which id does the "
      "text after it start?",
      ("s + 96", "s + 12", "s + 8", "s + 20"), 1,
      "All the image's tokens share the time id s, row r gets s + r and column c gets s + c, and the next text "
      "continues at s + max(rows, columns). The ids stay small, so a long prompt with images stays inside the "
      "trained range.", "mm_position_ids", checks.multimodal.qwen2vl_image_advance),
    Q("cp_multimodal_width",
      "Qwen2-VL cuts each head's rotary pairs into contiguous blocks for time, height and width, fastest first. "
      "Which axis gets the slowest pairs?",
      ("time", "height", "width"), 2,
      "Time takes the fastest block, height the next and width only the slowest pairs, which barely turn across an "
      "image a few dozen tokens wide, so neighbouring columns look alike. Qwen3-VL's interleaved cycle gives every "
      "axis fast and slow pairs.", "mm_pair_axes", checks.multimodal.qwen2vl_slowest_axis),
    Q("cp_multimodal_fps",
      "The same 32 frames sampled at 2 fps and at 4 fps. Under which model does the last frame group get the same "
      "time id in both clips?",
      ("Qwen2.5-VL, whose time ids follow seconds", "Qwen2-VL, whose time ids count groups of frames", "both",
       "neither"), 1,
      "Qwen2-VL gives each group of 2 frames the next time id, whatever their spacing in seconds, so one id means "
      "a different time at each fps. Qwen2.5-VL's ids follow seconds, so the 4 fps clip, half as long, ends at a "
      "smaller id.", "mm_scores", checks.multimodal.same_last_time_id),
    Q("cp_multimodal_vision",
      "Vision towers such as Qwen's use axial 2D RoPE. Which of a head's rotary pairs turn with a patch's column?",
      ("half of them, at the same frequencies as the row's half",
       "every pair, with the patch's number in reading order",
       "only the slowest pairs"), 0,
      "Axial 2D RoPE turns half of each head's pairs by the patch's row and half by its column, each half an "
      "ordinary RoPE. A reading-order number would make the end of one row a neighbour of the start of the next.",
      "vision_rope"),
)


# --- diffusion -----------------------------------------------------------------------------------------------------
CHECKPOINTS["diffusion"] = (
    Q("cp_diffusion_text",
      "In FLUX.1, every image token gets the ids (0, row, column). Which ids does every text token get?",
      ("(0, p, p), counting up as in a language model", "(0, 0, 0): all text sits at one place",
       "(p, 0, 0): the first axis numbers the text"), 1,
      "FLUX.1 gives all text the ids (0, 0, 0), the top-left image token's place, so to the rotary the text sits "
      "at one spot; its order comes only from the T5 encoder that made it. FLUX.2 adds a fourth id that numbers "
      "the text.", "dit_image_ids", checks.diffusion.flux_text_ids),
    Q("cp_diffusion_corner",
      "Qwen-Image centres its ids on the picture. Make the picture twice as wide: what happens to the column id of "
      "its top-left token?",
      ("it stays the same, as in FLUX", "it moves further into the negative ids", "it grows into larger ids"), 1,
      "Qwen-Image's ids run from minus half the size to half the size, so the centre keeps id 0 and a wider image "
      "pushes its left edge further into the negatives. FLUX counts from the corner, which keeps (0, 0) at every "
      "size.", "dit_image_ids", checks.diffusion.qwen_image_corner),
    Q("cp_diffusion_sd3",
      "Stable Diffusion 3 adds a fixed 2D sin-cos table made once for a large square grid. Which part of it does an "
      "image of h × w patches receive?",
      ("the whole table, resized to h × w", "its top-left h × w corner", "the centred h × w window"), 2,
      "diffusers' `cropped_pos_embed` takes the h × w window in the table's middle: a small image sits in the "
      "centre, and a bigger one reaches cells smaller training images never read. An image larger than the table "
      "has no window and is refused.", "dit_sd3_grid"),
    Q("cp_diffusion_ntk",
      "A generator meets an image twice as wide as in training. Which remedy keeps the fastest width pair turning "
      "at its trained speed?",
      ("interpolating the ids", "linear_factor", "ntk_factor", "none of them"), 2,
      "ntk_factor multiplies θ: the fastest pair keeps its speed and the slowest is slowed. Interpolated ids and "
      "linear_factor slow every pair alike: each angle stays familiar, but neighbouring tokens come closer than any "
      "two did in training.", "dit_resolution", checks.diffusion.keeps_fastest_width_pair),
)


# --- images --------------------------------------------------------------------------------------------------------
CHECKPOINTS["images"] = (
    Q("cp_images_flat",
      "Number a ViT's patches 0, 1, 2, … row by row and give them a 1D code. Which two patches get neighbouring "
      "numbers although they sit on opposite edges of the image?",
      ("a patch and the one directly below it",
       "the four corner patches",
       "the last patch of a row and the first patch of the next"), 2,
      "In reading order the end of one row and the start of the next are one number apart, while the patch "
      "directly below is a whole row of numbers away. MAE's 2D code, half for the column and half for the row, "
      "turns 'near in the image' into 'similar vectors'.", "patches"),
    Q("cp_images_cross",
      "Under MAE's 2D sin-cos code, why does each patch's similarity map look like a bright cross centred on it?",
      ("patches in its row share the row half of its code, patches in its column the column half",
       "training drew the cross into the table", "their reading-order numbers are close to its own"), 0,
      "Half of each vector encodes the column and half the row, so a patch in the same row matches one whole half "
      "before the other is counted. A diagonal neighbour differs in both halves, and the cross keeps its shape "
      "wherever the patch sits.", "patches"),
    Q("cp_images_resize",
      "A ViT trained at 224 × 224 px with 16-px patches and one [CLS] row is fine-tuned at 384 × 384 px. How many "
      "rows does its position table have after timm's resize?",
      ("197: the table stays as trained", "577: a 24 × 24 grid, plus the [CLS] row set aside unchanged",
       "576: the [CLS] row is dropped"), 1,
      "The 14 × 14 grid is resized bicubically to 24 × 24, each channel like a small photo, and the [CLS] row is "
      "put back unchanged. Distances are kept in units of the image, not of patches, so fine-tuning still has to "
      "adapt.", "resize", checks.images.resized_vit_rows),
    Q("cp_images_sigma",
      "Gaussian Fourier features: raise σ far beyond what the training samples can pin down. What happens to the "
      "fit?",
      ("both the training and the held-out fits improve",
       "the training fit stays perfect while the held-out samples fill with wiggles or speckle",
       "the network can no longer fit its training samples"), 1,
      "σ scales every random frequency, so it sets how fast the fastest features swing. Frequencies far above what "
      "the samples pin down let the network wiggle freely between them: the training points are still matched, the "
      "unseen ones are not.", "fourier"),
)


# --- lab -----------------------------------------------------------------------------------------------------------
CHECKPOINTS["lab"] = (
    Q("cp_lab_learned",
      "In the lab, the model with a learned absolute table is trained at length T. What is its accuracy at 2T?",
      ("about the same as at T", "about chance", "there is none: positions from T on have no row, so it cannot run"),
      2,
      "A sequence longer than T needs table rows that were never created, so the plot has no point past T rather "
      "than an invented one. The sinusoidal model can at least run there, though it too meets positions it never "
      "saw.", "lab", checks.lab.learned_at_2t),
    Q("cp_lab_longest",
      "In the lab's shipped run, trained at T and tested up to 8T, which of these keeps the highest accuracy at 8T?",
      ("RoPE", "T5 buckets", "sinusoidal (added)", "ALiBi"), 3,
      "ALiBi's penalty grows with distance, so far keys fade out on their own and a longer sequence does not dilute "
      "its attention: its curve stays flat. RoPE and T5 hold at 2T and fade by 8T; the sinusoidal model, which "
      "learned places, falls at once.", "lab", checks.lab.best_at_8t),
    Q("cp_lab_pi",
      "Switched on at test time only, with no fine-tuning, position interpolation wrecks the lab's RoPE model at 2T. "
      "Why?",
      ("it brings parameters the model never trained",
       "it keeps the fast pairs, so nothing changes for a 2-step offset",
       "it divides every frequency, so the 2-step offset the model learned shrinks to a fraction of a step"), 2,
      "Position interpolation divides every frequency by the stretch, the fast pairs that carry short offsets "
      "included; it was designed to be followed by fine-tuning. NTK-aware scaling and YaRN keep the fast pairs "
      "almost unchanged and stretch only the slow ones.", "lab", checks.lab.interpolation_at_2t),
)


# --- real_models ---------------------------------------------------------------------------------------------------
CHECKPOINTS["real_models"] = (
    Q("cp_real_models_order",
      "What is all-MiniLM-L6-v2's only source of word order?",
      ("its 512 learned position rows, added to the word vectors",
       "its attention, which sees the order of the words",
       "its mean pooling over the tokens"), 0,
      "Remove the rows and shuffling the words changes the sentence embedding only by float rounding: each token's "
      "vector just moves with its word. Its previous-token heads were built from the rows by training, and switch "
      "off without them.", "real_encoder"),
    Q("cp_real_models_energy",
      "SmolLM2-135M reading real text: where among its 32 rotary pairs does most of its query and key energy sit?",
      ("spread evenly over the pairs", "in the fastest pairs, which tell neighbours apart",
       "in the slowest pairs, whose wavelength is longer than its whole 8,192-token context"), 2,
      "Measured on the shipped text, the slowest pairs, which turn less than once across the context, hold most of "
      "the query and key energy, so within the context they change little with position. The RoPE pages treat "
      "every pair alike; a trained model does not.", "real_frequencies", checks.real_models.smollm2_energy),
    Q("cp_real_models_sink",
      "SmolLM2's last layers read a stretch of text that starts with an ordinary word. About how much of their "
      "attention goes to that first token?",
      ("an even share, like any other token", "about half of all their attention",
       "almost none: it is the farthest token"), 1,
      "Softmax weights must sum to one, so a head with nothing to add parks its weight somewhere; the first token, "
      "seen by every query, is where training put it. The first layers give it almost nothing, the last ones about "
      "half.", "real_frequencies", checks.real_models.smollm2_first_token),
    Q("cp_real_models_inside",
      "SmolLM2 reads 16,384 tokens with each extension method at s = 2, with no fine-tuning. Which method raises "
      "its loss most *within* the first 8,192 tokens?",
      ("NTK-aware", "YaRN", "dynamic NTK", "position interpolation"), 3,
      "Position interpolation slows every pair, the fast ones included, so even text inside the trained context "
      "reads differently and the loss rises there. NTK-aware, dynamic NTK and YaRN keep the fast pairs and barely "
      "change it.", "real_long_context", checks.real_models.costliest_inside),
)


# --- inference -----------------------------------------------------------------------------------------------------
CHECKPOINTS["inference"] = (
    Q("cp_inference_stored",
      "With RoPE, what does the KV cache hold for a past token?",
      ("its key unturned; each step turns it by its distance to the new query",
       "its key and its value, both turned by its position",
       "its key already turned by its own position, and its value never turned"), 2,
      "Each key is turned once, by its position times θ, before it is stored; the new query is turned by its own "
      "position, so q·k sees only the difference. Nothing in the cache is turned again while θ stays fixed, and "
      "values carry no position.", "kv_cache"),
    Q("cp_inference_static",
      "Why do serving engines prefer a static rule such as YaRN to dynamic NTK?",
      ("YaRN needs no KV cache at all",
       "dynamic NTK changes θ as the sequence grows, so keys already cached were turned with other frequencies",
       "dynamic NTK rotates the values too"), 1,
      "YaRN's frequencies and attention factor are fixed by the config, so a key written at any step is the key a "
      "full recompute writes. Under dynamic NTK each step past the cached length gives new frequencies to the new "
      "key and query only; cached keys keep their old turns.", "kv_cache"),
    Q("cp_inference_shift",
      "llama.cpp's context shift keeps n_keep tokens, drops the next n_discard and turns every later cached key back "
      "by n_discard. Whose distance to the newest token changes?",
      ("only the kept first tokens': they come n_discard positions nearer", "every cached token's",
       "nobody's: the shift is invisible to the model"), 0,
      "The shifted keys all move back by the same amount, so they keep their offsets and score as in a context with "
      "room to spare, up to rounding. The kept first tokens stay put, so everything after them comes n_discard "
      "positions nearer.", "context_shift"),
    Q("cp_inference_text",
      "A streaming cache keeps 4 sinks but rotates every key at its position in the text instead of its place in "
      "the cache. In SmolLM2's shipped run, what happens to the loss past token 8,192?",
      ("nothing: RoPE only sees distances",
       "it rises by more than a nat: the sinks sit further back than any distance the model was trained on",
       "it falls: text positions are the true ones"), 1,
      "StreamingLLM's code rotates keys at their place in the cache, so no distance passes the cache size. With "
      "text positions the sinks fall thousands of positions behind the window, and past 8,192 that is outside "
      "anything SmolLM2 was trained on.", "streaming", checks.inference.text_positions_past_context),
)


def questions(section: str) -> tuple[CheckpointQuestion, ...]:
    """The checkpoint of section ``section`` (its key); empty for a section without one."""
    return CHECKPOINTS.get(section, ())


def all_keys() -> list[str]:
    """Every checkpoint question's key, section by section."""
    return [q.key for qs in CHECKPOINTS.values() for q in qs]
