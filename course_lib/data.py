"""Toy data, generated on the fly (no downloads), small enough to train on a laptop CPU.

* :func:`toy_sentence`: a short sentence with fixed word vectors, for attention heatmaps.
* :func:`toy_task_batch`: sequence-to-sequence puzzles (copy, reverse, sort) laid out for a
  causal language model such as :class:`course_lib.blocks.TinyTransformer`.

Shape legend: B batch, n length of the puzzle, L = 2n + 1 tokens per sequence, M d_model.
"""

import torch

__all__ = ["toy_sentence", "toy_task_sequences", "toy_task_batch"]

TOY_WORDS = ["the", "cat", "sat", "on", "the", "mat", "because", "it", "was", "tired"]

SEP = 0  # separator token between puzzle and answer; symbols are 1 .. num_symbols
IGNORE_INDEX = -100  # target value that F.cross_entropy skips (its default ignore_index)
TASKS = ("copy", "reverse", "sort")


def toy_sentence(d_model: int = 8, seed: int = 0) -> tuple[list[str], torch.Tensor]:
    """The words of :data:`TOY_WORDS` and one fixed vector per word.

    Equal words get equal vectors (both "the"), and "it" gets a vector close to "cat", so that a
    plain dot-product attention already links the pronoun to the noun.

    Returns:
        ``(words, x)``: a list of L words and ``x (L, M)`` float32, the same for the same seed.
    """
    generator = torch.Generator().manual_seed(seed)
    vocabulary = sorted(set(TOY_WORDS))
    table = torch.randn(len(vocabulary), d_model, generator=generator)  # (V, M)
    vectors = {word: table[i] for i, word in enumerate(vocabulary)}
    vectors["it"] = 0.9 * vectors["cat"] + 0.1 * vectors["it"]  # "it" refers to the cat
    x = torch.stack([vectors[word] for word in TOY_WORDS])  # (L, M)
    return list(TOY_WORDS), x


def toy_task_sequences(
    task: str,
    batch_size: int,
    length: int = 6,
    num_symbols: int = 8,
    generator: torch.Generator | None = None,
    device: torch.device | str | None = None,
) -> torch.Tensor:
    """Random puzzles followed by their answers: ``[a_1 .. a_n, SEP, b_1 .. b_n]``.

    ``a`` holds random symbols in ``1 .. num_symbols``; ``b`` is ``a`` copied, reversed or
    sorted, depending on ``task``.  The vocabulary size is ``num_symbols + 1`` (with ``SEP``).

    Returns:
        ``(B, 2n + 1)`` long.
    """
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    a = torch.randint(1, num_symbols + 1, (batch_size, length), generator=generator)  # (B, n)
    if task == "copy":
        b = a
    elif task == "reverse":
        b = a.flip(-1)  # (B, n)
    else:
        b = a.sort(dim=-1).values  # (B, n)
    sep = torch.full((batch_size, 1), SEP)  # (B, 1)
    return torch.cat([a, sep, b], dim=1).to(device)  # (B, 2n + 1)


def toy_task_batch(
    task: str,
    batch_size: int,
    length: int = 6,
    num_symbols: int = 8,
    generator: torch.Generator | None = None,
    device: torch.device | str | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs and next-token targets for a causal LM; only the answer is scored.

    ``inputs = seq[:, :-1]`` and ``targets = seq[:, 1:]``, with the targets inside the random
    puzzle (which cannot be predicted) set to :data:`IGNORE_INDEX`, so that
    ``F.cross_entropy(logits.flatten(0, 1), targets.flatten())`` measures only the answer.

    Returns:
        ``inputs (B, 2n)`` and ``targets (B, 2n)``, long.
    """
    seq = toy_task_sequences(task, batch_size, length, num_symbols, generator, device)  # (B, L)
    inputs = seq[:, :-1]  # (B, 2n)
    targets = seq[:, 1:].clone()  # (B, 2n): targets[:, t] is the token after inputs[:, t]
    targets[:, :length] = IGNORE_INDEX  # the puzzle and SEP itself are random: not scored
    return inputs, targets
