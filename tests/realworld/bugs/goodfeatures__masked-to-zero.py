# Source: georg-wolflein/good-features, ABMIL attention; bug report
# https://github.com/georg-wolflein/good-features/pull/1: masking by multiplication
# (a * mask) sets masked scores to 0, which softmax still weighs like any other score.
# Reproduced in the contract's terms: masked_scores multiplies by the bool mask.
# expect: masked-to-zero
# grade: masked_scores
def masked_scores(scores, mask):
    return scores * mask
