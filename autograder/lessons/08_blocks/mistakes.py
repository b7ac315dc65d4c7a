"""Lesson 08's known mistakes (Transformer blocks) (see autograder/core/mistakes.py)."""

from autograder.core.mistakes import Mistake

MISTAKES = (
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
        "ffn-activation-after-output",
        ("FeedForward",),
        "ReLU applied to linear2's output too",
        "The ReLU goes between the two layers only: linear2(relu(linear1(x))); a ReLU after "
        "linear2 stops the block from ever subtracting from the residual stream.",
    ),
    Mistake(
        "ffn-dropout-ignored",
        ("FeedForward",),
        "The dropout argument does nothing in training mode",
        "Keep an nn.Dropout(dropout) and apply it to the ReLU's output (or to linear2's output): "
        "linear2(self.dropout(relu(linear1(x)))).",
    ),
    Mistake(
        "ffn-dropout-on-input",
        ("FeedForward",),
        "Dropout applied to the feed-forward network's input",
        "Drop the ReLU's output (or linear2's output), not x: "
        "linear2(self.dropout(relu(linear1(x)))).",
    ),
    Mistake(
        "ffn-linear-no-bias",
        ("FeedForward",),
        "A feed-forward layer has no bias",
        "linear1 and linear2 are nn.Linear layers with a bias (the default), as in "
        "nn.TransformerEncoderLayer; leave out bias=False.",
    ),
    Mistake(
        "dropout-not-rescaled",
        ("FeedForward", "TransformerBlock"),
        "Dropout zeroes values but does not rescale the others by 1/(1-p)",
        "Use nn.Dropout(p), which scales what it keeps by 1/(1-p) in training mode so that the "
        "expected value is unchanged; by hand: x * keep / (1 - p).",
    ),
    Mistake(
        "block-attn-no-bias",
        ("TransformerBlock",),
        "The block's attention is built without biases",
        "Build it as MultiHeadAttention(d_model, num_heads, bias=True): the contract's block "
        "matches nn.TransformerEncoderLayer, whose attention projections have biases.",
    ),
    Mistake(
        "ffn-dropout-rate-ignored",
        ("FeedForward",),
        "Dropout with a rate of its own, not the dropout argument",
        "Build the layer from the constructor's argument, self.dropout = nn.Dropout(dropout): a "
        "hard-coded nn.Dropout(0.1) ignores what the caller asked for.",
    ),
    Mistake(
        "pre-post-ln-swapped",
        ("TransformerBlock", "TinyTransformer"),
        "Pre-LN and Post-LN mixed up (norm_first)",
        "Pre-LN (norm_first=True): x + sublayer(norm(x)). Post-LN: norm(x + sublayer(x)).",
    ),
    Mistake(
        "post-ln-norm-then-add",
        ("TransformerBlock",),
        "Post-LN with the residual added after the norm: norm(x) + sublayer(x)",
        "Post-LN normalises the sum: x = norm1(x + attn(x)), then x = norm2(x + ff(x)).",
    ),
    Mistake(
        "mask-passed-as-key",
        ("TransformerBlock",),
        "The mask passed to attention positionally, where it lands on key",
        "MultiHeadAttention's forward is (query, key=None, value=None, mask=None): pass it by "
        "name, self.attn(h, mask=mask).",
    ),
    Mistake(
        "residual-missing",
        ("TransformerBlock",),
        "A residual connection is missing",
        "Each sublayer adds its output to its input: x = x + attn(...), then x = x + ff(...).",
    ),
    Mistake(
        "residual-added-twice",
        ("TransformerBlock",),
        "A residual connection is added twice",
        "Each sublayer's input is added once: x = x + attn(...), not x = x + (x + attn(...)).",
    ),
    Mistake(
        "residual-from-normed-input",
        ("TransformerBlock", "TinyTransformer"),
        "The residual adds the normalised x instead of the raw x",
        "Keep the un-normalised x for the residual: x = x + attn(norm1(x)) (Pre-LN) or "
        "x = norm1(x + attn(x)) (Post-LN), never x = norm1(x); x = x + attn(x).",
    ),
    Mistake(
        "pre-ln-output-normed",
        ("TransformerBlock",),
        "The Pre-LN block also normalises its output",
        "In a Pre-LN block the norms sit inside the branches only: x + attn(norm1(x)), then "
        "x + ff(norm2(x)), returned as is; the model's final LayerNorm normalises once, after "
        "the last block.",
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
        "lm-last-position-only",
        ("TinyTransformer",),
        "The model returns the logits of the last position only",
        "Return the logits of every position, (B, L, vocab_size): training predicts every next "
        "token at once, and generation takes logits[:, -1] itself.",
    ),
    Mistake(
        "lm-depends-on-length",
        ("TinyTransformer",),
        "The logits at a position depend on how many tokens follow it",
        "Number positions from the start (0, 1, ..., L-1), the same whatever the length: a "
        "causal model's logits at position t depend on tokens 0..t only, so that they do not "
        "change when more tokens follow.",
    ),
    Mistake(
        "lm-no-final-norm",
        ("TinyTransformer",),
        "No LayerNorm between the last block and the output layer",
        "Pre-LN blocks never normalise the residual stream: add an nn.LayerNorm(d_model) and "
        "apply it to the last block's output before the output layer.",
    ),
    Mistake(
        "lm-head-not-linear",
        ("TinyTransformer",),
        "Something nonlinear between the final LayerNorm and the output layer",
        "The output layer reads the final norm's output as it is: logits = head(norm(x)), with "
        "no activation (GELU, ReLU) or other layer between them; GPT-2's lm_head is one "
        "nn.Linear.",
    ),
    Mistake(
        "lm-post-ln-blocks",
        ("TinyTransformer",),
        "The model is built from Post-LN blocks",
        "Build the blocks as TransformerBlock(d_model, num_heads, d_ff), whose default "
        "norm_first=True is Pre-LN, as GPT-2 and the lesson's model are.",
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
        "Layers the model does not register: blocks in a plain Python list, or a layer built "
        "in forward",
        "Build every layer once, in __init__, and the blocks in an nn.ModuleList (or "
        "nn.Sequential), so that their weights are trained and saved; a layer built in forward "
        "gets new random weights at every call.",
    ),
    Mistake(
        "lm-ignores-context",
        ("TinyTransformer",),
        "The model predicts from the current token and its position only",
        "Each block's attention must see the earlier tokens: pass the embeddings through the "
        "blocks under a causal mask, so a token can be copied from an earlier position.",
    ),
    Mistake(
        "block-dropout-ignored",
        ("TransformerBlock",),
        "The block's dropout is never applied to a sublayer's output",
        "In training mode drop each sublayer's output before adding it, in both branches: "
        "x = x + self.dropout1(self.attn(self.norm1(x), mask=mask)) in Pre-LN, "
        "x = self.norm1(x + self.dropout1(self.attn(x, mask=mask))) in Post-LN; the same with ff.",
    ),
    Mistake(
        "block-dropout-rate-ignored",
        ("TransformerBlock",),
        "The block's dropout has a rate of its own, not the dropout argument",
        "Build every dropout of the block from its argument: nn.Dropout(dropout) for the two "
        "sublayer outputs (and FeedForward(d_model, d_ff, dropout) where the FFN drops too); a "
        "hard-coded nn.Dropout(0.1) ignores the caller.",
    ),
    Mistake(
        "lm-dropout-of-its-own",
        ("TinyTransformer",),
        "The model drops values in training mode, though it takes no dropout argument",
        "TinyTransformer has no dropout: build its blocks with their default dropout=0 and add "
        "no nn.Dropout, so that training mode gives the logits of eval mode.",
    ),
    Mistake(
        "block-dropout-on-residual",
        ("TransformerBlock",),
        "Dropout applied to the residual stream itself",
        "Drop only the sublayer's output, then add: x = x + self.dropout1(sublayer), never "
        "x = self.dropout(x + sublayer).",
    ),
    Mistake(
        "one-residual-around-both",
        ("TransformerBlock",),
        "One residual around both sublayers instead of one around each",
        "Each sublayer gets its own residual: x = x + attn(norm1(x)), then x = x + ff(norm2(x)).",
    ),
    Mistake(
        "norms-swapped",
        ("TransformerBlock",),
        "norm1 and norm2 swapped",
        "norm1 goes with attention and norm2 with the feed-forward network: "
        "x + attn(norm1(x)), then x + ff(norm2(x)).",
    ),
    Mistake(
        "post-ln-norm-inside-residual",
        ("TransformerBlock",),
        "Post-LN written as x + norm(sublayer(x))",
        "Post-LN normalises the sum, residual included: x = norm1(x + attn(x)), then "
        "x = norm2(x + ff(x)).",
    ),
    Mistake(
        "ffn-reads-block-input",
        ("TransformerBlock",),
        "The feed-forward sublayer is given the block's input, not attention's result",
        "Chain the sublayers: x = x + attn(norm1(x)) first, then x = x + ff(norm2(x)) on that "
        "new x.",
    ),
    Mistake(
        "layers-shared",
        ("TinyTransformer",),
        "One block shared by every layer",
        "Create a new block per layer: nn.ModuleList(TransformerBlock(...) for _ in "
        "range(num_layers)); [block] * num_layers repeats one block with one set of weights.",
    ),
    Mistake(
        "lm-too-few-blocks",
        ("TinyTransformer",),
        "Fewer blocks than num_layers",
        "Build exactly num_layers blocks: nn.ModuleList(TransformerBlock(...) for _ in "
        "range(num_layers)), not range(num_layers - 1) or a first block kept outside the list.",
    ),
    Mistake(
        "ffn-dropout-twice",
        ("FeedForward",),
        "Dropout applied twice: after the ReLU and after linear2",
        "Drop once, after the ReLU (or after linear2): twice drops about 1 - (1 - p)² of the "
        "values and scales the rest by 1 / (1 - p)².",
    ),
    Mistake(
        "block-dropout-twice-on-ffn",
        ("TransformerBlock",),
        "The feed-forward output dropped twice: after linear2 in FeedForward and in the block",
        "Drop each sublayer's output once: a FeedForward that drops after linear2 (GPT-2's MLP) "
        "needs no dropout of the block on it; one that drops after the ReLU goes with the "
        "block's dropout2, as in nn.TransformerEncoderLayer.",
    ),
    Mistake(
        "positions-after-blocks",
        ("TinyTransformer",),
        "The positions are added after the blocks, which never see them",
        "Add the position embeddings to the token embeddings before the first block: the "
        "blocks' attention needs them to tell the earlier tokens' order.",
    ),
    Mistake(
        "lm-not-built-from-blocks",
        ("TinyTransformer",),
        "The model is not num_layers TransformerBlocks that forward calls",
        "Build the model from the lesson's blocks: nn.ModuleList(TransformerBlock(d_model, "
        "num_heads, d_ff) for _ in range(num_layers)), each called in forward as x = block(x, "
        "mask).",
    ),
    Mistake(
        "lm-ignores-attention",
        ("TinyTransformer",),
        "The model finds the earlier tokens without its blocks' attention",
        "Let the earlier tokens reach each position through the blocks' attention only: "
        "x = block(x, mask) for each block, with no other path that mixes positions.",
    ),
    Mistake(
        "attention-ignores-scores",
        ("TransformerBlock", "TinyTransformer"),
        "The attention's weights ignore the queries and keys",
        "The weights are softmax(q kᵀ / √d_head) over the keys, with q = w_q(x) and k = w_k(x): "
        "a running mean, or any mix of the values that q and k do not choose, is not attention; "
        "scores masked or computed under torch.no_grad() never train w_q and w_k either.",
    ),
    Mistake(
        "lm-blocks-not-chained",
        ("TinyTransformer",),
        "A block's output is never used: the blocks are not applied one after another",
        "Each block reads the previous block's output: x = block(x, mask) in the loop, then the "
        "final LayerNorm and the head read the last x.",
    ),
    Mistake(
        "seq-len-from-batch-dim",
        ("TinyTransformer",),
        "The sequence length read from the batch dimension, tokens.size(0)",
        "tokens is (B, L): the causal mask and the positions take L = tokens.size(1), as in "
        "causal_mask(L, device=tokens.device).",
    ),
    Mistake(
        "dropout-keep-drop-swapped",
        ("FeedForward", "TransformerBlock"),
        "Dropout keeps each value with probability p instead of dropping it",
        "p is the probability of dropping: nn.Dropout(p), or by hand keep = torch.rand_like(h) "
        ">= p, then h * keep / (1 - p); never nn.Dropout(1 - p).",
    ),
    Mistake(
        "dropout-wrong-scale",
        ("FeedForward", "TransformerBlock"),
        "Dropout scales the kept values by 1/p instead of 1/(1-p)",
        "Divide what is kept by the probability of keeping it, 1 - p: h * keep / (1 - p) (the two "
        "agree only at p = 0.5).",
    ),
    Mistake(
        "dropout-mask-per-feature",
        ("FeedForward", "TransformerBlock"),
        "One dropout mask per feature, shared by every token",
        "Draw one keep/drop for each value, with the shape of h (torch.rand_like(h)), as "
        "nn.Dropout does; a mask of shape (d_ff,) drops whole features for the whole batch.",
    ),
    Mistake(
        "block-dropout-on-sublayer-input",
        ("TransformerBlock",),
        "Dropout applied to a sublayer's input instead of its output",
        "Drop what the sublayer returns, then add: x = x + self.dropout1(self.attn(self.norm1(x), "
        "mask=mask)), not self.attn(self.dropout1(self.norm1(x)), ...).",
    ),
    Mistake(
        "train-mode-differs",
        ("TransformerBlock", "TinyTransformer"),
        "With dropout=0, training mode computes something else than eval mode",
        "A new module is in training mode, and the notebook trains it there: apply the mask, the "
        "causal mask and the final LayerNorm in both modes; only dropout may depend on "
        "self.training.",
    ),
    Mistake(
        "lm-sees-window-only",
        ("TinyTransformer",),
        "The model sees only the last few tokens, not all of its past",
        "Build the mask with causal_mask(L): position i attends to every j <= i, not only to a "
        "window of recent tokens.",
    ),
    Mistake(
        "layernorm-no-affine",
        ("TransformerBlock",),
        "LayerNorm built without its weight and bias",
        "Build norm1 and norm2 as nn.LayerNorm(d_model): elementwise_affine=True (the default) "
        "gives each a learned scale and shift, as in nn.TransformerEncoderLayer.",
    ),
    Mistake(
        "ffn-relu-on-input",
        ("FeedForward",),
        "ReLU applied to the input instead of between the two layers",
        "The ReLU acts on linear1's output: linear2(relu(linear1(x))), not "
        "linear2(linear1(relu(x))).",
    ),
    Mistake(
        "post-ln-sublayer-input-normed",
        ("TransformerBlock",),
        "Post-LN sublayer reads a normalised input: norm(x + f(norm(x)))",
        "With norm_first=False each sublayer reads x itself and only the sum is normalised, "
        "x = norm2(x + ff(x)); norm2(x) as the sublayer's input is the Pre-LN habit mixed in.",
    ),
    Mistake(
        "pre-ln-kv-unnormed",
        ("TransformerBlock",),
        "Pre-LN attention takes its keys and values from the un-normalised x",
        "Normalise once and attend with that for all three, h = self.norm1(x); self.attn(h, "
        "mask=mask): self.attn(h, x, x) reads the keys and values before the LayerNorm.",
    ),
    Mistake(
        "block-returns-tuple",
        ("TransformerBlock",),
        "forward returns a tuple instead of the output tensor",
        "A block returns one tensor of x's shape, return x, so that blocks chain: only the "
        "attention returns (output, weights); take its [0] inside the block.",
    ),
    Mistake(
        "lm-shifts-targets",
        ("TinyTransformer",),
        "The model shifts the targets itself: logits for L - 1 positions",
        "forward returns logits at every position, (B, L, vocab_size): logits[:, t] predicts "
        "token t + 1, and the training loop, not the model, pairs them with tokens[:, 1:].",
    ),
    Mistake(
        "lm-skips-blocks",
        ("TinyTransformer",),
        "The logits also read the embeddings directly, around the blocks",
        "The blocks' residual stream already carries the embeddings: logits = head(norm(x)) of "
        "the last block's output x; adding the embeddings again opens a path around every block.",
    ),
    Mistake(
        "lm-ignores-arguments",
        ("TinyTransformer",),
        "TinyTransformer ignores num_layers, num_heads or d_ff",
        "Build num_layers blocks, each TransformerBlock(d_model, num_heads, d_ff): a fixed number "
        "of blocks, of heads or a width of 4 * d_model is another model than the one asked for.",
    ),
    Mistake(
        "positions-every-block",
        ("TinyTransformer",),
        "The positions are added again before every block",
        "Add the position embeddings once, to the token embeddings before the first block: "
        "x = tok(tokens) + pos, then x = block(x, mask) for each block.",
    ),
    Mistake(
        "lm-final-norm-every-block",
        ("TinyTransformer",),
        "The final LayerNorm is applied after every block",
        "Apply the final norm once, after the loop over the blocks: for block in self.blocks: "
        "x = block(x, mask), then logits = head(norm(x)).",
    ),
    Mistake(
        "lm-token-0-is-padding",
        ("TinyTransformer",),
        "Token 0 is treated as padding",
        "Token 0 is a token like any other: no padding_idx=0 on the embedding and no mask that "
        "hides it; nn.Embedding(vocab_size, d_model) and the causal mask alone.",
    ),
    Mistake(
        "lm-built-for-max-len",
        ("TinyTransformer",),
        "The causal mask or the positions built for max_len tokens, not the tokens' length",
        "Build them for the sequence at hand, L = tokens.size(1): causal_mask(L, device=...) and "
        "positions 0..L-1; a (max_len, max_len) mask or the whole position table fits only "
        "sequences of exactly max_len.",
    ),
    Mistake(
        "layernorm-eps-changed",
        ("TransformerBlock",),
        "The LayerNorms use another eps than nn.LayerNorm's default",
        "Build norm1 and norm2 as nn.LayerNorm(d_model), whose eps is 1e-5 as in "
        "nn.TransformerEncoderLayer: another eps (1e-3, or 1e-6) changes the normalised values, "
        "the more so the smaller the inputs' variance.",
    ),
    Mistake(
        "layernorm-over-tokens",
        ("TransformerBlock",),
        "The LayerNorm averages over the positions instead of the features",
        "A LayerNorm normalises each token over its d_model features, the last dimension: "
        "nn.LayerNorm(d_model) applied as self.norm1(x), or x.mean(-1, keepdim=True) by hand.",
    ),
    Mistake(
        "norm-on-sublayer-output",
        ("TransformerBlock",),
        "A LayerNorm is applied to the attention's output before the residual add",
        "In a Pre-LN block each norm acts on its sublayer's input only: x = x + attn(norm1(x)), "
        "then x = x + ff(norm2(x)); norm2 is the FFN's, never the attention output's.",
    ),
    Mistake(
        "post-ln-ffn-reads-unnormed",
        ("TransformerBlock",),
        "In Post-LN the FFN reads the sum before norm1",
        "In Post-LN the FFN reads norm1's output, the same tensor its residual adds to: "
        "x = norm1(x + attn(x)), then x = norm2(x + ff(x)).",
    ),
    Mistake(
        "block-causal-by-default",
        ("TransformerBlock",),
        "mask=None is taken as a causal mask in the block",
        "No mask means every position may attend to every other: pass mask on to self.attn as "
        "given; TinyTransformer passes causal_mask(L) itself.",
    ),
    Mistake(
        "block-ignores-d-ff",
        ("TransformerBlock",),
        "The block's FeedForward is not d_ff wide",
        "Build the feed-forward network with the block's argument: FeedForward(d_model, d_ff, "
        "dropout), not a width of its own such as 4 * d_model.",
    ),
    Mistake(
        "lm-mask-per-sequence",
        ("TinyTransformer",),
        "The causal mask is expanded to (B, L, L)",
        "Pass the causal mask as (L, L): a (B, L, L) mask lines B up with the heads of the "
        "(B, h, L, L) scores, and fails when B is not 1 or h.",
    ),
    Mistake(
        "positions-from-token-table",
        ("TinyTransformer",),
        "The positions are looked up in the token embedding",
        "Positions need a table of their own: LearnedPositionalEmbedding(max_len, d_model) (or "
        "sinusoidal positions); self.tok(torch.arange(L)) makes position p token p.",
    ),
    Mistake(
        "block-dropout-on-attention-weights",
        ("TransformerBlock",),
        "Dropout on the attention weights, where the block drops only each sublayer's output",
        "nn.TransformerEncoderLayer and nanoGPT also drop the attention weights, but this "
        "course's block drops each sublayer's output once, before the residual add (dropout1, "
        "dropout2), and its MultiHeadAttention takes no dropout: drop self.attn(...)[0].",
    ),
)
