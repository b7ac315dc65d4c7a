"""The catalogue of known mistakes: what learners really get wrong, with stable ids.

A check that recognises a mistake raises ``CheckFailure(message, mistake=id)``; the report shows
the entry's title and hint next to the check's own message. Ids are part of the grader's output
(``--json``) and of the notebooks' "Common mistakes" sections: never rename one, only add.

Each non-generic entry has a learner-style wrong submission in ``tests/submissions/wrong/`` that
must be diagnosed as exactly that id (``tests/test_grader_mutations.py``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mistake:
    id: str  # stable kebab-case id
    exercises: tuple[str, ...]  # where it is diagnosed; () for the engine's generic ids
    title: str  # what it looks like, one short sentence without a final period
    hint: str  # how to fix it, one or two sentences


# The engine's own ids (judge and sandbox), not tied to one exercise.
GENERIC = (
    Mistake(
        "not-defined",
        (),
        "The exercise is not defined",
        "Define a top-level function or class with exactly the name the exercise asks for.",
    ),
    Mistake(
        "uses-builtin",
        (),
        "Calls the built-in it is asked to build",
        "The point of the exercise is to write it yourself; use plain tensor operations.",
    ),
    Mistake(
        "uses-reference",
        (),
        "Calls the course's reference solution",
        "Write it yourself: course_lib's version of this exercise is off limits while graded.",
    ),
    Mistake(
        "timeout",
        (),
        "Takes too long",
        "Look for a loop that never ends or one that runs far more often than needed.",
    ),
    Mistake(
        "out-of-memory",
        (),
        "Uses far too much memory",
        "Something allocates a tensor much larger than the inputs; check your shapes.",
    ),
    Mistake(
        "crashed",
        (),
        "The Python process running your code crashed",
        "Often a recursion without end or a native crash; run the cell again to see the error.",
    ),
    Mistake(
        "tampering",
        (),
        "Tries to change the grader or its results",
        "Your code may only compute the answer; it must not touch the grader.",
    ),
)

_ATTN = ("scaled_dot_product_attention", "SelfAttention", "MultiHeadAttention")

CATALOGUE = (
    # ---- 01 projections -------------------------------------------------------------------
    Mistake(
        "project-transposed-weights",
        ("project_qkv", "QKVProjection"),
        "Weights used transposed",
        "With w of shape (d_model, d_k) the projection is x @ w. nn.Linear stores its weight as "
        "(out, in), so inside a module it is x @ linear.weight.T, or simply linear(x).",
    ),
    Mistake(
        "qkv-order-swapped",
        ("project_qkv", "QKVProjection", "SelfAttention"),
        "q, k and v come back in the wrong order or from the wrong weights",
        "Return exactly (x @ w_q, x @ w_k, x @ w_v), in that order.",
    ),
    Mistake(
        "projection-has-bias",
        ("QKVProjection", "SelfAttention", "MultiHeadAttention"),
        "Projection layers have a bias the contract does not ask for",
        "Create them as nn.Linear(d_in, d_out, bias=False) (MultiHeadAttention: bias=bias).",
    ),
    Mistake(
        "module-attribute-names",
        (
            "QKVProjection",
            "SelfAttention",
            "MultiHeadAttention",
            "LearnedPositionalEmbedding",
            "FeedForward",
            "TransformerBlock",
        ),
        "Layers are not stored under the attribute names of the contract",
        "Name the layers exactly as the exercise says (w_q, w_k, w_v, w_o, embedding, linear1, "
        "...): the grader loads known weights into them by name.",
    ),
    Mistake(
        "missing-super-init",
        (
            "QKVProjection",
            "SelfAttention",
            "MultiHeadAttention",
            "LearnedPositionalEmbedding",
            "FeedForward",
            "TransformerBlock",
            "TinyTransformer",
        ),
        "The module does not call super().__init__() first",
        "An nn.Module must call super().__init__() before it assigns any layer to self.",
    ),
    # ---- 02/03 scores and scaling ---------------------------------------------------------
    Mistake(
        "forgot-transpose-k",
        ("attention_scores", "scaled_attention_scores", "scaled_dot_product_attention"),
        "K is not transposed: q @ k instead of q @ k^T",
        "Scores pair every query with every key: q @ k.transpose(-2, -1), shape (..., Lq, Lk).",
    ),
    Mistake(
        "transpose-batch-dims",
        ("attention_scores", "scaled_attention_scores", "scaled_dot_product_attention"),
        "The transpose only works for 2-D inputs (k.T or transpose(0, 1))",
        "Swap the last two dimensions, whatever comes before them: k.transpose(-2, -1).",
    ),
    Mistake(
        "no-scaling",
        ("scaled_attention_scores", "tiled_attention") + _ATTN,
        "Scores are not divided by sqrt(d_k)",
        "Divide q @ k^T by sqrt(d_k), where d_k is the size of the last dimension of q.",
    ),
    Mistake(
        "scaled-by-dk",
        ("scaled_attention_scores", "tiled_attention") + _ATTN,
        "Scores divided by d_k instead of sqrt(d_k)",
        "The variance of q·k grows like d_k, so its standard deviation grows like sqrt(d_k): "
        "divide by d_k ** 0.5.",
    ),
    Mistake(
        "multiplied-by-sqrt-dk",
        ("scaled_attention_scores", "scaled_dot_product_attention"),
        "Scores multiplied by sqrt(d_k) instead of divided",
        "Scaling must shrink the scores: q @ k^T / sqrt(d_k) (or * d_k ** -0.5).",
    ),
    Mistake(
        "scale-uses-seq-len",
        ("scaled_attention_scores", "scaled_dot_product_attention"),
        "Scale computed from a sequence length instead of d_k",
        "d_k is the last dimension: q.shape[-1]. q.shape[1] is the sequence length of a batch.",
    ),
    Mistake(
        "scaled-by-d-model",
        ("SelfAttention", "MultiHeadAttention"),
        "Scaled by sqrt(d_model) instead of sqrt of the per-head dimension",
        "Each head's scores are q_h @ k_h^T / sqrt(d_head) with d_head = d_model // num_heads "
        "(SelfAttention: d_k).",
    ),
    Mistake(
        "variance-elementwise",
        ("dot_product_variance",),
        "Variance of the products q_i·k_i, not of their sum q·k",
        "Sum the products over the d_k dimension first: dots = (q * k).sum(-1), then dots.var().",
    ),
    Mistake(
        "variance-returns-std",
        ("dot_product_variance",),
        "Returns the standard deviation, not the variance",
        "The variance is the square of the standard deviation: use .var(), not .std().",
    ),
    Mistake(
        "generator-ignored",
        ("dot_product_variance",),
        "The generator argument is ignored",
        "Pass generator=generator to torch.randn, so that a seeded generator gives the same "
        "samples (and the same estimate) every time.",
    ),
    Mistake(
        "returns-tensor-not-number",
        ("dot_product_variance", "mha_num_parameters"),
        "Returns a tensor where a plain Python number is asked for",
        "Convert a one-element tensor with .item() (int(...) for a count).",
    ),
    Mistake(
        "entropy-log2",
        ("softmax_entropy",),
        "Entropy in bits (log2) instead of nats (natural log)",
        "Use torch.log: the course measures entropy in nats.",
    ),
    Mistake(
        "entropy-nan-at-zero",
        ("softmax_entropy",),
        "NaN where a probability is 0 (0 · log 0)",
        "By convention 0 · log 0 = 0: use torch.xlogy(p, p) or torch.where(p > 0, p * p.log(), 0).",
    ),
    Mistake(
        "entropy-sign",
        ("softmax_entropy",),
        "Entropy has the wrong sign",
        "H(p) = -sum p log p is never negative: don't forget the minus sign.",
    ),
    Mistake(
        "ignores-dim-argument",
        ("softmax", "softmax_entropy"),
        "The dim argument is ignored (always the last dimension)",
        "Reduce over the dim you are given, with keepdim=True where you divide.",
    ),
    # ---- 04 softmax and masks ------------------------------------------------------------------
    Mistake(
        "softmax-wrong-dim",
        ("softmax",) + _ATTN,
        "Softmax normalised over the wrong dimension",
        "Each query's weights over the keys must sum to 1: normalise over the last dim (keys), "
        "not over the queries.",
    ),
    Mistake(
        "softmax-unstable",
        ("softmax",),
        "Softmax without subtracting the max: exp overflows on large inputs",
        "exp(1000) is inf in float32. Subtract each row's max first: softmax(x) = softmax(x - m).",
    ),
    Mistake(
        "softmax-global-max",
        ("softmax",),
        "Subtracts the max of the whole tensor instead of each row's max",
        "Use x.amax(dim, keepdim=True): with one global max a row of very negative values "
        "underflows to 0 / 0.",
    ),
    Mistake(
        "sum-without-keepdim",
        ("softmax",),
        "Divides by a sum taken without keepdim=True",
        "x.sum(-1) has shape (..., L) and broadcasts along the wrong axis; use "
        "x.sum(dim, keepdim=True) so each row is divided by its own sum.",
    ),
    Mistake(
        "fully-masked-nan",
        ("softmax",) + _ATTN,
        "NaN for a query whose keys are all masked",
        "A row of -inf gives exp(-inf - (-inf)) = NaN. Detect rows with no allowed key and give "
        "them all-zero weights (e.g. torch.where on the row max being -inf).",
    ),
    Mistake(
        "causal-mask-inverted",
        ("causal_mask", "sliding_window_mask"),
        "Mask inverted: True marks the keys to block (the nn.MultiheadAttention convention)",
        "In this course True means 'may attend'. nn.MultiheadAttention's attn_mask uses the "
        "opposite polarity; ours is the one of F.scaled_dot_product_attention.",
    ),
    Mistake(
        "causal-off-by-one",
        ("causal_mask",),
        "Causal mask off by one: the diagonal is wrong",
        "Each token may attend to itself and to earlier tokens: key j ≤ query i, "
        "torch.tril(..., diagonal=0).",
    ),
    Mistake(
        "causal-upper-triangle",
        ("causal_mask",),
        "Upper triangle instead of lower: queries see the future",
        "Rows are queries, columns are keys: keep j ≤ i, the lower triangle (torch.tril).",
    ),
    Mistake(
        "mask-not-bool",
        ("causal_mask", "padding_mask", "sliding_window_mask"),
        "The mask is not a bool tensor",
        "Return a torch.bool tensor (comparisons like a <= b give one; or .bool()).",
    ),
    Mistake(
        "additive-float-mask",
        ("causal_mask", "sliding_window_mask"),
        "Returns an additive float mask (0 / -inf) instead of a bool mask",
        "That is nn.Transformer's generate_square_subsequent_mask convention; the course's masks "
        "are bool, True = may attend.",
    ),
    Mistake(
        "created-on-cpu",
        (
            "causal_mask",
            "padding_mask",
            "masked_scores",
            "scaled_dot_product_attention",
            "apply_rope",
            "TinyTransformer",
            "tiled_attention",
            "KVCache",
        ),
        "A tensor is created on the CPU instead of on the input's device",
        "Pass device=x.device (and dtype=x.dtype where it matters) to torch.arange, torch.ones, "
        "torch.full, ...: on a GPU your code would fail.",
    ),
    Mistake(
        "padding-mask-inverted",
        ("padding_mask",),
        "Padding mask inverted: True at the padding (key_padding_mask convention)",
        "In this course True marks the real tokens: positions < length. nn.MultiheadAttention's "
        "key_padding_mask is the opposite.",
    ),
    Mistake(
        "padding-off-by-one",
        ("padding_mask",),
        "Padding mask off by one",
        "A sequence of length n has real tokens at positions 0 .. n-1: position < length.",
    ),
    Mistake(
        "padding-mask-transposed",
        ("padding_mask",),
        "Padding mask has shape (max_len, B) instead of (B, max_len)",
        "Compare positions (1, max_len) with lengths (B, 1): "
        "arange(max_len)[None] < lengths[:, None].",
    ),
    Mistake(
        "fill-overflows-fp16",
        ("masked_scores",) + _ATTN,
        "Masked with a huge finite number (-1e9) that does not fit in float16",
        "float16 stops at 65504, so filling in -1e9 overflows (masked_fill raises); fill with "
        "float('-inf'), which every float dtype holds exactly.",
    ),
    Mistake(
        "finite-fill-value",
        ("masked_scores",) + _ATTN,
        "Masked with a finite value instead of -inf",
        "A finite fill still leaks weight (a fully masked row becomes uniform instead of zero); "
        "fill with float('-inf') and handle fully masked rows.",
    ),
    Mistake(
        "masked-to-zero",
        ("masked_scores", "scaled_dot_product_attention"),
        "Masked scores set to 0 (scores * mask) instead of -inf",
        "A score of 0 still gets weight exp(0) after softmax; masked scores must be -inf.",
    ),
    Mistake(
        "mask-polarity-inverted",
        ("masked_scores", "TransformerBlock") + _ATTN,
        "Mask used the wrong way round: True treated as 'blocked'",
        "True means 'may attend': fill -inf where the mask is False, e.g. "
        "scores.masked_fill(~mask, float('-inf')).",
    ),
    Mistake(
        "mask-after-softmax",
        ("scaled_dot_product_attention",),
        "Mask applied after the softmax: weights no longer sum to 1",
        "Mask the scores before the softmax, so the remaining weights are renormalised.",
    ),
    Mistake(
        "weights-before-masking",
        ("scaled_dot_product_attention",),
        "Returns the weights computed before masking",
        "Return the same weights you multiply v with, computed from the masked scores.",
    ),
    Mistake(
        "mask-ignored",
        ("TransformerBlock",) + _ATTN,
        "The mask argument is ignored",
        "Pass the mask through to where the scores are computed and apply it there.",
    ),
    Mistake(
        "additive-mask-as-bool",
        ("scaled_dot_product_attention", "SelfAttention"),
        "An additive float mask is used as a bool mask",
        "A float mask is added to the scores (0 = may attend, -inf = blocked, or a bias), as in "
        "F.scaled_dot_product_attention: apply bool masks with -inf and add float ones "
        "(scores + mask.to(scores.dtype)). mask.bool() is True at the -inf entries: the opposite.",
    ),
    Mistake(
        "additive-mask-wrong-sign",
        ("scaled_dot_product_attention", "SelfAttention"),
        "An additive float mask is subtracted from the scores instead of added",
        "Add it: scores + mask. Subtracting turns -inf into +inf, so blocked keys win and the "
        "weights become NaN.",
    ),
    # ---- 06 multi-head ---------------------------------------------------------------------------
    Mistake(
        "split-heads-no-transpose",
        ("split_heads", "MultiHeadAttention"),
        "Heads split with view/reshape straight to (B, h, L, d_head), without a transpose",
        "Reshape to (B, L, h, d_head) first, then transpose(1, 2); a single reshape mixes "
        "positions into the heads.",
    ),
    Mistake(
        "wrong-head-order",
        ("split_heads", "merge_heads", "MultiHeadAttention"),
        "Features assigned to heads in the wrong order",
        "Head i owns the contiguous features [i·d_head, (i+1)·d_head): reshape to "
        "(B, L, h, d_head), not (B, L, d_head, h).",
    ),
    Mistake(
        "merge-heads-no-transpose",
        ("merge_heads", "MultiHeadAttention"),
        "Heads merged without transposing back",
        "Go back to (B, L, h, d_head) with transpose(1, 2) before reshaping to (B, L, h·d_head).",
    ),
    Mistake(
        "view-not-contiguous",
        ("merge_heads", "MultiHeadAttention"),
        ".view on a transposed (non-contiguous) tensor",
        "After a transpose, use .reshape(...) or .contiguous().view(...).",
    ),
    Mistake(
        "missing-output-projection",
        ("MultiHeadAttention",),
        "The output projection w_o is not applied",
        "After merging the heads, mix them with self.w_o.",
    ),
    Mistake(
        "weights-averaged-over-heads",
        ("MultiHeadAttention",),
        "Attention weights averaged over the heads",
        "Return the per-head weights (B, h, Lq, Lk) (nn.MultiheadAttention averages them only "
        "by default).",
    ),
    Mistake(
        "cross-attention-ignores-kv",
        ("MultiHeadAttention",),
        "key and value arguments ignored: always self-attention",
        "Use key and value when they are given; fall back to query only when they are None.",
    ),
    Mistake(
        "params-forgot-output-projection",
        ("mha_num_parameters",),
        "Parameter count leaves out the output projection",
        "There are four d_model × d_model projections: w_q, w_k, w_v and w_o.",
    ),
    Mistake(
        "params-forgot-biases",
        ("mha_num_parameters",),
        "Parameter count ignores the biases",
        "With bias=True each of the four projections has d_model bias terms too.",
    ),
    Mistake(
        "params-times-heads",
        ("mha_num_parameters",),
        "Parameter count multiplied by the number of heads",
        "Heads split d_model, they don't add parameters: each head uses d_model / h of the "
        "outputs of the same four d_model × d_model projections.",
    ),
    # ---- 07 positions ----------------------------------------------------------------------------
    Mistake(
        "sin-cos-swapped",
        ("sinusoidal_positional_encoding",),
        "sin and cos swapped",
        "Even columns get sin, odd columns get cos: PE[p, 2i] = sin(...), PE[p, 2i+1] = cos(...).",
    ),
    Mistake(
        "frequency-exponent-i",
        ("sinusoidal_positional_encoding", "apply_rope"),
        "Frequency exponent uses i instead of 2i (or doubles it)",
        "Pair i (columns 2i, 2i+1) has frequency base^(-2i/d): with torch.arange(0, d, 2) "
        "that is already 2i, don't multiply by 2 again.",
    ),
    Mistake(
        "sinusoid-concatenated",
        ("sinusoidal_positional_encoding",),
        "sin and cos concatenated in two halves instead of interleaved",
        "The contract interleaves: column 2i is sin, column 2i+1 is cos (pe[:, 0::2] = sin, "
        "pe[:, 1::2] = cos).",
    ),
    Mistake(
        "no-value-error",
        ("sinusoidal_positional_encoding", "LearnedPositionalEmbedding"),
        "Invalid arguments do not raise ValueError",
        "Check the arguments up front and raise ValueError with a clear message (odd d_model, "
        "sequence longer than max_len).",
    ),
    Mistake(
        "positions-not-added",
        ("LearnedPositionalEmbedding",),
        "Returns the position embeddings instead of x plus them",
        "forward(x) returns x + self.embedding(positions).",
    ),
    Mistake(
        "dtype-promoted",
        ("apply_rope", "LearnedPositionalEmbedding", "scaled_dot_product_attention"),
        "A float16/bfloat16 input comes back as float32",
        "A float32 tensor you created (angles, cos/sin, a scale) promoted the result: create it "
        "with dtype=x.dtype or cast it with .to(x.dtype).",
    ),
    Mistake(
        "rope-half-split",
        ("apply_rope",),
        "RoPE pairs the two halves (GPT-NeoX rotate_half) instead of neighbours",
        "The contract rotates interleaved pairs (x[..., 2i], x[..., 2i+1]), as in RoFormer.",
    ),
    Mistake(
        "rope-wrong-direction",
        ("apply_rope",),
        "RoPE rotates the wrong way (sign of sin swapped)",
        "x'_{2i} = x_{2i} cos θ - x_{2i+1} sin θ and x'_{2i+1} = x_{2i} sin θ + x_{2i+1} cos θ.",
    ),
    Mistake(
        "rope-positions-ignored",
        ("apply_rope",),
        "The positions argument is ignored (always 0..L-1)",
        "Use the given positions, e.g. the offset ones of new tokens decoded with a KV cache; "
        "only default to torch.arange(L) when positions is None.",
    ),
    # ---- 08 blocks -------------------------------------------------------------------------------
    Mistake(
        "ffn-missing-activation",
        ("FeedForward", "TransformerBlock"),
        "No activation between the two linear layers",
        "Two linear layers in a row are one linear layer; put a ReLU between them.",
    ),
    Mistake(
        "ffn-wrong-activation",
        ("FeedForward",),
        "Wrong activation in the feed-forward network",
        "The contract (and the original Transformer) use ReLU; GPT-2 uses GELU, but not here.",
    ),
    Mistake(
        "dropout-always-on",
        ("FeedForward", "TransformerBlock"),
        "Dropout still active in eval mode",
        "F.dropout(x, p) defaults to training=True; use an nn.Dropout module (or pass "
        "training=self.training).",
    ),
    Mistake(
        "pre-post-ln-swapped",
        ("TransformerBlock",),
        "Pre-LN and Post-LN mixed up (norm_first)",
        "Pre-LN (norm_first=True): x + sublayer(norm(x)). Post-LN: norm(x + sublayer(x)).",
    ),
    Mistake(
        "residual-missing",
        ("TransformerBlock",),
        "A residual connection is missing",
        "Each sublayer adds its output to its input: x = x + attn(...), then x = x + ff(...).",
    ),
    Mistake(
        "residual-from-normed-input",
        ("TransformerBlock",),
        "Pre-LN residual adds the normalised x instead of the raw x",
        "Keep the un-normalised x for the residual: x = x + attn(norm1(x)), not "
        "x = norm1(x); x = x + attn(x).",
    ),
    Mistake(
        "same-norm-twice",
        ("TransformerBlock",),
        "The same LayerNorm used for both sublayers",
        "norm1 goes with attention, norm2 with the feed-forward network.",
    ),
    Mistake(
        "not-causal",
        ("TinyTransformer",),
        "The language model sees future tokens",
        "A decoder-only model must use a causal mask in every attention layer.",
    ),
    Mistake(
        "positions-missing",
        ("TinyTransformer",),
        "No positional information: the model can't tell token order",
        "Add position embeddings (learned or sinusoidal) to the token embeddings.",
    ),
    Mistake(
        "logits-softmaxed",
        ("TinyTransformer",),
        "forward returns probabilities instead of logits",
        "Return the raw output of the last linear layer; cross-entropy applies the softmax.",
    ),
    Mistake(
        "layers-not-registered",
        ("TinyTransformer",),
        "Blocks stored in a plain Python list: their parameters are not registered",
        "Use nn.ModuleList (or nn.Sequential) so the blocks' weights are trained and saved.",
    ),
    # ---- 09 efficient ----------------------------------------------------------------------------
    Mistake(
        "window-off-by-one",
        ("sliding_window_mask",),
        "Sliding window one too wide or too narrow",
        "A window of w keys is 0 ≤ i − j < w: the token itself and the w − 1 before it.",
    ),
    Mistake(
        "window-not-causal",
        ("sliding_window_mask",),
        "Window looks both ways: |i − j| < window",
        "A causal sliding window only looks back: 0 ≤ i − j < window.",
    ),
    Mistake(
        "online-softmax-no-rescale",
        ("tiled_attention",),
        "Online softmax does not rescale the running sums when the max changes",
        "When the running max grows from m to m', multiply the accumulator and the running sum "
        "by exp(m − m') before adding the new block.",
    ),
    Mistake(
        "forgot-final-normalisation",
        ("tiled_attention",),
        "Output not divided by the softmax denominator at the end",
        "After the last key block, divide the accumulator by the running sum l.",
    ),
    Mistake(
        "materialises-full-matrix",
        ("tiled_attention",),
        "Builds a full (Lq, Lk) matrix",
        "Only (Lq, block_size) score tiles may exist at a time: that is the point of tiling.",
    ),
    Mistake(
        "causal-block-offset",
        ("tiled_attention",),
        "Causal mask inside a block uses block-local indices",
        "Compare global positions: key start + j may be seen by query i when start + j ≤ i.",
    ),
    Mistake(
        "partial-block-dropped",
        ("tiled_attention",),
        "The last, shorter key block is skipped",
        "When Lk is not a multiple of block_size the last block is shorter: loop with "
        "range(0, Lk, block_size) and slice to min(start + block_size, Lk).",
    ),
    Mistake(
        "kv-cache-wrong-dim",
        ("KVCache",),
        "Cache concatenates along the wrong dimension",
        "New keys and values are new positions: torch.cat([old, new], dim=-2).",
    ),
    Mistake(
        "kv-cache-not-stored",
        ("KVCache",),
        "The cache does not keep what was appended",
        "Store the concatenated tensors on self and return them; the next append builds on them.",
    ),
    Mistake(
        "kv-cache-prepends",
        ("KVCache",),
        "New keys/values put before the old ones",
        "Order matters for positions: torch.cat([old, new], dim=-2), old first.",
    ),
)

MISTAKES: dict[str, Mistake] = {m.id: m for m in GENERIC + CATALOGUE}
GENERIC_IDS = frozenset(m.id for m in GENERIC)

if len(MISTAKES) != len(GENERIC) + len(CATALOGUE):  # pragma: no cover - caught at import
    raise RuntimeError("duplicate mistake id in the catalogue")


def get(mistake_id: str) -> Mistake:
    """The catalogue entry ``mistake_id`` (KeyError names the unknown id)."""
    try:
        return MISTAKES[mistake_id]
    except KeyError:
        raise KeyError(f"unknown mistake id {mistake_id!r}") from None
