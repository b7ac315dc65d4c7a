# Source: Birch-san's SubQuadraticCrossAttnProcessor (diffusers-play; vendored in
# AUTOMATIC1111/stable-diffusion-webui and ComfyUI): `query = query.unflatten(-1, (attn.heads,
# -1)).transpose(1, 2).flatten(end_dim=1)` to split heads, and `hidden_states =
# hidden_states.unflatten(0, (-1, attn.heads)).transpose(1, 2).flatten(start_dim=2)` to merge.
# Adapted to the contract: split_heads keeps the head dim (B, h, L, d_head), so the
# flatten(end_dim=1) into batch * heads (which the processor's bmm wants) is left out, and
# merge_heads takes (B, h, L, d_head) (no unflatten(0, ...) of batch * heads first).
# Kept: unflatten(-1, (heads, -1)), transpose(1, 2), flatten(start_dim=2).
# grade: split_heads merge_heads
def split_heads(x, num_heads):
    return x.unflatten(-1, (num_heads, -1)).transpose(1, 2)


def merge_heads(x):
    return x.transpose(1, 2).flatten(start_dim=2)
