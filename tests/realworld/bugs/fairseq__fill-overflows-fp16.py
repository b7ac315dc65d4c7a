# Source: facebookresearch/fairseq, fairseq/modules/transformer_layer.py,
# TransformerEncoderLayer.forward (attn_mask.masked_fill(attn_mask.to(torch.bool), -1e8)); bug
# report https://github.com/facebookresearch/fairseq/issues/3575: "value cannot be converted to
# type at::Half without overflow: -1e+08" in fp16.
# Reproduced in the contract's terms: masked_scores fills the masked-out (False) positions with
# -1e8.
# expect: fill-overflows-fp16
# grade: masked_scores
def masked_scores(scores, mask):
    return scores.masked_fill(~mask, -1e8)
