"""The package exports every exercise of the contract (COURSE_SPEC.md) by its exact name."""

import importlib

import course_lib

CONTRACT = [
    "project_qkv",
    "QKVProjection",
    "attention_scores",
    "scaled_attention_scores",
    "dot_product_variance",
    "softmax_entropy",
    "softmax",
    "causal_mask",
    "padding_mask",
    "masked_scores",
    "scaled_dot_product_attention",
    "SelfAttention",
    "split_heads",
    "merge_heads",
    "MultiHeadAttention",
    "mha_num_parameters",
    "sinusoidal_positional_encoding",
    "LearnedPositionalEmbedding",
    "apply_rope",
    "FeedForward",
    "TransformerBlock",
    "TinyTransformer",
    "sliding_window_mask",
    "tiled_attention",
    "KVCache",
]


def test_every_contract_name_is_importable_from_course_lib():
    missing = [name for name in CONTRACT if not hasattr(course_lib, name)]
    assert not missing
    assert list(course_lib.EXERCISES) == CONTRACT


def test_everything_in_all_is_importable_including_pick_device():
    for name in course_lib.__all__:
        assert getattr(course_lib, name) is not None
    from course_lib import pick_device

    assert callable(pick_device)


def test_every_reference_has_a_docstring():
    for name in CONTRACT:
        assert (getattr(course_lib, name).__doc__ or "").strip(), f"{name} has no docstring"


def test_every_module_imports_on_its_own():
    for module in [
        "projections",
        "attention",
        "scaling",
        "masks",
        "multihead",
        "positions",
        "blocks",
        "efficient",
        "data",
        "memory",
        "device",
    ]:
        importlib.import_module(f"course_lib.{module}")
