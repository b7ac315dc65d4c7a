""" "Find the bug" drills: the candidate is given code with bugs, as a colleague's pull request,
and must fix it. The bugs are mistakes the checks name; the number of bugs is stated, not where.
Those on a course exercise are graded by the course's checks, the others by this package's."""

from __future__ import annotations

from autograder.drill.extra.base import NewDrill

BUG_SDPA = '''\
def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q k^T / sqrt(d_k) + mask) v; returns (output, weights)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        if mask.dtype == torch.bool:
            scores = scores.masked_fill(mask, float("-inf"))
        else:
            scores = scores + mask.to(scores.dtype)
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
'''

BUG_MHA = """\
class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, bias=False):
        super().__init__()
        if d_model % num_heads:
            raise ValueError("d_model must be a multiple of num_heads")
        self.h, self.d_head = num_heads, d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=bias)
        self.w_k = nn.Linear(d_model, d_model, bias=bias)
        self.w_v = nn.Linear(d_model, d_model, bias=bias)
        self.w_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key=None, value=None, mask=None):
        key = query if key is None else key
        value = query if value is None else value
        B, Lq, D = query.shape
        Lk = key.size(1)
        q = self.w_q(query).reshape(B, self.h, Lq, self.d_head)
        k = self.w_k(key).reshape(B, self.h, Lk, self.d_head)
        v = self.w_v(value).reshape(B, self.h, Lk, self.d_head)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            if mask.dtype == torch.bool:
                scores = scores.masked_fill(~mask, float("-inf"))
            else:
                scores = scores + mask.to(scores.dtype)
        weights = torch.softmax(scores, dim=-1)
        out = (weights @ v).transpose(1, 2).reshape(B, Lq, D)
        return self.w_o(out), weights
"""

BUG_SOFTMAX = '''\
def softmax(x, dim=-1):
    """exp(x) / sum(exp(x)) along dim, without torch.softmax."""
    e = torch.exp(x)
    return e / e.sum(dim=-1, keepdim=True)
'''

BUG_LAYERNORM = """\
class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = x.var(-1, keepdim=True).detach()  # no gradient through the statistics
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
"""

BUG_LM_LOSS = '''\
def causal_lm_loss(logits, tokens, pad_id):
    """Mean cross-entropy of the next token over the non-pad targets."""
    V = logits.size(-1)
    return F.cross_entropy(logits[:, 1:].reshape(-1, V), tokens[:, :-1].reshape(-1))
'''

