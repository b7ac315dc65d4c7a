# A correct file in a common module style (issue 19): helpers under a top-level if/try,
# constants built in a loop, an augmented assignment; the __main__ block must not run.
import torch
import torch.nn.functional as F

if hasattr(torch.Tensor, "mT"):
    def _t(x):
        return x.mT
else:
    def _t(x):
        return x.transpose(-2, -1)

try:
    from math import sqrt
except ImportError:
    sqrt = None

NEG = -1.0
NEG *= float("inf")
SCALES = {}
for d in (1, 2, 4, 8, 16, 32, 64):
    SCALES[d] = d ** -0.5


def attention_scores(q, k):
    return q @ _t(k)


def scaled_attention_scores(q, k):
    return q @ _t(k) * SCALES.get(q.shape[-1], 1 / sqrt(q.shape[-1]))


def masked_scores(scores, mask):
    return scores.masked_fill(~mask, NEG)


if __name__ == "__main__":
    raise SystemExit("demo")
