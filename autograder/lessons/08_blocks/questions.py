"""Lesson 08's conceptual questions: a block's parameters, norm order, a missing mask, entropy,
exact match, and what LoRA trains."""

from __future__ import annotations

import math

import torch

from autograder.questions import Question


def _block_parameters(d_model: int, d_ff: int, *, biases: bool = True, norms: bool = True) -> int:
    """Parameters of the contract's TransformerBlock, counted from real (meta) layers."""
    layers = [torch.nn.Linear(d_model, d_model, bias=biases, device="meta") for _ in "qkvo"]
    layers += [
        torch.nn.Linear(d_model, d_ff, bias=biases, device="meta"),
        torch.nn.Linear(d_ff, d_model, bias=biases, device="meta"),
    ]
    if norms:
        layers += [torch.nn.LayerNorm(d_model, device="meta") for _ in range(2)]
    return sum(p.numel() for layer in layers for p in layer.parameters())


def _attention_parameters(d_model: int) -> int:
    return 4 * (d_model * d_model + d_model)


ANSWER_TOKENS = 8  # question 08_5: the answer length of the toy task
LORA = {"layers": 12, "d_model": 768, "r": 8}  # question 08_6: a BERT-base-sized model


def _lora_parameters(layers: int, d_model: int, r: int, matrices: int = 2) -> int:
    """Trainable parameters of rank-r adapters on `matrices` d_model x d_model weights per layer,
    counted from real (meta) tensors: A is (r, d_in), B is (d_out, r)."""
    a = torch.empty(r, d_model, device="meta")
    b = torch.empty(d_model, r, device="meta")
    return layers * matrices * (a.numel() + b.numel())


