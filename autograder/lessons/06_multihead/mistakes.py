"""Lesson 06's known mistakes (multi-head attention) (see autograder/core/mistakes.py)."""

from autograder.core.mistakes import Mistake

MISTAKES = (
    Mistake(
        "split-heads-dims-mislabelled",
        ("split_heads",),
        "split_heads unpacks x.shape in the wrong order",
        "split_heads gets (B, L, d_model): unpack B, L, D = x.shape, then "
        "x.view(B, L, num_heads, D // num_heads).transpose(1, 2).",
    ),
    Mistake(
        "projection-wrong-input",
        ("MultiHeadAttention",),
        "A projection applied to the wrong input: queries from key, or values from key",
        "w_q projects query, w_k projects key and w_v projects value: "
        "q, k, v = self.w_q(query), self.w_k(key), self.w_v(value).",
    ),
    Mistake(
        "projection-bias-dropped",
        ("MultiHeadAttention",),
        "A projection's bias left out (x @ W.T without + b)",
        "With bias=True each of w_q, w_k, w_v and w_o adds its bias: call the layer, "
        "self.w_o(x), rather than x @ self.w_o.weight.T.",
    ),
    Mistake(
        "weights-heads-flattened",
        ("MultiHeadAttention",),
        "The weights returned with the batch and the heads flattened: (B*h, Lq, Lk)",
        "Return the weights as (B, h, Lq, Lk), one (Lq, Lk) matrix per sequence and head: "
        "weights.view(B, h, Lq, Lk) if you computed them as (B*h, Lq, Lk).",
    ),
    Mistake(
        "scaled-by-num-heads",
        ("MultiHeadAttention",),
        "Scores scaled by sqrt(num_heads) instead of sqrt(d_model // num_heads)",
        "Divide by the square root of each head's width, d_head = d_model // num_heads "
        "(q.shape[-1] after the split), not of the number of heads.",
    ),
    Mistake(
        "split-heads-no-transpose",
        ("split_heads", "MultiHeadAttention"),
        "Heads split without transpose(1, 2): one reshape, or a transpose of other dims",
        "Reshape to (B, L, h, d_head) first, then transpose(1, 2); a single reshape, or "
        "transpose(1, 3) and a reshape, mixes positions into the heads.",
    ),
    Mistake(
        "wrong-head-order",
        ("split_heads", "merge_heads", "MultiHeadAttention"),
        "Features assigned to heads in the wrong order",
        "Head i owns the contiguous features [i·d_head, (i+1)·d_head): split_heads reshapes to "
        "(B, L, h, d_head), not (B, L, d_head, h); merge_heads transposes (B, h, L, d_head) to "
        "(B, L, h, d_head) before the reshape.",
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
        "output-projection-misplaced",
        ("MultiHeadAttention",),
        "The output projection w_o is applied to the values before attention",
        "w_o mixes the heads' outputs: apply it last, self.w_o(merge_heads(out)), after the "
        "attention and the merge, not to v on the way in.",
    ),
    Mistake(
        "weights-averaged-over-heads",
        ("MultiHeadAttention",),
        "Attention weights averaged over the heads, or one head's only",
        "Return the per-head weights (B, h, Lq, Lk) (nn.MultiheadAttention averages them only "
        "by default).",
    ),
    Mistake(
        "cross-attention-ignores-kv",
        ("MultiHeadAttention",),
        "The key or value argument ignored: attention over the query instead",
        "Project keys from key and values from value when they are given; fall back to query "
        "only when they are None.",
    ),
    Mistake(
        "bias-not-passed",
        ("MultiHeadAttention",),
        "A projection is built without the bias argument",
        "Pass bias=bias to all four layers: nn.Linear(d_model, d_model, bias=bias) for w_q, "
        "w_k, w_v and w_o, so that MultiHeadAttention(d_model, num_heads, bias=True) has four "
        "biases.",
    ),
    Mistake(
        "tensor-truth-value",
        ("MultiHeadAttention",),
        "A tensor used as True/False (key or query, if mask:)",
        "A tensor of many values is neither true nor false: test for None instead (key = query "
        "if key is None else key; if mask is not None:).",
    ),
    Mistake(
        "value-defaults-to-query",
        ("MultiHeadAttention",),
        "value defaults to query when only key is given",
        "value defaults to key (key = query if key is None else key; value = key if value is "
        "None else value): the values come from the sequence the keys come from.",
    ),
    Mistake(
        "mask-unsqueezed-in-mha",
        ("MultiHeadAttention",),
        "The mask reshaped inside MultiHeadAttention",
        "Pass mask on to scaled_dot_product_attention unchanged: the caller gives one that "
        "broadcasts to (B, h, Lq, Lk), such as (Lq, Lk), (B, 1, 1, Lk) or (h, Lq, Lk); an "
        "unsqueeze(1) inside moves its batch dim onto the heads, and a loop over the heads "
        "must give head i its own slice of a mask that has a heads dim.",
    ),
    Mistake(
        "kv-split-with-query-length",
        ("MultiHeadAttention",),
        "Keys and values split into heads with the query's length",
        "key and value may be longer or shorter than query: split each with its own length, "
        "split_heads(self.w_k(key), self.num_heads), or view(B, key.size(1), h, d_head).",
    ),
    Mistake(
        "no-value-error",
        ("MultiHeadAttention", "sinusoidal_positional_encoding", "LearnedPositionalEmbedding"),
        "Invalid arguments do not raise ValueError",
        "Check that argument up front and raise ValueError with a message that says what is "
        "wrong (the line above names the case); an assert is accepted too.",
    ),
    Mistake(
        "scale-precedence",
        ("MultiHeadAttention",),
        "The scale written d_model // num_heads ** 0.5, which divides by sqrt(num_heads) first",
        "** binds tighter than //: write (d_model // num_heads) ** 0.5, or math.sqrt(d_head), "
        "or let scaled_dot_product_attention scale by q.shape[-1].",
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
        "Parameter count leaves out bias terms",
        "With bias=True each of the four projections (w_q, w_k, w_v and w_o) has d_model bias "
        "terms: 4 · d_model in all.",
    ),
    Mistake(
        "params-times-heads",
        ("mha_num_parameters",),
        "Parameter count multiplied by the number of heads",
        "Heads split d_model, they don't add parameters: each head uses d_model / h of the "
        "outputs of the same four d_model × d_model projections.",
    ),
    Mistake(
        "params-bias-ignored",
        ("mha_num_parameters",),
        "Biases counted when bias=False",
        "Each projection has d_model * d_model weights, plus d_model biases only when bias=True.",
    ),
    Mistake(
        "params-one-head",
        ("mha_num_parameters",),
        "Counted one head's slice of each projection (d_model * d_head)",
        "The heads share each projection: W_Q, W_K, W_V and W_O are each d_model x d_model, "
        "whatever the number of heads.",
    ),
    Mistake(
        "heads-reversed",
        ("split_heads", "merge_heads", "MultiHeadAttention"),
        "The heads come out in reverse order",
        "Head i owns features [i·d_head, (i+1)·d_head), in order: view(B, L, h, d_head)"
        ".transpose(1, 2) keeps it; no flip and no reversed loop over the heads.",
    ),
    Mistake(
        "params-bias-times-heads",
        ("mha_num_parameters",),
        "Biases counted once per head (4 · d_model · num_heads)",
        "Each of the four projections has one bias of d_model terms whatever the number of "
        "heads: 4 · d_model biases in all when bias=True.",
    ),
    Mistake(
        "params-not-int",
        ("mha_num_parameters",),
        "The parameter count is a float, not an int",
        "Count with integers: d_model // num_heads (not /), and return an int.",
    ),
    Mistake(
        "split-by-head-dim",
        ("split_heads", "MultiHeadAttention"),
        "The heads split by their width: d_head given where num_heads belongs",
        "split_heads(x, num_heads) makes num_heads heads of d_model // num_heads features: view x "
        "as (B, L, num_heads, d_model // num_heads), and call it with self.num_heads, not d_head.",
    ),
    Mistake(
        "merge-heads-dims-mislabelled",
        ("merge_heads",),
        "merge_heads unpacks x.shape in the wrong order",
        "merge_heads gets (B, num_heads, L, d_head): unpack B, h, L, dh = x.shape, then "
        "x.transpose(1, 2).reshape(B, L, h * dh).",
    ),
    Mistake(
        "heads-summed",
        ("merge_heads",),
        "The heads summed or averaged instead of set side by side",
        "merge_heads keeps every head's features: (B, h, L, d_head) becomes (B, L, h·d_head) by "
        "x.transpose(1, 2).reshape(B, L, h * dh); a sum or mean over the heads loses them.",
    ),
    Mistake(
        "projection-not-applied",
        ("MultiHeadAttention",),
        "w_q, w_k or w_v is created but not applied",
        "Project each input with its own layer before splitting the heads: "
        "split_heads(self.w_q(query), h), and the same with self.w_k(key) and self.w_v(value).",
    ),
    Mistake(
        "params-bias-as-num-heads",
        ("mha_num_parameters",),
        "bias passed to MultiHeadAttention in num_heads' place",
        "MultiHeadAttention's second argument is num_heads: build it as "
        "MultiHeadAttention(d_model, num_heads, bias=bias), or count the weights directly.",
    ),
    Mistake(
        "arguments-out-of-order",
        ("MultiHeadAttention", "mha_num_parameters", "apply_rope", "TransformerBlock"),
        "The parameters in another order than the contract's",
        "Keep the contract's signature, its order included (the failure shows it): code that "
        "calls yours with the optional arguments by position, as nn.MultiheadAttention's order "
        "would, reaches other parameters.",
    ),
)
