"""The course contract's exercises, once: the one table everything else derives from.

Each row is an exercise of ``COURSE_SPEC.md``: its name (the function or class a learner
defines), the lesson folder that teaches and checks it (``autograder/lessons/<lesson>/``, named
like ``solutions/<lesson>/``), its reference in ``course_lib`` (``"module:name"``), its signature
as the contract fixes it, and its points. Derived from this table, never copied:
``course_lib.__all__`` and ``course_lib.EXERCISES``, the grader's exercises and their order
(``autograder.core.registry``), the parameter names in the checks' messages (``autograder.kit``),
the
reference modules the sandbox hides from learners, and the tests' lists of exercises.

This module imports nothing of the course, so that anything (``course_lib`` included) may import it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Exercise:
    name: str  # the contract name: a function or class the learner defines
    lesson: str  # the lesson folder, e.g. "04_softmax_masks"
    reference: str  # course_lib's implementation, "course_lib.module:name"
    signature: str  # the contract's parameters, e.g. "(x, dim=-1)" (a class: its constructor)
    points: int

    @property
    def module(self) -> str:
        """The reference's module, e.g. ``"course_lib.attention"``."""
        return self.reference.partition(":")[0]

    @property
    def params(self) -> tuple[str, ...]:
        """The names of the signature's parameters, in order."""
        args = ast.parse(f"def f{self.signature}: pass").body[0].args
        return tuple(a.arg for a in args.posonlyargs + args.args + args.kwonlyargs)


def _table(text: str) -> tuple[Exercise, ...]:
    rows = []
    for line in text.strip().splitlines():
        name, lesson, reference, points, signature = line.split(maxsplit=4)
        rows.append(Exercise(name, lesson, reference, signature, int(points)))
    return tuple(rows)


# Columns: name, lesson folder, reference, points, signature (the contract's parameters).
CONTRACT = _table(
    """
project_qkv                     01_projections    course_lib.projections:project_qkv                1 (x, w_q, w_k, w_v)
QKVProjection                   01_projections    course_lib.projections:QKVProjection              2 (d_model, d_k, d_v)
attention_scores                02_qkt            course_lib.attention:attention_scores             1 (q, k)
scaled_attention_scores         03_scaling        course_lib.attention:scaled_attention_scores      1 (q, k)
dot_product_variance            03_scaling        course_lib.scaling:dot_product_variance           1 (d_k, num_samples=100000, generator=None)
softmax_entropy                 03_scaling        course_lib.scaling:softmax_entropy                1 (weights, dim=-1)
softmax                         04_softmax_masks  course_lib.attention:softmax                      1 (x, dim=-1)
causal_mask                     04_softmax_masks  course_lib.masks:causal_mask                      1 (seq_len, device=None)
padding_mask                    04_softmax_masks  course_lib.masks:padding_mask                     1 (lengths, max_len)
masked_scores                   04_softmax_masks  course_lib.masks:masked_scores                    1 (scores, mask)
scaled_dot_product_attention    05_attention      course_lib.attention:scaled_dot_product_attention 2 (q, k, v, mask=None)
SelfAttention                   05_attention      course_lib.attention:SelfAttention                2 (d_model, d_k, d_v)
split_heads                     06_multihead      course_lib.multihead:split_heads                  1 (x, num_heads)
merge_heads                     06_multihead      course_lib.multihead:merge_heads                  1 (x)
MultiHeadAttention              06_multihead      course_lib.multihead:MultiHeadAttention           2 (d_model, num_heads, bias=False)
mha_num_parameters              06_multihead      course_lib.multihead:mha_num_parameters           1 (d_model, num_heads, bias=False)
sinusoidal_positional_encoding  07_positions      course_lib.positions:sinusoidal_positional_encoding 1 (max_len, d_model)
LearnedPositionalEmbedding      07_positions      course_lib.positions:LearnedPositionalEmbedding   2 (max_len, d_model)
apply_rope                      07_positions      course_lib.positions:apply_rope                   2 (x, positions=None, base=10000.0)
FeedForward                     08_blocks         course_lib.blocks:FeedForward                     2 (d_model, d_ff, dropout=0.0)
TransformerBlock                08_blocks         course_lib.blocks:TransformerBlock                2 (d_model, num_heads, d_ff, dropout=0.0, norm_first=True)
TinyTransformer                 08_blocks         course_lib.blocks:TinyTransformer                 2 (vocab_size, d_model, num_heads, num_layers, d_ff, max_len)
sliding_window_mask             09_efficient      course_lib.masks:sliding_window_mask              1 (seq_len, window)
tiled_attention                 09_efficient      course_lib.efficient:tiled_attention              2 (q, k, v, block_size=64, causal=False)
KVCache                         09_efficient      course_lib.efficient:KVCache                      2 ()
"""  # noqa: E501
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
