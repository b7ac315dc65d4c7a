"""The new attention drills: grouped-query, multi-query and cross-attention, the decoder block."""

from __future__ import annotations

from autograder.drill.extra.base import ATTENTION_FORBID, NewDrill, _stub_class
from autograder.i18n import N_

_MASK = N_(
    "A bool mask is True where a query MAY attend (F.scaled_dot_product_attention's convention)."
)
_NO_BUILTIN = N_(
    "Do not call F.scaled_dot_product_attention or nn.MultiheadAttention: write attention."
)
_LINEARS = N_(
    "Layers are nn.Linear attributes named as stated: the checks load known weights by name."
)


_ATTENTION_MISTAKES = ("scaled-by-d-model", "mask-polarity-inverted")

DRILLS = (
    NewDrill(
        "gqa",
        "grouped-query attention",
        ("GroupedQueryAttention",),
        3,
        15,
        "Grouped-query attention (LLaMA 2/3, Mistral): num_heads query heads share num_kv_heads "
        "key/value heads, which shrinks the KV cache by num_heads / num_kv_heads.",
        (
            "GroupedQueryAttention(d_model, num_heads, num_kv_heads): nn.Linear attributes "
            "w_q (d_model -> d_model), w_k and w_v (d_model -> num_kv_heads * d_head), w_o "
            "(d_model -> d_model), all bias=False; d_head = d_model // num_heads.",
            "forward(x, mask=None) -> output (B, L, d_model); mask: bool, broadcastable to "
            "(B, num_heads, L, L).",
            "Query head i uses key/value head i // (num_heads // num_kv_heads) (LLaMA's "
            "repeat_kv). A d_model or num_heads that does not divide raises ValueError.",
            _MASK,
            _NO_BUILTIN,
            _LINEARS,
        ),
        (
            "k.repeat(1, n_rep, 1, 1) pairs query heads with the wrong key/value heads: use "
            "repeat_interleave along the head dim.",
            "Scale by sqrt(d_head), not sqrt(d_model).",
        ),
        _stub_class(
            "GroupedQueryAttention",
            "(self, d_model, num_heads, num_kv_heads)",
            "(self, x, mask=None)",
        ),
        (
            "Shapes: q (B, h, L, d_head); k, v (B, g, L, d_head) with g = num_kv_heads.",
            "Give each query head its key/value head: k.repeat_interleave(h // g, dim=1) -> "
            "(B, h, L, d_head); then attention as in MHA.",
            "Merge: transpose(1, 2).reshape(B, L, d_model), then w_o.",
        ),
        "GQA interpolates between MHA (g = h) and MQA (g = 1): the KV cache holds g heads "
        "instead of h, for a small loss in quality (Ainslie et al., 2023).",
        ("references:_attend", "references:GroupedQueryAttention"),
        {"GroupedQueryAttention": ("checks_attention:check_gqa", ATTENTION_FORBID)},
        course_mistakes=_ATTENTION_MISTAKES + ("missing-output-projection", "no-value-error"),
    ),
    NewDrill(
        "mqa",
        "multi-query attention",
        ("MultiQueryAttention",),
        2,
        12,
        "Multi-query attention (Shazeer, 2019; PaLM, Falcon): every query head shares one key "
        "head and one value head.",
        (
            "MultiQueryAttention(d_model, num_heads): nn.Linear attributes w_q (d_model -> "
            "d_model), w_k and w_v (d_model -> d_head), w_o (d_model -> d_model), bias=False.",
            "forward(x, mask=None) -> output (B, L, d_model); mask: bool, broadcastable to "
            "(B, num_heads, L, L).",
            _MASK,
            _NO_BUILTIN,
            _LINEARS,
        ),
        (
            "The shared k, v (B, 1, L, d_head) broadcast against q (B, h, L, d_head) in matmul.",
            "Scale by sqrt(d_head).",
        ),
        _stub_class("MultiQueryAttention", "(self, d_model, num_heads)", "(self, x, mask=None)"),
        (
            "k = w_k(x)[:, None] is (B, 1, L, d_head): q @ k.transpose(-2, -1) broadcasts over "
            "the heads.",
            "weights @ v broadcasts the same way; merge the heads and apply w_o.",
        ),
        "One key/value head cuts the KV cache by num_heads times; GQA is the compromise.",
        (
            "references:_attend",
            "references:GroupedQueryAttention",
            "references:MultiQueryAttention",
        ),
        {"MultiQueryAttention": ("checks_attention:check_mqa", ATTENTION_FORBID)},
        course_mistakes=_ATTENTION_MISTAKES + ("missing-output-projection",),
    ),
    NewDrill(
        "cross-attention",
        "cross-attention: queries from x, keys and values from the memory",
        ("CrossAttention",),
        2,
        12,
        "The decoder's queries attend to the encoder's output (the memory), which may be padded.",
        (
            "CrossAttention(d_model, num_heads): nn.Linear(d_model, d_model) attributes w_q, w_k, "
            "w_v, w_o (with bias).",
            "forward(x (B, Lq, d_model), memory (B, Lk, d_model), memory_mask=None) -> output "
            "(B, Lq, d_model); memory_mask: bool (B, Lk), True at real (non-pad) memory tokens.",
            _NO_BUILTIN,
            _LINEARS,
        ),
        (
            "Lq and Lk differ: the memory mask marks keys, so it broadcasts as "
            "memory_mask[:, None, None, :].",
        ),
        _stub_class(
            "CrossAttention", "(self, d_model, num_heads)", "(self, x, memory, memory_mask=None)"
        ),
        (
            "q from x, k and v from memory.",
            "Scores (B, h, Lq, Lk); mask the padded keys.",
            "Merge the heads and apply w_o.",
        ),
        "Cross-attention is MHA with queries from one sequence and keys/values from another; no "
        "causal mask: the whole source is visible.",
        ("references:_attend", "references:Attention", "references:CrossAttention"),
        {"CrossAttention": ("checks_attention:check_cross_attention", ATTENTION_FORBID)},
        course_mistakes=_ATTENTION_MISTAKES,
    ),
    NewDrill(
        "decoder-block",
        "encoder-decoder: the decoder block",
        ("DecoderBlock",),
        3,
        25,
        "The decoder block of an encoder-decoder Transformer, Pre-LN: causal self-attention, "
        "cross-attention to the encoder's output, a feed-forward layer.",
        (
            "DecoderBlock(d_model, num_heads, d_ff): attributes self_attn and cross_attn (each "
            "with nn.Linear(d_model, d_model) w_q, w_k, w_v, w_o, with bias), linear1 "
            "(d_model -> d_ff), linear2 (d_ff -> d_model), norm1, norm2, norm3 (nn.LayerNorm).",
            "forward(x (B, Lt, d_model), memory (B, Ls, d_model), memory_mask=None) -> (B, Lt, "
            "d_model); memory_mask: bool (B, Ls), True at real source tokens.",
            "With weights copied it matches nn.TransformerDecoderLayer(batch_first=True, "
            "norm_first=True, dropout=0) under a causal tgt_mask. ReLU in the feed-forward.",
            "Do not use nn.MultiheadAttention or nn.TransformerDecoderLayer; "
            "F.scaled_dot_product_attention is allowed. Helper classes in the file are fine.",
        ),
        (
            "Pre-LN: x = x + sublayer(norm(x)), three times; the memory itself is not normalised.",
            "Only the self-attention is causal.",
        ),
        _stub_class(
            "DecoderBlock",
            "(self, d_model, num_heads, d_ff)",
            "(self, x, memory, memory_mask=None)",
        ),
        (
            "Write one attention module (w_q, w_k, w_v, w_o) taking (query, kv, mask); use it "
            "twice.",
            "x = x + self_attn(norm1(x), norm1(x), causal); x = x + cross_attn(norm2(x), memory, "
            "padding); x = x + linear2(relu(linear1(norm3(x)))).",
            "The padding mask (B, Ls) becomes memory_mask[:, None, None, :].",
        ),
        "The decoder block adds cross-attention between the causal self-attention and the "
        "feed-forward layer; Pre-LN keeps an identity path through the residual stream.",
        (
            "references:_attend",
            "references:Attention",
            "references:CrossAttention",
            "references:DecoderBlock",
        ),
        {
            "DecoderBlock": (
                "checks_attention:check_decoder_block",
                (
                    "torch.nn.MultiheadAttention",
                    "torch.nn.TransformerDecoderLayer",
                    "torch.nn.TransformerDecoder",
                    "torch.nn.Transformer",
                ),
            )
        },
        course_mistakes=("pre-post-ln-swapped",),
    ),
)
