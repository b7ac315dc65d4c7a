# grade: masked_scores
def masked_scores(scores, mask):
    return scores.masked_fill_(~mask, float("-inf"))
