"""Lesson 10's conceptual interview questions (SEED_MAP points 48-56), also asked from the
command line by ``python -m autograder drill quiz``; each prompt is the notebook's question, as
plain text. Numbers are computed (the parameter count from the course's own module) or cited."""

from __future__ import annotations

import torch

from autograder.questions import Question


def _mha_parameters(d_model: int, num_heads: int) -> int:
    """The parameter count of the course's MultiHeadAttention, built on the meta device."""
    from course_lib.multihead import MultiHeadAttention

    with torch.device("meta"):
        return sum(p.numel() for p in MultiHeadAttention(d_model, num_heads).parameters())


QUESTIONS = [
    Question(
        "10_1",
        'Why does attention divide the scores by sqrt(d_k)? Answer with a letter ("a", "b" or '
        '"c"). (a) it turns each score into the cosine of the angle between q and k, so every '
        "score lies in [-1, 1] whatever d_k is; (b) with unit-variance entries q · k has "
        "variance d_k; dividing by sqrt(d_k) brings it back to 1 and keeps the softmax from "
        "saturating; (c) it offsets the growth of the softmax's denominator with the number of "
        "keys, so that long and short sequences end up with comparable weights.",
        "choice",
        "b",
        hint="Work out Var(q · k) for d_k independent products of unit variance.",
        why="Var(q · k) = d_k, and Var(q · k / sqrt(d_k)) = 1 whatever d_k: the same reasoning "
        "as initialising weights with variance 1/fan_in so that activations keep unit variance.",
        choices={"a": "cosine similarity", "b": "variance back to 1", "c": "number of keys"},
        known_wrong={
            "a": "dividing every score by the same constant does not normalise each vector, "
            "and the scores are not bounded",
            "c": "the scale depends on d_k, not on the number of keys: softmax normalises each "
            "row whatever its length",
        },
    ),
    Question(
        "10_2",
        'Which statement about multi-head attention is honest? Answer with a letter ("a", "b" '
        'or "c"). (a) it improves accuracy by 15-20% over single-head attention at the same '
        "parameter count, as measured in the original paper; (b) it has num_heads times the "
        "parameters of single-head attention, and that extra capacity is where its gains come "
        "from; (c) each head attends in its own d_model/h-wide subspace, so heads can attend to "
        "different positions at the same parameter count.",
        "choice",
        "c",
        hint="Count the parameters of both, and look for a measured comparison, not a slogan.",
        why="Heads are slices, not copies: the same 4·d_model² parameters. Measured: in Vaswani "
        "et al. (2017), Table 3 rows (A), one head is 0.9 BLEU worse than eight, and too many "
        "heads also hurt.",
        choices={"a": "15-20% better", "b": "h times the parameters", "c": "subspaces"},
        known_wrong={
            "a": "that figure is unverified; what the original paper measured is 0.9 BLEU "
            "between one head and eight, on one translation task",
            "b": "the heads split d_model into slices: the parameter count does not depend on h",
        },
    ),
    Question(
        "10_3",
        "How many parameters has MultiHeadAttention(d_model=512, num_heads=8, bias=False)?",
        "int",
        _mha_parameters(512, 8),
        hint="Four d_model x d_model projections (w_q, w_k, w_v, w_o); the heads are slices of "
        "them.",
        why="4 · d_model² = 4 · 512², whatever the number of heads.",
        known_wrong={
            4 * 512 * 64: "that counts one head's slices only; the projections are d_model wide",
            3 * 512 * 512: "that forgets the output projection w_o",
            8 * 4 * 512 * 512: "the heads do not copy the projections: they split them",
        },
    ),
    Question(
        "10_4",
        "Self-attention over L tokens of width d, computed naively (the score matrix "
        'materialised): what are its time and extra memory? Answer with a letter ("a", "b" or '
        '"c"). (a) O(L²·d) time and O(L²) extra memory: L² scores of d multiply-adds each, all '
        "held at once; (b) O(L·d) time and O(L) extra memory: one pass over the tokens, as a "
        "recurrent network makes; (c) O(L²·d) time but only O(L·d) extra memory, because each "
        "score is used once and then dropped.",
        "choice",
        "a",
        hint="How big is QK^T, and how much work is each of its entries?",
        why="L² scores of d multiply-adds each; the (L, L) matrix is held per head and batch "
        "element. Fused kernels (FlashAttention) keep the L² time but need only O(L) extra memory.",
        choices={"a": "quadratic time and memory", "b": "linear", "c": "linear memory"},
        known_wrong={
            "b": "every query meets every key: that is L² pairs",
            "c": "only fused kernels avoid the (L, L) matrix; the naive computation holds it",
        },
    ),
    Question(
        "10_5",
        "An encoder-decoder Transformer on padded batches: which masks go where? Answer with a "
        'letter ("a", "b" or "c"). (a) encoder self-attention: source padding; decoder '
        "self-attention: causal and target padding; cross-attention: source padding; (b) "
        "encoder self-attention: source padding; decoder self-attention: causal only; "
        "cross-attention: causal and source padding; (c) encoder self-attention: causal and "
        "source padding; decoder self-attention: causal and target padding; cross-attention: "
        "none.",
        "choice",
        "a",
        hint="Which attention must not see the future, and whose keys can be padding?",
        why="Only the decoder's self-attention must hide future tokens; padding is masked "
        "wherever pad tokens are keys: the source's in the encoder and in cross-attention, the "
        "target's in the decoder.",
        choices={
            "a": "padding / causal+padding / source padding",
            "b": "no target padding, causal cross-attention",
            "c": "causal encoder, unmasked cross-attention",
        },
        known_wrong={
            "b": "each decoder position may see the whole source, so cross-attention needs no "
            "causal mask; and target padding keys must be masked in the decoder",
            "c": "the encoder may see the whole source, and cross-attention must still hide the "
            "source's padding",
        },
    ),
    Question(
        "10_6",
        "A colleague's bool mask is True at the positions to block. Which call takes it as it "
        'is? Answer with a letter ("a", "b" or "c"). (a) F.scaled_dot_product_attention(q, k, '
        "v, attn_mask=mask); (b) nn.MultiheadAttention's forward(x, x, x, attn_mask=mask); (c) "
        "both, since a bool mask means the same in every PyTorch API.",
        "choice",
        "b",
        hint="Read each function's documentation for what True means in a bool mask.",
        why="nn.MultiheadAttention: True = not allowed to attend. F.scaled_dot_product_attention "
        "(and this course): True = may attend. State the convention before writing the mask.",
        choices={"a": "SDPA", "b": "nn.MultiheadAttention", "c": "both"},
        known_wrong={
            "a": "SDPA's bool mask is True = may attend: it needs ~mask",
            "c": "the two use opposite polarities",
        },
    ),
    Question(
        "10_7",
        'Pre-LN or Post-LN? Answer with a letter ("a", "b" or "c"). (a) Post-LN (LayerNorm '
        "after each residual addition, as in the original Transformer): normalised outputs let "
        "deep stacks train stably without warm-up; (b) either: with the same sublayers and "
        "LayerNorms they are equally expressive, so they train equally stably and need the "
        "same warm-up; (c) Pre-LN (LayerNorm on each sublayer's input, inside the residual "
        "branch): its identity path lets deep stacks train stably, often without warm-up.",
        "choice",
        "c",
        hint="Follow the residual path from the loss to the first layer in each arrangement.",
        why="Xiong et al. (2020), 'On Layer Normalization in the Transformer Architecture': "
        "Post-LN has large gradients near the output at initialisation and needs warm-up; Pre-LN "
        "does not.",
        choices={"a": "Post-LN more stable", "b": "equally stable", "c": "Pre-LN more stable"},
        known_wrong={
            "a": "Post-LN is the original, but it is the one that needs warm-up",
            "b": "being equally expressive says nothing about training: where the LayerNorm "
            "sits changes the gradients at initialisation",
        },
    ),
    Question(
        "10_8",
        "After training you plot every head of every layer (a head view, as BertViz draws it). "
        'Which picture is a warning sign? Answer with a letter ("a", "b" or "c"). (a) every '
        "head of every layer is nearly uniform, spreading its weight evenly over all the keys "
        "it may see; (b) some heads attend mostly to the previous token, others to separators, "
        "to punctuation or to the token itself; (c) in a causal model, the upper triangle of "
        "every map is empty: no query puts weight on a later key.",
        "choice",
        "a",
        hint="Which of these would a healthy, trained model not show?",
        why="Uniform maps everywhere mean the scores barely vary (too small: bad initialisation, "
        "too high a temperature, too much dropout); their entropy is near log(Lk). Specialised "
        "heads are normal, and an empty upper triangle is the causal mask working.",
        choices={"a": "all uniform", "b": "specialised heads", "c": "empty upper triangle"},
        known_wrong={
            "b": "heads that specialise are what trained models show",
            "c": "that is the causal mask doing its job",
        },
    ),
    Question(
        "10_9",
        "Fine-tuning a pretrained Transformer on a small dataset: which plan is sound? Answer "
        'with a letter ("a", "b" or "c"). (a) a smaller learning rate than in pre-training with '
        "a short warm-up, or LoRA on w_q and w_v with the rest frozen; watch validation loss and "
        "attention entropy; (b) re-initialise the attention layers so that they fit the new "
        "data, keep the pretrained embeddings, train at the pre-training learning rate; watch "
        "the training loss; (c) a learning rate ten times the pre-training one, so that the "
        "model adapts within a few steps, with early stopping on the validation loss against "
        "overfitting.",
        "choice",
        "a",
        hint="What must fine-tuning preserve, and what destroys it fastest?",
        why="Small, careful updates keep what pre-training learned; LoRA trains a few parameters "
        "only. Attention entropy collapsing to 0 or drifting to log(Lk) is an early sign of "
        "trouble.",
        choices={"a": "small lr or LoRA, monitored", "b": "re-initialise", "c": "10x lr"},
        known_wrong={
            "b": "re-initialising throws away what pre-training learned, and the training loss "
            "alone cannot show overfitting",
            "c": "a large learning rate erases the pretrained weights (catastrophic forgetting) "
            "before early stopping can help",
        },
    ),
    Question(
        "10_10",
        "System design: answer questions over documents far longer than the model's context. "
        'Which design covers what an interviewer looks for? Answer with a letter ("a", "b" or '
        '"c"). (a) raise max_len to the longest document and fine-tune on long inputs; '
        "FlashAttention keeps attention's memory linear in the length, so a whole document "
        "fits in one context; (b) summarise each document once with the model and store the "
        "summaries; answer every question from the summaries of all the documents, which fit "
        "in one context and are fast to read; (c) chunk with overlap, embed and index the "
        "chunks, retrieve and rerank the best, answer from a context that fits and cite the "
        "chunks; budget the KV cache; evaluate retrieval and answers apart.",
        "choice",
        "c",
        hint="List the costs and failure modes: memory, latency, what the model can cite.",
        why="The checklist: chunking (size, overlap); retrieval (embeddings, index, top-k, "
        "rerank); context assembly and citations; long-context attention (sliding windows, "
        "FlashAttention) for the window kept; KV cache memory = 2 · layers · tokens · d_model · "
        "bytes per value, per sequence; evaluation of retrieval recall and answer accuracy.",
        choices={"a": "longer max_len", "b": "summaries", "c": "chunk + retrieve + budget"},
        known_wrong={
            "a": "FlashAttention saves the (L, L) matrix, not the L² time or the KV cache, which "
            "grows with every token; and training at that length is costly",
            "b": "a summary loses the details questions ask about, and cannot be cited",
        },
    ),
    Question(
        "10_11",
        'Which statement is true? Answer with a letter ("a", "b", "c" or "d"). (a) in self-'
        "attention Q, K and V come from three different inputs, which is what sets it apart "
        "from cross-attention; (b) the score matrix QK^T is always square, because every token "
        "is compared with every token of the same sequence; (c) without positions, "
        "self-attention is permutation-equivariant: permuting the tokens permutes its outputs "
        "the same way; (d) ViT applies attention over the pixels of a video in space and time, "
        "with one token for every pixel of every frame.",
        "choice",
        "c",
        hint="Write down the shapes, and what happens to QK^T when the rows of X are permuted.",
        why="Attention is content-based and permutation-equivariant: that is an inductive bias, "
        "just not a local one; positions must be added.",
        choices={"a": "three inputs", "b": "square", "c": "equivariant", "d": "ViT video"},
        known_wrong={
            "a": "in self-attention all three are projections of the same X; in cross-attention "
            "K and V come from the other sequence",
            "b": "QK^T is (Lq, Lk): square only when queries and keys have the same length",
            "d": "ViT attends over image patches; space-time video attention is TimeSformer/ViViT",
        },
    ),
    Question(
        "10_12",
        "BERT-base has d_model = 768 and 12 heads. What is d_head, each head's width?",
        "int",
        768 // 12,
        hint="The heads split d_model between them.",
        why="d_head = d_model / h. The common 64 is a convention (Transformer-base, BERT-base, "
        "GPT-2), not a law: LLaMA uses 128.",
        known_wrong={
            768: "that is d_model: the heads split it, they do not copy it",
            768 * 12: "the heads split d_model, they do not multiply it",
        },
    ),
]
