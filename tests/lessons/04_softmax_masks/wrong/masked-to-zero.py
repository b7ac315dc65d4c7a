# grade: masked_scores
def masked_scores(scores, mask):
    return scores * mask
