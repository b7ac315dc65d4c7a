"""The longest sentences of the checks of lessons 08 (the language model) and 09 (tiling and the
KV cache), marked for translation here so that those checks stay under the module size limit;
each check fills the named fields after translation: ``_(NAME).format(...)``."""

from __future__ import annotations

from autograder.i18n import N_

# ---- lesson 08: TransformerBlock, TinyTransformer ------------------------------------------------
DROPOUT_NOT_RESCALED = N_(
    "{call}: {zero:.0%} of {what} are 0 and the others are unchanged: dropout with p={p} must "
    "also scale what it keeps by 1/(1 - {p}), as nn.Dropout does, so that training mode gives "
    "the eval output on average."
)
LM_DEPENDS_ON_LENGTH = N_(
    "{model}: the logits at positions 0-3 of 7 tokens differ from those of the same first 4 "
    "tokens alone (by up to {diff}): the logits at a position must not depend on how many "
    "tokens follow it. Are the positions counted from the start (0, 1, 2, ...)?"
)
EVAL_NOT_DETERMINISTIC = N_(
    "{call} after .eval() gave different outputs on two calls with the same input."
)
LM_DOES_NOT_COUNT = N_(
    "{model} does not learn to count (each token is the previous one + 1): the loss went {loss} in "
    "40 AdamW steps. Check that every layer is registered and used, and that the token "
    "embeddings enter as they are (token embedding + positions, nothing divided or scaled down)."
)
LM_FINAL_NORM_UNUSED = N_(
    "{call}: no gradient reaches {names}: the final LayerNorm is defined but the logits are not "
    "computed through it."
)
LM_FINAL_NORM_NOT_LAST = N_(
    "{call}: multiplying the last block's output by {scale} moved the logits by up to {moved}: "
    "nothing normalises the residual stream between the last block and the output layer."
)
LM_HEAD_NOT_LINEAR = N_(
    "{call}: the logits for the last block's output x and for -x do not average to those for 0 "
    "(off by up to {off}), as they do when the output layer reads the final LayerNorm's output "
    "as it is: something nonlinear (an activation?) acts between the final norm and the output "
    "layer; the logits are head(norm(x))."
)
LM_ONE_BLOCK_OF_PARAMETERS = N_(
    "{model} has {count} trainable parameters; its {layers} blocks alone need at least {least}, "
    "and it has the parameters of one block only."
)
LM_POSITIONS_MISSING = N_(
    "{call} with the same token at every position gives the same logits at every position: the "
    "model can't tell positions apart."
)
LM_POST_LN_BLOCKS = N_(
    "{call}: with every block's attn.w_o and ff.linear2 set to zero, changing the blocks' norm1 "
    "and norm2 changed the logits: the blocks normalise the residual stream (Post-LN), where the "
    "model's blocks must be Pre-LN (norm_first=True)."
)
LM_SEES_FUTURE = N_(
    "Changing the tokens at positions 4-6 changed the logits at positions 0-3 (by up to {diff}): "
    "{model} must not see future tokens."
)
LM_TOO_FEW_BLOCKS = N_(
    "{model} has {blocks} TransformerBlock(s) where it was built with num_layers={layers}: its "
    "{count} trainable parameters are fewer than the {least} that {layers} blocks need."
)
LM_TOO_FEW_PARAMETERS = N_(
    "{model} has {count} trainable parameters; its {layers} blocks alone need at least {least}."
)

# ---- lesson 09: tiled_attention, KVCache ---------------------------------------------------------
CACHED_DECODING_DIFFERS = N_(
    "Greedy decoding with your KVCache gave tokens {cached}, without a cache {plain} (a one-layer "
    "model, one append per new token)."
)
CACHES_SHARE_STORE = N_(
    "{call}, the first append to a new cache, returned {count} positions after another cache was "
    "given 3: the caches share their store."
)
CACHE_BREAKS_AUTOGRAD = N_(
    "{call}: no gradient reaches the appended k and v from the returned (k_all, v_all): the cache "
    "must store and return them as given, without .detach() or torch.no_grad()."
)
PEAK_AS_SCORE_ROWS = N_(
    "{call} raised the process's peak memory by {grew:.0f} MiB, as much as the scores of one query "
    "against all {keys} keys ({rows:.0f} MiB); blocks of {block} keys need a few tiles of 2 MiB: "
    "loop over key blocks, not over queries."
)
TILE_LARGER_THAN_BLOCK = N_(
    "{call}: your code made a tensor of shape {shape}, at least twice a tile of all the queries "
    "against block_size={block} keys: the key blocks must be block_size keys long."
)
TENSOR_AS_FULL_MATRIX = N_(
    "{call} created a tensor of shape {shape}: {count} elements, as many as the full ({n}, {n}) "
    "score matrix that tiling exists to avoid."
)
TILED_HALF_ERROR = N_(
    "{call}: the largest error is {error}, {times:.1f} times the {rounding} of rounding the exact "
    "output to {dtype}."
)
LM_BLOCK_UNUSED = N_(
    "{call}: no gradient reaches any weight of {blocks}: that block's output never reaches the "
    "logits; each block must read the previous block's output."
)
TILED_MAX_OVER_QUERIES = N_(
    "{call}: query {i} scores every key near {sign}{score:.0f}, and its output is {shown}, yet "
    "alone it is right: its running max is shared with the other query's, so every exp(s - m) "
    "of it is 0 in float32; keep one max per query, s.amax(dim=-1, keepdim=True)."
)
TILED_MAX_BEFORE_SCALING = N_(
    "{call}: query {i} scores every key near {sign}{score:.0f}, and its output is {shown}, yet "
    "at d_k = 1, where the scale is 1, it is right: the running max must be taken of the scaled "
    "scores, the ones you exponentiate."
)
LM_PATH_AROUND_BLOCKS = N_(
    "{call}: with the last block's output set to 0 the logits still differ from token to token: "
    "something reaches them around the blocks (the embeddings added again after the last "
    "block?); the logits read only the last block's output, head(norm(x))."
)
WINDOW_ZERO = N_(
    "The mask is True where 0 <= i - j < window: a window of 0 is a valid input, a ({n}, {n}) mask "
    "with no key at all (every entry False), not an error."
)
