"""The course contract's exercises, once: the one table everything else derives from.

Each row is an exercise of ``COURSE_SPEC.md`` and carries every fact about it except its check
(``autograder/lessons/<lesson>/checks.py``): its name (the function or class a learner defines),
the lesson folder that teaches and checks it (named like ``solutions/<lesson>/``), its reference
in ``course_lib``, its points, its signature as the contract fixes it, its kind (a function, an
``nn.Module``, a plain class with state), the method a class is used through, and what it must
do. Derived from this table, never copied: the grader's exercises and their order
(``autograder.core.registry``), the parameter names in the checks' messages
(``autograder.kit.calling``), the drills and their blank files (``autograder.drill``), the
reference modules the sandbox hides from learners, and the tests' lists of exercises.
``course_lib.__all__`` is checked against it by a test (``course_lib`` imports nothing of the
grader).

This module imports nothing of the course but ``autograder.core.syntax`` (the standard library
behind a lock), so that anything may import it.
"""

from __future__ import annotations

from dataclasses import dataclass

from autograder.core import syntax

KINDS = ("function", "module", "stateful")  # a function, an nn.Module, a plain class


@dataclass(frozen=True)
class Exercise:
    """One exercise of the course: every fact about it that is not its check."""

    name: str  # the contract name: a function or class the learner defines
    lesson: str  # the lesson folder, e.g. "04_softmax_masks"
    reference: str  # course_lib's implementation, "module:name" in course_lib
    points: int
    signature: str  # the contract's parameters, e.g. "(x, dim=-1)" (a class: its constructor)
    kind: str  # one of KINDS
    method: str  # the call a class is used through, e.g. "forward(x, mask=None)"; "" otherwise
    spec: str  # what it must do, as COURSE_SPEC.md states it (a drill's blank file shows it)

    def __post_init__(self) -> None:
        object.__setattr__(self, "reference", f"course_lib.{self.reference}")
        if self.kind not in KINDS or bool(self.method) == (self.kind == "function"):
            raise ValueError(f"{self.name}: kind {self.kind!r} with method {self.method!r}")

    @property
    def module(self) -> str:
        """The reference's module, e.g. ``"course_lib.attention"``."""
        return self.reference.partition(":")[0]

    @property
    def params(self) -> tuple[str, ...]:
        """The names of the signature's parameters, in order."""
        return _params(self.signature)

    @property
    def method_name(self) -> str:
        """``"forward"`` of ``"forward(x, mask=None)"``; "" for a function."""
        return self.method.partition("(")[0]

    @property
    def method_params(self) -> tuple[str, ...]:
        """The names of the method's parameters (without ``self``), in order."""
        return _params(self.method[len(self.method_name) :]) if self.method else ()


def _params(signature: str) -> tuple[str, ...]:
    args = syntax.parse(f"def f{signature}: pass").body[0].args
    return tuple(a.arg for a in args.posonlyargs + args.args + args.kwonlyargs)


