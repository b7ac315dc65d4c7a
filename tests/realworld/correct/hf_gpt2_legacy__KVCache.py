# Source: huggingface/transformers, src/transformers/models/gpt2/modeling_gpt2.py (v4.30, the
# tuple cache before Cache classes), GPT2Attention.forward:
#   if layer_past is not None:
#       past_key, past_value = layer_past
#       key = torch.cat((past_key, key), dim=-2)
#       value = torch.cat((past_value, value), dim=-2)
#   if use_cache is True: present = (key, value)
# Adapted to the contract: the `layer_past`/`present` tuple is kept inside a KVCache object, whose
# append(k, v) does the concatenation and returns (k_all, v_all) as the layer then uses them.
# grade: KVCache
import torch


class KVCache:
    def __init__(self):
        self.layer_past = None

    def append(self, key, value):
        if self.layer_past is not None:
            past_key, past_value = self.layer_past
            key = torch.cat((past_key, key), dim=-2)
            value = torch.cat((past_value, value), dim=-2)
        present = (key, value)
        self.layer_past = present
        return key, value
