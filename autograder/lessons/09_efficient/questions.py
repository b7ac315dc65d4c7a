"""Lesson 09 questions: memory of the score matrix, the KV cache, windows, memory levers."""

from autograder.questions import Question

MIB = 2**20


def _scores_mib(heads: int, seq_len: int, bytes_per_number: int) -> float:
    """One layer's (heads, L, L) attention scores for one sequence, in MiB."""
    return heads * seq_len * seq_len * bytes_per_number / MIB


def _kv_bytes_per_token(layers: int, d_model: int, bytes_per_number: int) -> int:
    """A K and a V vector of d_model numbers (all heads together) per layer, per token."""
    return 2 * layers * d_model * bytes_per_number


def _true_count(mask_rows: list[range]) -> int:
    return sum(len(r) for r in mask_rows)


# sliding_window_mask(6, 3): query i sees keys max(0, i - 2) .. i
_WINDOW = _true_count([range(max(0, i - 3 + 1), i + 1) for i in range(6)])
# 3 cached tokens + 2 new ones: new query t (position 3 + t) sees keys 0 .. 3 + t (bottom-right)
_BOTTOM_RIGHT = _true_count([range(0, 3 + t + 1) for t in range(2)])
_TOP_LEFT = _true_count([range(0, t + 1) for t in range(2)])

QUESTIONS = [
    Question(
        "09_1",
        (
            "A model with 12 heads attends over L = 4096 tokens in float16. How many MiB (2^{20} "
            "bytes) do one layer's attention scores (heads, L, L) take for one sequence, if they "
            "are materialised? Answer with a number."
        ),
        "number",
        _scores_mib(12, 4096, 2),
        hint="heads x L x L numbers, 2 bytes each in float16; divide by 2**20 for MiB.",
        why="12 x 4096 x 4096 x 2 bytes = 384 MiB, for one layer and one sequence: the reason "
        "long contexts need attention that never materialises the scores.",
        known_wrong={
            _scores_mib(12, 4096, 4): "that is float32 (4 bytes a number); float16 takes 2",
            _scores_mib(1, 4096, 2): "that is one head; every head has its own (L, L) scores",
            _scores_mib(12, 4096, 2) * 8: "that counts bits; a float16 is 2 bytes",
        },
    ),
    Question(
        "09_2",
        (
            'GPT-2 small has 12 layers and d_{\\text{model}} = 768 (Radford et al. 2019, "Language'
            ' Models are Unsupervised Multitask Learners", table 2). How many bytes does its KV '
            "cache take per token in float16? Answer with an int."
        ),
        "int",
        _kv_bytes_per_token(12, 768, 2),
        hint="Each layer caches one key and one value vector of d_model numbers (all heads "
        "together) per token.",
        why="2 (K and V) x 12 layers x 768 x 2 bytes = 36,864 bytes, about 36 KiB per token.",
        known_wrong={
            _kv_bytes_per_token(12, 768, 2) // 2: "that caches only K or only V; both are kept",
            _kv_bytes_per_token(12, 768, 4): "that is float32; float16 takes 2 bytes",
            _kv_bytes_per_token(1, 768, 2): "that is one layer; every layer has its own cache",
        },
    ),
    Question(
        "09_3",
        "How many entries of sliding_window_mask(6, 3) are True? Answer with an int.",
        "int",
        _WINDOW,
        hint="Row i is True for keys j with 0 <= i - j < 3; the first rows have fewer keys "
        "before them.",
        why="1 + 2 + 3 + 3 + 3 + 3 = 15: each token sees itself and at most 2 before it.",
        known_wrong={
            _true_count([range(max(0, i - 3), i + 1) for i in range(6)]): "that is a window of "
            "4 (0 <= i - j <= 3): the window counts the token itself",
            _true_count([range(max(0, i - 3 + 1), min(6, i + 3)) for i in range(6)]): "that "
            "window looks both ways; a causal window only looks back",
            _true_count([range(max(0, i - 1), i + 1) for i in range(6)]): "that is a window "
            "of 2 (0 <= i - j < 2)",
        },
    ),
    Question(
        "09_4",
        (
            "A KV cache holds 3 tokens and the model now feeds 2 new tokens, so the scores are "
            "(2, 5). With the causal mask aligned bottom-right, as a cache needs, how many of the"
            " 10 entries are True? Answer with an int."
        ),
        "int",
        _BOTTOM_RIGHT,
        hint="The new tokens are at positions 3 and 4; each may see every key at or before "
        "its own position, cached keys included.",
        why="The first new token sees keys 0..3 (4), the second keys 0..4 (5): 9.",
        known_wrong={
            _TOP_LEFT: "that is the top-left alignment of F.scaled_dot_product_attention's "
            "is_causal=True: it treats the new tokens as positions 0 and 1",
            10: "that ignores the mask: the first new token must not see the second",
        },
    ),
    Question(
        "09_5",
        (
            "You train with batch 8 and accumulate gradients over 4 steps before each optimizer "
            "step. What do you get? Answer with a letter, as a string. (a) 4× the throughput of "
            "batch 8, since four micro-batches share one optimizer step (b) the gradient of a "
            "batch of 32, with the activation memory of a batch of 8 (c) the activation memory of"
            " a batch of 32, with the gradient of a batch of 8"
        ),
        "choice",
        "b",
        hint="Think about what is summed, what is kept in memory at once, and how many "
        "forward and backward passes run per optimizer step.",
        why="The summed gradients are those of a batch of 32 (for losses that are means, "
        "scaled by 1/4), with the activations of 8 in memory; the work is the same 4 passes, so "
        "throughput does not go up.",
        choices={
            "a": "4x the throughput of batch 8, since four micro-batches share one optimizer step",
            "b": "the gradient of a batch of 32, with the activation memory of a batch of 8",
            "c": "the activation memory of a batch of 32, with the gradient of a batch of 8",
        },
    ),
]
