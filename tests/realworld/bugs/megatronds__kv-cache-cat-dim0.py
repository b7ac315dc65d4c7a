# Source: deepspeedai/Megatron-DeepSpeed, megatron/model/transformer.py, ParallelAttention
# inference path (`key_layer = torch.cat((past_key.type_as(key_layer), key_layer), dim=0)`,
# likewise the value); bug report in https://github.com/deepspeedai/Megatron-DeepSpeed/pull/112
# ("past_key are cat with key_layer on dim 0, but from the size of these two tensors
# [1, 5, 16, 64] and [1, 1, 16, 64] they can only cat with dim 1 ... the result I get contains a
# lot of repeated tokens").
# Reproduced in the contract's terms: a KVCache whose append concatenates along dim 0 (the batch
# dim of the contract's batch-first (B, h, L, d) tensors), not the sequence dim -2.
# expect: kv-cache-wrong-dim
# grade: KVCache
import torch


class KVCache:
    def __init__(self):
        self.layer_past = None

    def append(self, key_layer, value_layer):
        if self.layer_past is not None:
            past_key, past_value = self.layer_past
            key_layer = torch.cat((past_key.type_as(key_layer), key_layer), dim=0)
            value_layer = torch.cat((past_value.type_as(value_layer), value_layer), dim=0)
        self.layer_past = (key_layer, value_layer)
        return key_layer, value_layer
