"""course_lib.data: toy data is deterministic, well formed and needs no download."""

import pytest
import torch

from course_lib import toy_sentence, toy_task_batch, toy_task_sequences
from course_lib.data import IGNORE_INDEX, SEP, TOY_WORDS


def test_toy_sentence_is_deterministic_and_equal_words_share_a_vector():
    words, x = toy_sentence(d_model=8)
    words2, x2 = toy_sentence(d_model=8)
    assert words == words2 == TOY_WORDS and torch.equal(x, x2)
    assert x.shape == (len(words), 8) and x.dtype == torch.float32
    first, second = [i for i, w in enumerate(words) if w == "the"]
    assert torch.equal(x[first], x[second])


def test_in_the_toy_sentence_it_is_closest_to_cat():
    words, x = toy_sentence(d_model=16)
    it = words.index("it")
    similarity = torch.nn.functional.cosine_similarity(x[it][None], x, dim=-1)
    similarity[it] = -1
    assert words[similarity.argmax()] == "cat"


@pytest.mark.parametrize(
    "task, answer",
    [
        ("copy", lambda a: a),
        ("reverse", lambda a: a.flip(-1)),
        ("sort", lambda a: a.sort(-1).values),
    ],
)
def test_toy_task_sequences_are_puzzle_sep_answer(task, answer):
    seq = toy_task_sequences(
        task, 16, length=5, num_symbols=7, generator=torch.Generator().manual_seed(0)
    )
    assert seq.shape == (16, 11) and seq.dtype == torch.long
    puzzle, sep, solution = seq[:, :5], seq[:, 5], seq[:, 6:]
    assert torch.all((puzzle >= 1) & (puzzle <= 7))
    assert torch.all(sep == SEP)
    assert torch.equal(solution, answer(puzzle))


def test_toy_task_batch_scores_only_the_answer():
    inputs, targets = toy_task_batch(
        "reverse", 4, length=3, generator=torch.Generator().manual_seed(0)
    )
    seq = toy_task_sequences("reverse", 4, length=3, generator=torch.Generator().manual_seed(0))
    assert torch.equal(inputs, seq[:, :-1])
    assert torch.all(targets[:, :3] == IGNORE_INDEX)
    assert torch.equal(targets[:, 3:], seq[:, 4:])


def test_toy_task_rejects_unknown_tasks():
    with pytest.raises(ValueError, match="task"):
        toy_task_sequences("translate", 2)
