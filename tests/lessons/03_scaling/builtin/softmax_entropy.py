# grade: softmax_entropy
from torch.distributions import Categorical


def softmax_entropy(weights, dim=-1):
    return Categorical(probs=weights.movedim(dim, -1)).entropy()
