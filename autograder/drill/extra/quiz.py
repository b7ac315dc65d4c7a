"""Conceptual questions about the new drills' topics, asked by ``drill quiz`` after lesson 10's.

Numbers are computed (from the formula or the model answer), never quoted; each multiple-choice
question's wrong options are misconceptions stated as carefully, and at the same length, as the
right one, so that the answer cannot be picked by its style.
"""

from __future__ import annotations

import torch

import autograder.drill.extra.references as references
from autograder.questions import Question


def _kv_bytes_per_token(layers=80, kv_heads=8, d_head=128, bytes_per_value=2) -> int:
    return 2 * layers * kv_heads * d_head * bytes_per_value  # keys and values


def _mqa_parameters(d_model=512, num_heads=8) -> int:
    with torch.device("meta"):
        module = references.MultiQueryAttention(d_model, num_heads)
    return sum(p.numel() for p in module.parameters())


QUESTIONS = [
    Question(
        "x_1",
        "A decoder with 80 layers, 64 query heads of width 128 and 8 key/value heads "
        "(grouped-query attention) caches keys and values in float16. How many bytes of KV "
        "cache does one token take?",
        "int",
        _kv_bytes_per_token(),
        hint="Per layer the cache holds a key and a value for each key/value head, not for "
        "each query head.",
        why="2 (key and value) x 80 layers x 8 kv heads x 128 x 2 bytes: grouped-query "
        "attention divides the cache by 64 / 8 = 8 compared with multi-head attention.",
        known_wrong={
            _kv_bytes_per_token(kv_heads=64): "that caches all 64 query heads: with GQA only the "
            "8 key/value heads are cached",
            _kv_bytes_per_token() // 2: "that counts the keys only: the values are cached too",
            _kv_bytes_per_token(bytes_per_value=4): "that is float32: float16 is 2 bytes",
        },
    ),
    Question(
        "x_2",
        "How many parameters has MultiQueryAttention(d_model=512, num_heads=8) without biases "
        "(w_q and w_o: 512 x 512; w_k and w_v: one shared head)?",
        "int",
        _mqa_parameters(),
        hint="w_k and w_v map d_model to one head of width d_model / num_heads.",
        why="2 x 512^2 + 2 x 512 x 64: the shared key/value head saves 2 x 512 x (512 - 64) "
        "parameters over MHA, and much more KV cache.",
        known_wrong={
            4 * 512 * 512: "that is multi-head attention: w_k and w_v have one head here",
            2 * 512 * 512: "that forgets w_k and w_v",
        },
    ),
    Question(
        "x_3",
        'What does RMSNorm change compared with LayerNorm? Answer with a letter ("a", "b" or '
        '"c"). (a) it skips the mean subtraction and the bias, rescaling each vector by its '
        "root mean square times a learned gain; (b) it keeps the mean subtraction but drops "
        "the learned gain, so it normalises each vector without any trainable parameter; (c) "
        "it computes its statistics over the batch, as BatchNorm does, but without keeping "
        "running averages for inference.",
        "choice",
        "a",
        hint="Write both formulas: which terms of LayerNorm are missing from RMSNorm?",
        why="RMSNorm(x) = x / sqrt(mean(x^2) + eps) * g (Zhang & Sennrich, 2019): no centring "
        "and no bias, so it is cheaper; LLaMA and T5 use it.",
        choices={"a": "no centring, no bias", "b": "no gain", "c": "batch statistics"},
        known_wrong={
            "b": "RMSNorm keeps a learned gain (weight); it is the mean subtraction it drops",
            "c": "RMSNorm, like LayerNorm, normalises each token over its features",
        },
    ),
    Question(
        "x_4",
        'What does nucleus (top-p) sampling keep? Answer with a letter ("a", "b" or "c"). (a) '
        "the most likely p fraction of the vocabulary, so the number of candidate tokens is "
        "fixed by p and the vocabulary size; (b) the smallest set of most likely tokens whose "
        "probabilities add up to at least p, so fewer tokens are kept when the model is "
        "confident; (c) every token whose own probability is at least p, so more tokens are "
        "kept as p is lowered toward zero.",
        "choice",
        "b",
        hint="Sort the probabilities, accumulate them, and see where you stop.",
        why="Holtzman et al. (2020): the nucleus adapts to the distribution, unlike top-k's "
        "fixed k.",
        choices={"a": "a fraction of the vocabulary", "b": "cumulative mass p", "c": "each >= p"},
        known_wrong={
            "a": "the number kept depends on the distribution, not on the vocabulary size",
            "c": "that is a threshold on each token; top-p thresholds the cumulative mass",
        },
    ),
    Question(
        "x_5",
        "Training a decoder-only LM on tokens (B, L) with logits (B, L, V): what goes into the "
        'cross-entropy? Answer with a letter ("a", "b" or "c"). (a) logits[:, :-1] against '
        "tokens[:, 1:], because position t has seen tokens 0..t and must predict token t + 1; "
        "(b) logits[:, 1:] against tokens[:, :-1], because position t + 1 has seen token t and "
        "is scored on reproducing it; (c) logits against tokens unshifted, because the causal "
        "mask already stops position t from seeing token t.",
        "choice",
        "a",
        hint="Which tokens has position t seen, including itself?",
        why="The causal mask lets position t see itself, so unshifted targets are copied, "
        "not predicted; shifting by one makes every position predict the next token.",
        choices={"a": "logits[:, :-1] vs tokens[:, 1:]", "b": "the other way", "c": "unshifted"},
        known_wrong={
            "b": "that scores each position on the token before it, which it has already seen",
            "c": "the causal mask allows key index <= query index: position t sees token t",
        },
    ),
    Question(
        "x_6",
        "Why can a KV cache reuse the keys and values of earlier positions? Answer with a "
        'letter ("a", "b" or "c"). (a) in a causal model, appending tokens never changes the '
        "keys and values already computed for earlier positions, so they are stored once; (b) "
        "appending tokens changes earlier keys and values only slightly, so reusing the stale "
        "ones costs little accuracy; (c) the cache stores earlier queries, and keys and values "
        "are recomputed from the newest token alone at each step.",
        "choice",
        "a",
        hint="What can layer 1's key at position 3 depend on in a causal model?",
        why="Under a causal mask every hidden state depends only on earlier tokens, so cached "
        "decoding gives exactly the tokens of uncached decoding (lesson 09's KVCache check).",
        choices={"a": "unchanged, exact", "b": "approximate", "c": "caches queries"},
        known_wrong={
            "b": "the cache is exact, not an approximation: nothing earlier depends on new tokens",
            "c": "earlier queries are never needed again; keys and values are",
        },
    ),
    Question(
        "x_7",
        "ALiBi with 8 heads: the slope of head h (counting from 0) is 2^(-8 (h + 1) / 8). What "
        "is the slope of head 3?",
        "number",
        references.alibi_slopes(8)[3],
        hint="Put h = 3 into the formula: 2^(-8 x 4 / 8).",
        why="The slopes form a geometric sequence 1/2, 1/4, ..., 1/256 (Press et al., 2022).",
        known_wrong={
            references.alibi_slopes(8)[2]: "that is head 2: count from 0, add 1",
            references.alibi_slopes(8)[4]: "that is head 4: the exponent uses h + 1",
        },
    ),
    Question(
        "x_8",
        "In an encoder-decoder model on padded batches, which mask does the decoder's cross-"
        'attention use? Answer with a letter ("a", "b" or "c"). (a) the source padding mask on '
        "its keys and no causal mask, since every source token is known before decoding; (b) a "
        "causal mask, so that target position t attends only to the first t source positions; "
        "(c) the target padding mask on its keys, since in cross-attention the keys come from "
        "the decoder.",
        "choice",
        "a",
        hint="Where do cross-attention's keys and values come from?",
        why="Keys and values come from the encoder's output: its padding must be masked, and "
        "nothing in the source is in the future.",
        choices={"a": "source padding, no causal", "b": "causal", "c": "target padding"},
        known_wrong={
            "b": "source and target positions are not aligned; the whole source is available",
            "c": "the keys and values come from the encoder: the source's padding is the one",
        },
    ),
]