QUESTIONS = [
    Question(
        "08_1",
        (
            "How many learnable parameters does TransformerBlock(d_model=512, num_heads=8, "
            "d_ff=2048) have? An int."
        ),
        "int",
        _block_parameters(512, 2048),
        hint="Four d_model x d_model projections with biases, two feed-forward layers with "
        "biases (d_model -> d_ff -> d_model), and two LayerNorms with a weight and a bias of "
        "d_model each. The number of heads does not change the count.",
        why="About a third is attention (4·512² + 4·512) and two thirds the feed-forward "
        "network (2·512·2048 + 2048 + 512); the LayerNorms add 4·512.",
        known_wrong={
            _block_parameters(512, 2048, biases=False): "that leaves out every bias: the block's "
            "attention has bias=True and the feed-forward layers have biases",
            _block_parameters(512, 2048, norms=False): "that leaves out the two LayerNorms, "
            "which each learn a weight and a bias of d_model numbers",
            _block_parameters(512, 2048, biases=False, norms=False): "that counts the weight "
            "matrices only: add the biases and the LayerNorms",
            _attention_parameters(512): "that is the attention alone; the feed-forward network "
            "is the larger part of a block",
            _block_parameters(512, 2048) - _attention_parameters(512): "that leaves out the "
            "attention's four projections",
        },
    ),
    Question(
        "08_2",
        (
            "Without a learning-rate warm-up, which block order is the one that often fails to "
            "train (Xiong et al., 2020)? Answer with a letter, as a string. (a) Pre-LN: x + "
            "sublayer(LN(x)), whose residual stream grows with depth (b) Post-LN: LN(x + "
            "sublayer(x)), whose last layers start with large gradients (c) both orders equally: at"
            " this depth neither trains without a warm-up (d) neither order: a warm-up only speeds "
            "training up, it never rescues it"
        ),
        "choice",
        "b",
        choices={
            "a": "Pre-LN: x + sublayer(LN(x)), whose residual stream grows with depth",
            "b": "Post-LN: LN(x + sublayer(x)), whose last layers start with large gradients",
            "c": "both orders equally: at this depth neither trains without a warm-up",
            "d": "neither order: a warm-up only speeds training up, it never rescues it",
        },
        hint="Look at the gradient norms per layer at initialisation in part 3: in which order "
        "are the last layers' gradients the largest?",
        why="In Post-LN the gradients of the last layers are large at initialisation, so a "
        "large early step can derail training; Pre-LN keeps them even across layers.",
        known_wrong={
            "a": "Pre-LN is the order that trains without warm-up: its gradients are even across "
            "layers at initialisation",
        },
    ),
    Question(
        "08_3",
        (
            "A causal language model reaches a training loss near 0 within a few hundred steps, "
            "yet generates garbage. What is the most likely bug? Answer with a letter, as a "
            "string. (a) the learning rate is too low, so the model memorised its batches (b) the "
            "causal mask is missing, so each position sees its own target (c) the model has too few"
            " layers to generalise past the training set (d) Post-LN instead of Pre-LN, so the last"
            " layers' gradients blew up"
        ),
        "choice",
        "b",
        choices={
            "a": "the learning rate is too low, so the model memorised its batches",
            "b": "the causal mask is missing, so each position sees its own target",
            "c": "the model has too few layers to generalise past the training set",
            "d": "Post-LN instead of Pre-LN, so the last layers' gradients blew up",
        },
        hint="Part 4 trains exactly this model. What can a position see when nothing hides the "
        "future?",
        why="Without the mask, the answer to each position is its right neighbour in the input: "
        "training only teaches copying, and at generation time there is nothing to copy.",
        known_wrong={
            "a": "a learning rate that is too low gives a high training loss, not a near-zero one",
            "c": "a model too small to solve the task cannot reach a training loss near 0",
            "d": "Post-LN without warm-up fails to lower the loss at all; it does not reach 0 "
            "and then fail only at generation",
        },
    ),
    Question(
        "08_4",
        (
            "A head attends uniformly to 8 keys. What is the entropy of its attention weights, in"
            " nats (natural log)? A number."
        ),
        "number",
        math.log(8),
        hint="Entropy is -sum p log p; with 8 equal weights p = 1/8.",
        why="log 8 ≈ 2.08 nats is the largest entropy over 8 keys; a one-hot head has 0.",
        known_wrong={
            math.log2(8): "that is in bits (log base 2); use the natural log",
            0.0: "that is a one-hot head; uniform weights have the largest entropy",
            1 / 8: "that is each weight; the entropy is -sum p log p",
        },
        rel_tol=1e-2,
    ),
    Question(
        "08_5",
        (
            "A model predicts each of the 8 answer tokens of a puzzle correctly with probability "
            "0.99, independently of the others. What fraction of puzzles does it get exactly "
            "right (every answer token)? A number between 0 and 1, to three decimals."
        ),
        "number",
        0.99**ANSWER_TOKENS,
        hint="Exact match needs all of the answer tokens right at once: multiply the "
        "probabilities.",
        why="0.99 to the power 8 is about 0.923: per-token accuracy flatters a sequence task, so "
        "this lesson reports exact match.",
        known_wrong={
            0.99: "that is the per-token accuracy; every one of the 8 tokens must be right",
            # 0.9227 against 0.92: within 5e-3, which once let the slip pass (trial 41)
            1 - 8 * 0.01: "that is 1 - 8 × 0.01, subtracting the errors (or the answer rounded "
            "to two decimals: give three); the chances multiply: 0.99 × 0.99 × ... (8 times)",
        },
    ),
    Question(
        "08_6",
        (
            "LoRA with rank r = 8 on W_Q and W_V of every layer of a model with 12 layers and "
            "d_model = 768 (each W is 768 x 768): how many parameters does fine-tuning train? "
            "An int."
        ),
        "int",
        _lora_parameters(**LORA),
        hint="Each adapted matrix gets A (r x d_in) and B (d_out x r); everything else is "
        "frozen. Count the adapted matrices: two per layer.",
        why="2 x 12 adapters of 8 x (768 + 768) numbers: 294,912, against 14.2 million for the "
        "same 24 matrices in full (about 2%).",
        known_wrong={
            _lora_parameters(**LORA, matrices=1): "that is one adapter per layer: W_Q and W_V "
            "each get their own A and B",
            LORA["layers"] * 2 * LORA["d_model"] ** 2: "that is the adapted matrices "
            "themselves; they stay frozen, only A and B train",
            _lora_parameters(**LORA) // LORA["layers"]: "that is one layer; the model has 12",
        },
    ),
]
