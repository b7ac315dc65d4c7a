"""The drills: each contract exercise, plus composite whiteboard drills that grade several.

A drill names the contract exercises it grades (rows of :mod:`autograder.contract`), so it is
graded by the same checks, with the same named mistakes, as the lessons. What the checks rely on
and a learner cannot guess (the return value, the mask polarity, the layer names) is written into
the blank file ``start`` gives, from each exercise's ``spec`` (the contract's text) and
:data:`CONVENTIONS`.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from autograder import contract
from autograder.i18n import _

# The conventions every check relies on, and which exercises each applies to.
_ATTENTION = ("scaled_dot_product_attention", "SelfAttention", "MultiHeadAttention")
_MASKED = _ATTENTION + ("masked_scores", "TransformerBlock")
CONVENTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Tensors are batch-first, (..., seq_len, dim); any number of leading batch dims works; "
        "Lq, Lk, d_k, d_v may all differ.",
        tuple(contract.NAMES),
    ),
    ("Return a tuple (output, weights), not just the output.", _ATTENTION),
    (
        "A bool mask broadcasts to (..., Lq, Lk) and True = this query MAY attend to this key "
        "(F.scaled_dot_product_attention's convention; nn.MultiheadAttention's is the opposite).",
        _MASKED + ("causal_mask", "padding_mask", "sliding_window_mask"),
    ),
    (
        "A query whose keys are all masked gets all-zero weights and an all-zero output (no NaN), "
        "as F.scaled_dot_product_attention gives in current PyTorch; nn.MultiheadAttention gives "
        "NaN there.",
        _MASKED + ("softmax",),
    ),
    (
        "Block with -inf, not -1e9 (-1e9 overflows float16).",
        _MASKED,
    ),
    (
        "Create every tensor on the input's device with the input's dtype.",
        tuple(n for n in contract.NAMES if n != "tiled_attention"),
    ),
    (
        "Create every tensor on the input's device. With float16/bfloat16 inputs, accumulate in "
        "float32 (the running max, the running sum and the output, as FlashAttention does) and "
        "return the output in the input's dtype: accumulating in half precision is rejected. "
        "float32 and float64 inputs are computed in their own dtype (q.float() would round "
        "float64 down).",
        ("tiled_attention",),
    ),
    (
        "Layers are nn.Linear attributes named exactly as in the contract (the checks load known "
        "weights into them by name).",
        tuple(e.name for e in contract.CONTRACT if e.kind == "module"),
    ),
    (
        "Do not call what the drill asks you to build (F.scaled_dot_product_attention, "
        "nn.MultiheadAttention, torch.softmax in softmax, ...) or course_lib: no points for it. "
        "Helpers you write yourself in the same file are fine.",
        tuple(contract.NAMES),
    ),
)


def conventions(exercises: tuple[str, ...]) -> list[str]:
    return [text for text, applies in CONVENTIONS if set(exercises) & set(applies)]


@dataclass(frozen=True)
class Drill:
    name: str  # what `drill start NAME` takes
    title: str
    exercises: tuple[str, ...]  # the contract exercises it grades
    difficulty: int  # 1 easy .. 3 hard
    minutes: int  # the target time
    statement: str = ""  # the problem, beyond the exercises' spec lines
    hints: tuple[str, ...] = ()  # in levels; the catalogue's mistakes come after them
    explanation: str = ""  # shown with the model answer

    @property
    def target_seconds(self) -> float:
        return 60.0 * self.minutes


def _difficulty(ex: contract.Exercise) -> int:
    return min(3, ex.points + (ex.kind == "module"))


COMPOSITES = (
    Drill(
        "sdpa-mask",
        "SDPA with an additive or bool mask",
        ("scaled_dot_product_attention",),
        2,
        10,
        "The classic whiteboard question. Before you write code, say which mask convention you "
        "use (here: bool True = may attend, as F.scaled_dot_product_attention; a float mask is "
        "added to the scores). Write softmax(q k^T / sqrt(d_k) + mask) v for both mask forms, "
        "returning the weights too.",
        (
            "Write the shapes first: scores are (..., Lq, Lk) = q @ k.transpose(-2, -1).",
            "Scale by sqrt(d_k) = sqrt(q.size(-1)) before masking. A bool mask: fill the False "
            "positions with -inf (masked_fill). A float mask: scores + mask.to(scores.dtype).",
            "A row that is all -inf gives NaN in softmax: replace NaN rows by 0 (torch.nan_to_num "
            "or torch.where on the row's max being -inf).",
        ),
        "Scaling keeps the variance of the scores at 1 whatever d_k is; the mask must go in "
        "before the softmax so the remaining weights renormalise; -inf (not -1e9) survives "
        "float16; a fully masked row is defined as zeros, as PyTorch's SDPA does.",
    ),
    Drill(
        "mha",
        "MHA from scratch",
        ("MultiHeadAttention",),
        3,
        20,
        "Multi-head attention as nn.Module. Project query, key and value with w_q, w_k, w_v, "
        "split d_model into num_heads slices of d_head = d_model // num_heads, attend per head "
        "(scale by sqrt(d_head)), merge the heads and mix them with w_o.",
        (
            "Shapes: (B, L, d_model) -> view (B, L, h, d_head) -> transpose (B, h, L, d_head).",
            "The mask broadcasts to the per-head scores (B, h, Lq, Lk), e.g. (Lq, Lk) or "
            "(B, 1, Lq, Lk): apply it to each head's scores as in SDPA (a caller with a (B, Lk) "
            "padding mask passes mask[:, None, None, :]).",
            "key and value default to query (self-attention). Merge: transpose(1, 2) then "
            "reshape (B, Lq, d_model), then w_o.",
        ),
        "Heads are slices of the projected features, not copies: the parameter count is "
        "4 * d_model^2 (+ biases) whatever the number of heads. Scale by sqrt(d_head), not "
        "sqrt(d_model). (The reference's extra `cache` argument is lesson 09's KV cache, not "
        "part of this drill.)",
    ),
    Drill(
        "masks",
        "causal mask + padding mask",
        ("causal_mask", "padding_mask", "masked_scores"),
        2,
        10,
        "Build a causal mask and a padding mask, and apply a mask to scores. A decoder combines "
        "them: causal (L, L) & padding[:, None, :] (B, 1, L) -> (B, L, L).",
        (
            "torch.tril(torch.ones(L, L, dtype=torch.bool)) is True on and below the diagonal.",
            "Padding: torch.arange(max_len) < lengths[:, None].",
            "masked_scores: scores.masked_fill(~mask, float('-inf')) - not in place.",
        ),
        "True = may attend throughout; the padding mask masks keys (columns), not queries.",
    ),
    Drill(
        "rope",
        "RoPE",
        ("apply_rope",),
        3,
        15,
        "Rotary position embedding: rotate each interleaved pair of features by an angle that "
        "grows with the position, so that q_m . k_n depends only on m - n.",
        (
            "theta_i = base^(-2i/d) for i in 0..d/2-1; angle = positions[:, None] * theta.",
            "Pairs are x[..., 0::2] and x[..., 1::2]: (a, b) -> (a cos - b sin, a sin + b cos).",
            "Interleave back with torch.stack([..., ...], dim=-1).flatten(-2); keep x's dtype.",
        ),
        "A rotation by p * theta of q and by n * theta of k leaves their dot product depending "
        "only on p - n: relative positions from an absolute operation.",
    ),
    Drill(
        "tiled",
        "tiled attention",
        ("tiled_attention",),
        3,
        25,
        "FlashAttention's algorithm: loop over blocks of keys, keep a running row max m, a "
        "running denominator l and an unnormalised output; rescale them when the max grows.",
        (
            "For each key block: s = q @ k_blk^T * scale; m_new = max(m, s.max(-1)).",
            "Rescale: l = l * exp(m - m_new) + exp(s - m_new).sum(-1); the same factor for the "
            "output accumulator.",
            "causal=True: mask the block's scores where key index > query index; divide by l "
            "at the end.",
        ),
        "Exact, not approximate: the online softmax gives the same result as a full softmax "
        "while holding only (Lq, block) scores at a time.",
    ),
)


def _title(spec: str, most: int = 60) -> str:
    """A drill's title from its contract row's spec (in English or in Chinese): the first clause,
    at most ``most`` characters."""
    text = spec.split("; ")[0].split("；")[0].strip().rstrip(".。")
    if len(text) <= most:
        return text
    space = text.rfind(" ", 0, most - 3)
    return text[: space if space > most // 2 else most - 3].rstrip(",;:，；：") + "..."


def title(drill) -> str:
    """The drill's title in the reader's language (a single exercise's drill: from its spec)."""
    ex = contract.BY_NAME.get(drill.name)
    if ex is not None and drill.title == _title(ex.spec):
        return _title(_(ex.spec))
    return _(drill.title)


def _single(ex: contract.Exercise) -> Drill:
    d = _difficulty(ex)
    return Drill(ex.name, _title(ex.spec), (ex.name,), d, 5 * d, explanation="")


# One drill per thing graded: where a whiteboard drill grades exactly one exercise (sdpa-mask:
# scaled_dot_product_attention), it is that exercise's drill, with a statement, hints and a
# target time; the exercise's name is another name for it (start, hint, history all accept it).
ALIASES: dict[str, str] = {d.exercises[0]: d.name for d in COMPOSITES if len(d.exercises) == 1}

# The drills beyond the course's exercises (autograder/drill/extra), after the course's own.
from autograder.drill.extra.drills import DRILLS as NEW_DRILLS  # noqa: E402

DRILLS: dict[str, Drill] = {
    d.name: d
    for d in (
        *(_single(ex) for ex in contract.CONTRACT if ex.name not in ALIASES),
        *COMPOSITES,
        *NEW_DRILLS,
    )
}


def canonical(name: str) -> str:
    """The drill's name, for a drill's name or an exercise a whiteboard drill grades."""
    return ALIASES.get(name, name)


def find(name: str) -> Drill:
    """The drill named ``name`` (``KeyError`` with the list when there is none)."""
    if canonical(name) in DRILLS:
        return DRILLS[canonical(name)]
    close = difflib.get_close_matches(name, [*DRILLS, *ALIASES], n=3, cutoff=0.6)
    if close:
        raise KeyError(f"no drill named {name!r}; did you mean {' or '.join(close)}?")
    raise KeyError(f"no drill named {name!r}; `drill list` shows them all")
