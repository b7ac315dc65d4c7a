# grade: masked_scores
def masked_scores(scores, mask):
    return scores.masked_fill(mask == 0, -1e9)
