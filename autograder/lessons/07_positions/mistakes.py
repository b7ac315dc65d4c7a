"""Lesson 07's known mistakes (positions) (see autograder/core/mistakes.py)."""

from autograder.core.mistakes import Mistake

MISTAKES = (
    Mistake(
        "pe-angles-in-half",
        ("sinusoidal_positional_encoding",),
        "The table's positions or angles p·w held in float16/bfloat16",
        "Make the positions and the angles float32 (torch.arange(max_len, dtype=torch.float32)): "
        "float16 holds whole numbers exactly only up to 2048, so row 4099 gets position 4100.",
    ),
    Mistake(
        "rope-partial-rotation",
        ("apply_rope",),
        "Only part of the features rotated: the last pairs left as they are",
        "The contract rotates every pair (x[..., 2i], x[..., 2i+1]) for i = 0..d/2-1, with "
        "frequency base^(-2i/d) over the whole d; GPT-J's rotary_dim is not part of it.",
    ),
    Mistake(
        "rope-angles-tiled",
        ("apply_rope",),
        "cos and sin tiled [θ0..θ(d/2-1), θ0..] while the pairs are interleaved",
        "With interleaved pairs, features 2i and 2i+1 share angle θi: repeat each angle twice, "
        "angles.repeat_interleave(2, -1), not torch.cat([angles, angles], -1) (that layout "
        "belongs to the half-split rotate_half).",
    ),
    Mistake(
        "positions-int-overflow",
        ("apply_rope", "sinusoidal_positional_encoding"),
        "Positions cast to a small integer type that wraps past its maximum",
        "Keep positions as they come (torch.arange gives int64) or make them float32: int16 "
        "stops at 32767, so position 32768 becomes -32768.",
    ),
    Mistake(
        "sin-cos-swapped",
        ("sinusoidal_positional_encoding",),
        "sin and cos swapped",
        "Even columns get sin, odd columns get cos: PE[p, 2i] = sin(...), PE[p, 2i+1] = cos(...).",
    ),
    Mistake(
        "frequency-exponent-i",
        ("sinusoidal_positional_encoding", "apply_rope"),
        "Frequency exponent wrong: i instead of 2i, doubled, or divided by d - 2",
        "Pair i (columns 2i, 2i+1) has frequency base^(-2i/d): with torch.arange(0, d, 2) "
        "that is already 2i, don't multiply by 2 again, and divide by d, not d - 2.",
    ),
    Mistake(
        "sinusoid-concatenated",
        ("sinusoidal_positional_encoding",),
        "sin and cos concatenated in two halves instead of interleaved",
        "The contract interleaves: column 2i is sin, column 2i+1 is cos (pe[:, 0::2] = sin, "
        "pe[:, 1::2] = cos).",
    ),
    Mistake(
        "positions-from-batch-dim",
        ("LearnedPositionalEmbedding",),
        "The number of positions read from the wrong dim, x.size(0) or x.size(-1)",
        "x is (B, L, d_model): the sequence length is x.size(1) (or x.shape[-2]), not the batch "
        "x.size(0) or the features x.size(-1); embed positions 0..L-1.",
    ),
    Mistake(
        "positions-not-added",
        ("LearnedPositionalEmbedding",),
        "Returns the position embeddings instead of x plus them",
        "forward(x) returns x + self.embedding(positions).",
    ),
    Mistake(
        "rope-half-split",
        ("apply_rope",),
        "RoPE pairs the two halves (GPT-NeoX rotate_half) instead of neighbours",
        "The contract rotates interleaved pairs (x[..., 2i], x[..., 2i+1]), as in RoFormer.",
    ),
    Mistake(
        "rope-wrong-direction",
        ("apply_rope",),
        "RoPE rotates the wrong way (sign of sin swapped)",
        "x'_{2i} = x_{2i} cos θ - x_{2i+1} sin θ and x'_{2i+1} = x_{2i} sin θ + x_{2i+1} cos θ.",
    ),
    Mistake(
        "rope-not-a-rotation",
        ("apply_rope",),
        "RoPE's formula does not rotate the pairs: a sign, a cos/sin or a partner mixed up",
        "Each pair turns by its angle θ and keeps its length: x'_{2i} = x_{2i} cos θ - x_{2i+1} "
        "sin θ and x'_{2i+1} = x_{2i} sin θ + x_{2i+1} cos θ.",
    ),
    Mistake(
        "rope-length-wrong-dim",
        ("apply_rope",),
        "RoPE's default positions take L from the wrong dimension of x",
        "x is (..., L, d) with any leading dims ((L, d), (B, L, d) or (B, h, L, d)): the "
        "positions are 0..L-1 with L = x.shape[-2], not x.size(0) or x.size(1).",
    ),
    Mistake(
        "rope-positions-ignored",
        ("apply_rope",),
        "The positions argument is ignored (always 0..L-1)",
        "Use the given positions, e.g. the offset ones of new tokens decoded with a KV cache; "
        "only default to torch.arange(L) when positions is None.",
    ),
    Mistake(
        "rope-base-ignored",
        ("apply_rope",),
        "The base argument is ignored (always 10000)",
        "Compute the frequencies from the base you are given: base ** (-2i / d).",
    ),
    Mistake(
        "pe-wrong-frequencies",
        ("sinusoidal_positional_encoding", "apply_rope"),
        "The sinusoids' frequencies are wrong: base, exponent, or a pair split",
        "Columns 2i and 2i+1 share one frequency, 1 / base^(2i/d) (base 10000 for the table, "
        "apply_rope's base argument for RoPE), with the exponent computed in floats "
        "(torch.arange(0, d, 2) / d, not // d); in the table, sin in column 2i, cos in 2i+1.",
    ),
    Mistake(
        "rope-output-concatenated",
        ("apply_rope",),
        "The rotated pairs written back as two halves instead of interleaved",
        "Pair i goes back to columns 2i and 2i+1: torch.stack([x1, x2], -1).flatten(-2), not "
        "torch.cat([x1, x2], -1).",
    ),
    Mistake(
        "positions-start-at-one",
        ("sinusoidal_positional_encoding", "LearnedPositionalEmbedding", "apply_rope"),
        "Positions counted from 1 instead of 0",
        "The first token is at position 0: torch.arange(L), not torch.arange(1, L + 1).",
    ),
    Mistake(
        "positions-by-batch-index",
        ("LearnedPositionalEmbedding", "TinyTransformer"),
        "Each sequence gets the embedding of its batch index instead of its positions",
        "Look the table up by position: self.embedding(torch.arange(L, device=x.device)) is "
        "(L, d_model), the same for every sequence of the batch.",
    ),
    Mistake(
        "max-len-refused",
        ("LearnedPositionalEmbedding",),
        "Off by one at max_len: the table's size, or a sequence of exactly max_len tokens refused",
        "The table has exactly max_len rows, 0..max_len-1, enough for max_len tokens: "
        "nn.Embedding(max_len, d_model), and raise only when L > max_len.",
    ),
    Mistake(
        "rope-angles-in-half",
        ("apply_rope",),
        "The angles p·θ computed in float16/bfloat16",
        "Compute p·θ in float32 (or float64) and cast cos and sin afterwards: float16 holds whole "
        "numbers exactly only up to 2048, so at position 4095 an angle is off by radians.",
    ),
    Mistake(
        "rope-pair-swapped",
        ("apply_rope",),
        "Each rotated pair is written back swapped",
        "Feature 2i gets x1·cos − x2·sin and feature 2i+1 gets x1·sin + x2·cos: stack them in "
        "that order, torch.stack([x1', x2'], -1).flatten(-2).",
    ),
    Mistake(
        "positions-normalised",
        ("sinusoidal_positional_encoding",),
        "Positions scaled into [0, 1] instead of 0, 1, ..., max_len - 1",
        "Row p uses the position p itself, torch.arange(max_len): scaled positions "
        "(linspace(0, 1, max_len), p / max_len) make every row's angles depend on max_len.",
    ),
    Mistake(
        "pe-table-batch-dim",
        ("sinusoidal_positional_encoding",),
        "The table returned with a batch dim: (1, max_len, d_model)",
        "Return the table itself, (max_len, d_model): adding it to x of shape (B, L, d_model) "
        "broadcasts over the batch without a leading 1 (pe.unsqueeze(0) is for a buffer).",
    ),
    Mistake(
        "positions-wrong-rows",
        ("LearnedPositionalEmbedding",),
        "Positions look up the wrong rows: reversed, shifted, aligned to the table's end, or all",
        "Token p of the sequence gets row p of the table, for p = 0..L-1: "
        "self.embedding(torch.arange(L)), whatever max_len is.",
    ),
    Mistake(
        "lpe-positions-in-half",
        ("LearnedPositionalEmbedding",),
        "The positions made in float16/bfloat16 before they pick the table's rows",
        "Keep the positions integers, torch.arange(L, device=x.device): float16 holds whole "
        "numbers exactly only up to 2048 and bfloat16 up to 256, so later tokens get wrong rows.",
    ),
    Mistake(
        "lpe-input-scaled",
        ("LearnedPositionalEmbedding",),
        "x scaled before the positions are added",
        "Return x + self.embedding(positions) with x as given: the sqrt(d_model) scale of the "
        "Transformer paper multiplies the token embeddings, not this module's input.",
    ),
    Mistake(
        "embedding-gradient-rescaled",
        ("LearnedPositionalEmbedding",),
        "The table's gradient rescaled by how often a position occurs in the batch",
        "Build the table as nn.Embedding(max_len, d_model): scale_grad_by_freq=True divides each "
        "row's gradient by its count in the batch, and every sequence holds positions 0..L-1, so "
        "the table learns B times slower than the derivative says.",
    ),
    Mistake(
        "embedding-sparse-gradient",
        ("LearnedPositionalEmbedding",),
        "The table's gradient is sparse (sparse=True on the embedding)",
        "Build the table as nn.Embedding(max_len, d_model) and look positions up without "
        "sparse=True (in F.embedding too): a sparse gradient needs an optimizer such as "
        "torch.optim.SparseAdam, and Adam and AdamW, which train the model of lesson 08, raise an "
        "error on it.",
    ),
)
