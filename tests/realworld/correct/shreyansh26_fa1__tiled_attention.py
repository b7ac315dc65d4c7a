# Source: shreyansh26/FlashAttention-PyTorch, flash_attention_core/versions/fa1.py, forward
# ("FA1: baseline tiled online-softmax attention": K/V tiles in the outer loop, query tiles in
# the inner loop, per query tile an output block kept normalised plus its running row max and
# normaliser, merged tile by tile, then torch.cat(out_blocks, dim=2)).
# Adapted to the contract: one function (q, k, v, block_size, causal) with the same block size
# for queries and keys; the helpers (block_scores_and_mask, compute_local_statistics,
# merge_state_normalized) written inline; any leading dims (dim=-2); statistics and outputs in
# float32 for half inputs (float64 kept, as the source computes in the inputs' dtype), the result
# cast back to the inputs' dtype; no backward (autograd) and no padding mask.
# grade: tiled_attention
import torch


def iter_block_slices(length, block_size):
    return [slice(start, min(start + block_size, length)) for start in range(0, length, block_size)]


def tiled_attention(q, k, v, block_size=64, causal=False):
    dtype = q.dtype
    q, k, v = (t.to(torch.promote_types(dtype, torch.float32)) for t in (q, k, v))
    scale = q.shape[-1] ** -0.5
    q_slices = iter_block_slices(q.shape[-2], block_size)
    k_slices = iter_block_slices(k.shape[-2], block_size)
    lead = q.shape[:-2]
    out_blocks = [q.new_zeros(*lead, s.stop - s.start, v.shape[-1]) for s in q_slices]
    normalizer_blocks = [q.new_zeros(*lead, s.stop - s.start, 1) for s in q_slices]
    row_max_blocks = [torch.full_like(block, float("-inf")) for block in normalizer_blocks]

    for k_slice in k_slices:
        k_block = k[..., k_slice, :]
        v_block = v[..., k_slice, :]
        for q_index, q_slice in enumerate(q_slices):
            # block_scores_and_mask
            scores = q[..., q_slice, :] @ k_block.transpose(-2, -1) * scale
            if causal:
                rows = torch.arange(q_slice.start, q_slice.stop, device=q.device)[:, None]
                cols = torch.arange(k_slice.start, k_slice.stop, device=q.device)[None, :]
                scores = scores.masked_fill(cols > rows, float("-inf"))
            # compute_local_statistics
            block_max = scores.amax(dim=-1, keepdim=True)
            # merge_state_normalized
            old_max = row_max_blocks[q_index]
            new_max = torch.maximum(old_max, block_max)
            safe_max = torch.where(torch.isneginf(new_max), torch.zeros_like(new_max), new_max)
            probs = torch.exp(scores - safe_max)
            old_weight = torch.exp(old_max - safe_max) * normalizer_blocks[q_index]
            new_normalizer = old_weight + probs.sum(dim=-1, keepdim=True)
            out_blocks[q_index] = (old_weight * out_blocks[q_index] + probs @ v_block) / new_normalizer.clamp(
                min=torch.finfo(torch.float32).tiny
            )
            normalizer_blocks[q_index] = new_normalizer
            row_max_blocks[q_index] = new_max

    return torch.cat(out_blocks, dim=-2).to(dtype)