# Columns: name, lesson folder, reference (module:name in course_lib), points, signature, kind,
# method (a class's forward or append), spec (COURSE_SPEC.md's text).
CONTRACT: tuple[Exercise, ...] = (
    Exercise(
        "project_qkv",
        "01_projections",
        "projections:project_qkv",
        1,
        "(x, w_q, w_k, w_v)",
        "function",
        "",
        "returns (q, k, v) = (x @ w_q, x @ w_k, x @ w_v); w_*: (d_model, d_k or d_v).",
    ),
    Exercise(
        "QKVProjection",
        "01_projections",
        "projections:QKVProjection",
        2,
        "(d_model, d_k, d_v)",
        "module",
        "forward(x)",
        "nn.Module with attributes w_q, w_k, w_v = nn.Linear(d_model, d_*, bias=False); "
        "forward(x) -> (q, k, v).",
    ),
    Exercise(
        "attention_scores",
        "02_qkt",
        "attention:attention_scores",
        1,
        "(q, k)",
        "function",
        "",
        "unscaled q @ k^T, shape (..., Lq, Lk).",
    ),
    Exercise(
        "scaled_attention_scores",
        "03_scaling",
        "attention:scaled_attention_scores",
        1,
        "(q, k)",
        "function",
        "",
        "q @ k^T / sqrt(d_k), shape (..., Lq, Lk).",
    ),
    Exercise(
        "dot_product_variance",
        "03_scaling",
        "scaling:dot_product_variance",
        1,
        "(d_k, num_samples=100000, generator=None)",
        "function",
        "",
        "the empirical variance (a Python float) of q . k for q, k with i.i.d. N(0, 1) "
        "entries of length d_k (about d_k); use `generator` for the samples.",
    ),
    Exercise(
        "softmax_entropy",
        "03_scaling",
        "scaling:softmax_entropy",
        1,
        "(weights, dim=-1)",
        "function",
        "",
        "Shannon entropy in nats of each distribution along `dim`; 0 * log 0 = 0.",
    ),
    Exercise(
        "softmax",
        "04_softmax_masks",
        "attention:softmax",
        1,
        "(x, dim=-1)",
        "function",
        "",
        "numerically stable softmax along `dim` without torch.softmax / F.softmax; a row of "
        "all -inf gives zeros; huge finite inputs give no NaN or inf.",
    ),
    Exercise(
        "causal_mask",
        "04_softmax_masks",
        "masks:causal_mask",
        1,
        "(seq_len, device=None)",
        "function",
        "",
        "bool (L, L) on `device`, True where key index <= query index.",
    ),
    Exercise(
        "padding_mask",
        "04_softmax_masks",
        "masks:padding_mask",
        1,
        "(lengths, max_len)",
        "function",
        "",
        "bool (B, max_len), True at real (non-pad) positions; lengths: (B,) int tensor.",
    ),
    Exercise(
        "masked_scores",
        "04_softmax_masks",
        "masks:masked_scores",
        1,
        "(scores, mask)",
        "function",
        "",
        "the scores with masked-out (False) positions set so that softmax gives them weight "
        "exactly 0, in any float dtype (float16 included).",
    ),
    Exercise(
        "scaled_dot_product_attention",
        "05_attention",
        "attention:scaled_dot_product_attention",
        2,
        "(q, k, v, mask=None)",
        "function",
        "",
        "returns (output (..., Lq, d_v), weights (..., Lq, Lk)); output matches "
        "F.scaled_dot_product_attention(q, k, v, attn_mask=mask). `mask` is either bool (True "
        "= may attend) or float (added to the scores before the softmax, like SDPA's float "
        "attn_mask; -inf entries block). The output keeps the inputs' dtype, also when a "
        "float32 mask comes with half-precision inputs; add such a mask as "
        "mask.to(scores.dtype).",
    ),
    Exercise(
        "SelfAttention",
        "05_attention",
        "attention:SelfAttention",
        2,
        "(d_model, d_k, d_v)",
        "module",
        "forward(x, mask=None)",
        "nn.Module with attributes w_q, w_k, w_v = nn.Linear(d_model, d_*, bias=False); "
        "forward(x, mask=None) -> (output, weights).",
    ),
    Exercise(
        "split_heads",
        "06_multihead",
        "multihead:split_heads",
        1,
        "(x, num_heads)",
        "function",
        "",
        "(B, L, h * d_head) -> (B, h, L, d_head); head i takes features [i * d_head, (i + 1) "
        "* d_head).",
    ),
    Exercise(
        "merge_heads",
        "06_multihead",
        "multihead:merge_heads",
        1,
        "(x)",
        "function",
        "",
        "the inverse of split_heads: (B, h, L, d_head) -> (B, L, h * d_head).",
    ),
    Exercise(
        "MultiHeadAttention",
        "06_multihead",
        "multihead:MultiHeadAttention",
        2,
        "(d_model, num_heads, bias=False)",
        "module",
        "forward(query, key=None, value=None, mask=None)",
        "nn.Module with attributes w_q, w_k, w_v, w_o = nn.Linear(d_model, d_model, "
        "bias=bias); forward(query, key=None, value=None, mask=None) -> (output (B, Lq, "
        "d_model), weights (B, h, Lq, Lk)); the mask (bool or float, as in SDPA) broadcasts "
        "to (B, h, Lq, Lk); self-attention when key and value are None, and value defaults to "
        "key; a d_model that is not a multiple of num_heads raises ValueError. With the "
        "weights of nn.MultiheadAttention copied in (in_proj chunks q, k, v; out_proj is w_o) "
        "it matches it wherever a query has a key left to attend to.",
    ),
    Exercise(
        "mha_num_parameters",
        "06_multihead",
        "multihead:mha_num_parameters",
        1,
        "(d_model, num_heads, bias=False)",
        "function",
        "",
        "int, the number of parameters of MultiHeadAttention(d_model, num_heads, bias), from "
        "the formula: arithmetic on the arguments, with no module or tensor built.",
    ),
    Exercise(
        "sinusoidal_positional_encoding",
        "07_positions",
        "positions:sinusoidal_positional_encoding",
        1,
        "(max_len, d_model)",
        "function",
        "",
        "(max_len, d_model); PE[p, 2i] = sin(p / 10000^(2i / d_model)), PE[p, 2i + 1] = "
        "cos(same); an odd d_model raises ValueError.",
    ),
    Exercise(
        "LearnedPositionalEmbedding",
        "07_positions",
        "positions:LearnedPositionalEmbedding",
        2,
        "(max_len, d_model)",
        "module",
        "forward(x)",
        "nn.Module with attribute embedding = nn.Embedding(max_len, d_model); forward(x: (B, "
        "L, d_model)) returns x plus the embeddings of positions 0..L-1; L > max_len raises "
        "ValueError.",
    ),
    Exercise(
        "apply_rope",
        "07_positions",
        "positions:apply_rope",
        2,
        "(x, positions=None, base=10000.0)",
        "function",
        "",
        "rotates each pair (x[..., 2i], x[..., 2i+1]) by the angle p * base^(-2i/d) "
        "(RoFormer's interleaved pairs); positions defaults to 0..L-1; same dtype out as in.",
    ),
    Exercise(
        "FeedForward",
        "08_blocks",
        "blocks:FeedForward",
        2,
        "(d_model, d_ff, dropout=0.0)",
        "module",
        "forward(x)",
        "nn.Module with attributes linear1 = nn.Linear(d_model, d_ff), linear2 = "
        "nn.Linear(d_ff, d_model) (with bias); linear2(dropout(relu(linear1(x)))), dropout "
        "`dropout`.",
    ),
    Exercise(
        "TransformerBlock",
        "08_blocks",
        "blocks:TransformerBlock",
        2,
        "(d_model, num_heads, d_ff, dropout=0.0, norm_first=True)",
        "module",
        "forward(x, mask=None)",
        "nn.Module with attributes attn (your MultiHeadAttention, bias=True), ff (your "
        "FeedForward), norm1, norm2 (nn.LayerNorm); Pre-LN when norm_first else Post-LN; "
        "forward(x, mask=None) -> x; with weights copied it matches "
        "nn.TransformerEncoderLayer(batch_first=True, norm_first=..., dropout=0).",
    ),
    Exercise(
        "TinyTransformer",
        "08_blocks",
        "blocks:TinyTransformer",
        2,
        "(vocab_size, d_model, num_heads, num_layers, d_ff, max_len)",
        "module",
        "forward(tokens)",
        "a causal decoder-only language model: token and position embeddings, Pre-LN "
        "TransformerBlocks, a final LayerNorm and a linear layer; forward(tokens: (B, L) "
        "long) -> logits (B, L, vocab_size).",
    ),
    Exercise(
        "sliding_window_mask",
        "09_efficient",
        "masks:sliding_window_mask",
        1,
        "(seq_len, window)",
        "function",
        "",
        "bool (L, L), True where 0 <= i - j < window.",
    ),
    Exercise(
        "tiled_attention",
        "09_efficient",
        "efficient:tiled_attention",
        2,
        "(q, k, v, block_size=64, causal=False)",
        "function",
        "",
        "the output only (no weights); online softmax over blocks of keys (FlashAttention's "
        "algorithm); equals SDPA; causal=True is SDPA's is_causal=True (query i sees keys 0..i, "
        "also when Lq != Lk); never builds an (Lq, Lk) matrix.",
    ),
    Exercise(
        "KVCache",
        "09_efficient",
        "efficient:KVCache",
        2,
        "()",
        "stateful",
        "append(k, v)",
        "a plain class; append(k, v) -> (k_all, v_all), concatenating along the sequence dim (-2).",
    ),
)

BY_NAME: dict[str, Exercise] = {e.name: e for e in CONTRACT}
NAMES: tuple[str, ...] = tuple(BY_NAME)

# The modules holding the references, in course order (the sandbox hides their source).
REFERENCE_MODULES: tuple[str, ...] = tuple(dict.fromkeys(e.module for e in CONTRACT))


def of_lesson(lesson: str) -> tuple[Exercise, ...]:
    """The exercises of one lesson folder, in course order."""
    return tuple(e for e in CONTRACT if e.lesson == lesson)


def lessons() -> tuple[str, ...]:
    """The lesson folders that have exercises, in course order."""
    return tuple(dict.fromkeys(e.lesson for e in CONTRACT))
