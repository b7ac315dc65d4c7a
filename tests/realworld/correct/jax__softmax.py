# Source: jax-ml/jax, jax/_src/nn/functions.py (v0.4.30), softmax without the custom JVP
# (`config.softmax_custom_jvp` off): `x_max = jnp.max(x, axis, where=where, initial=initial,
# keepdims=True)`, `unnormalized = jnp.exp(x - lax.stop_gradient(x_max))`, `result =
# unnormalized / jnp.sum(unnormalized, axis, where=where, keepdims=True)`.
# Adapted to the contract: torch instead of jax.numpy, lax.stop_gradient is Tensor.detach() (the
# shift cancels, so the gradient is softmax's either way), axis is dim; no where/initial
# arguments; a row of all -inf (JAX gives NaN there) has its max taken as 0 and its zero sum as 1,
# so it gives zeros as COURSE_SPEC asks.
# Kept: the max with keepdims, the stop-gradient on it, exp, sum with keepdims, divide.
# grade: softmax
import torch


def softmax(x, dim=-1):
    x_max = torch.amax(x, dim, keepdim=True)
    x_max = torch.where(torch.isneginf(x_max), torch.zeros_like(x_max), x_max)
    unnormalized = torch.exp(x - x_max.detach())
    total = torch.sum(unnormalized, dim, keepdim=True)
    result = unnormalized / torch.where(total == 0, torch.ones_like(total), total)
    return result