BUGS = (
    NewDrill(
        "bug-sdpa",
        "find the bugs: SDPA (2 bugs)",
        ("scaled_dot_product_attention",),
        1,
        6,
        "A colleague's SDPA fails review. Fix the code below: keep its names and signature; "
        "change as little as you need. The contract: a bool mask is True where a "
        "query MAY attend; a float mask is added to the scores.",
        (
            "scaled_dot_product_attention(q, k, v, mask=None) -> (output, weights), as "
            "F.scaled_dot_product_attention computes the output; a query whose keys are all "
            "masked gets zero weights and a zero output.",
        ),
        (),
        BUG_SDPA,
        (
            "Try a causal mask by hand: which positions does masked_fill fill?",
            "What does softmax give for a row of all -inf?",
        ),
        "Bug 1: masked_fill(mask, ...) blocks where the mask allows (True = may attend): use "
        "~mask. Bug 2: a fully masked row is all -inf and softmax gives NaN: nan_to_num(0.0) "
        "or torch.where on the row.",
        bug=True,
    ),
    NewDrill(
        "bug-mha",
        "find the bugs: multi-head attention (3 bugs)",
        ("MultiHeadAttention",),
        2,
        10,
        "This MultiHeadAttention trains, but worse than nn.MultiheadAttention. Fix the code "
        "below: keep its names and signature; change as little as you need.",
        (
            "MultiHeadAttention(d_model, num_heads, bias=False) with w_q, w_k, w_v, w_o; "
            "forward(query, key=None, value=None, mask=None) -> (output (B, Lq, d_model), weights "
            "(B, h, Lq, Lk)); with nn.MultiheadAttention's weights copied in, it matches it "
            "wherever a query has a key left to attend to; a query whose keys are all masked gets "
            "all-zero weights and an all-zero output (nn.MultiheadAttention gives NaN there).",
        ),
        (),
        BUG_MHA,
        (
            "Which features does head 0 get? Draw (B, L, h * d_head) -> (B, h, L, d_head).",
            "What is the variance of q . k for one head?",
        ),
        "Bug 1: reshape(B, h, L, d_head) mixes positions into heads: view(B, L, h, d_head)"
        ".transpose(1, 2). Bug 2: given a key but no value (cross-attention over a memory), "
        "the value is the key, not the query. Bug 3: a fully masked query row is all -inf "
        "and softmax gives NaN: nan_to_num(0.0).",
        bug=True,
    ),
    NewDrill(
        "bug-softmax",
        "find the bugs: softmax (3 bugs)",
        ("softmax",),
        1,
        5,
        "This softmax passes a quick test on small inputs. Fix the code below: keep its names "
        "and signature; change as little as you need.",
        (
            "softmax(x, dim=-1) along dim, without torch.softmax or F.softmax; numerically "
            "stable; a row of all -inf gives zeros.",
        ),
        (),
        BUG_SOFTMAX,
        (
            "Try softmax(torch.tensor([1000., 0.])).",
            "Try dim=0 on a (3, 4) tensor.",
            "Try a row of all -inf once the first bug is fixed.",
        ),
        "Bug 1: exp overflows for large inputs: subtract the max along dim first (softmax is "
        "shift-invariant). Bug 2: the sum ignores `dim`: e.sum(dim=dim, keepdim=True). Bug 3: "
        "with the max subtracted, a row of all -inf gives -inf - (-inf) = NaN: subtract 0 "
        "where the max is -inf (torch.where) so the row comes out as zeros.",
        bug=True,
    ),
    NewDrill(
        "bug-layernorm",
        "find the bugs: LayerNorm (2 bugs)",
        ("LayerNorm",),
        2,
        8,
        "This LayerNorm differs from nn.LayerNorm, and a model trained with it is unstable. "
        "Fix the code below: keep its names and signature; change as little as you need.",
        (
            "LayerNorm(d_model, eps=1e-5) with weight and bias; forward(x) matches F.layer_norm "
            "over the last dim. Do not call nn.LayerNorm or F.layer_norm.",
        ),
        (),
        BUG_LAYERNORM,
        ("What does x.var() divide by?", "Which gradients does LayerNorm's backward have?"),
        "Bug 1: x.var() is the unbiased estimate (divides by n - 1); LayerNorm uses the biased "
        "variance, unbiased=False. Bug 2: .detach() cuts the gradient through the variance: "
        "the backward pass is then not LayerNorm's (the values are the same, the gradients "
        "are not).",
        ("references:LayerNorm",),
        {
            "LayerNorm": (
                "checks_norms:check_layernorm",
                (
                    "torch.nn.LayerNorm",
                    "torch.nn.functional.layer_norm",
                    "torch.layer_norm",
                    "aten.native_layer_norm",
                ),
            )
        },
        bug=True,
    ),
    NewDrill(
        "bug-lm-loss",
        "find the bugs: causal LM loss (2 bugs)",
        ("causal_lm_loss",),
        1,
        6,
        "A language model trained with this loss learns nothing useful. Fix the code below: "
        "keep its names and signature; change as little as you need.",
        (
            "causal_lm_loss(logits (B, L, V), tokens (B, L), pad_id) -> scalar: the mean "
            "cross-entropy of predicting tokens[:, t + 1] from logits[:, t] over non-pad targets.",
        ),
        (),
        BUG_LM_LOSS,
        ("Which token does logits[:, 0] predict?", "What happens to pad targets?"),
        "Bug 1: the shift goes the wrong way: logits[:, :-1] predict tokens[:, 1:]. Bug 2: pad "
        "targets are counted: ignore_index=pad_id.",
        ("references:causal_lm_loss",),
        {"causal_lm_loss": ("checks_decoding:check_lm_loss", ())},
        bug=True,
    ),
)
