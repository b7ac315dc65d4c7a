# Round 14: a reply whose tensor claims more elements than its storage holds: a view with stride 0
# over one element (__HOW__ "expand": 2**62 elements on 4 bytes, which torch.equal in the judge
# would walk for centuries; "sparse": a sparse tensor, which the checks cannot compare). Sent by
# a replaced reply writer, as a learner's code can replace it: the judge must refuse the reply.
import sys

import torch

worker = sys.modules["autograder.sandbox.inside.worker"]
encode = worker.encode
N = 1 << 31  # 2**62 elements: torch.equal would walk them for centuries


def huge(v):
    if isinstance(v, torch.Tensor) and "__HOW__" == "sparse":
        return v.to_sparse()
    if isinstance(v, torch.Tensor):
        return torch.zeros(1, dtype=v.dtype).as_strided((N, N), (0, 0))
    if isinstance(v, tuple):
        return tuple(huge(x) for x in v)
    if isinstance(v, list):
        return [huge(x) for x in v]
    return v


def send(chan, message):
    if "value" in message:
        message = {"type": "reply", "trace": None, **message, "value": huge(message["value"])}
    chan.send(encode(message))


worker.send = send


def scaled_dot_product_attention(q, k, v, mask=None):
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else scores + mask
    weights = scores.softmax(-1)
    return weights @ v, weights
