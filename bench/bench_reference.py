"""Benchmark the course's reference attention against named baselines, in one run.

(a) speed: course_lib.scaled_dot_product_attention vs torch's F.scaled_dot_product_attention
    on the CPU, float32, (B, L, d) = (8, 512, 64).  Target: at most 1.5x torch's time.
(b) memory: course_lib.tiled_attention vs the naive reference (course_lib's
    scaled_dot_product_attention) at L = 8192, d = 64, B = 1.  Target: tiled peak <= 5% of naive
    peak.  Peak memory is measured by course_lib.MemoryTracker, a TorchDispatchMode that adds up
    the bytes of every tensor storage the code creates while a tensor still refers to it
    (inputs made beforehand are not counted, for either side).
(c) speed of tiling: course_lib.tiled_attention vs F.scaled_dot_product_attention, CPU float32,
    (B, L, d) = (1, 8192, 64), 128-key tiles.  Target: at most 3x torch's time.  Also printed, for
    information: the ratio against the same data as (B, 1, L, d), which torch 2.13 sends to its
    fused flash kernel on the CPU (3-D inputs take the "math" path, which builds the scores).
(d) KV cache: greedy decoding with course_lib.generate, cached vs uncached, on a small
    TinyTransformer.  Target: the same tokens, and the cache at least 2x faster.

Prints every figure and exits 1 if a target is missed.  Run: ``python bench/bench_reference.py``
(``make bench``).
"""

import statistics
import sys
import time

import torch
import torch.nn.functional as F

from course_lib import MemoryTracker, scaled_dot_product_attention, tiled_attention
from course_lib.blocks import TinyTransformer, generate
from course_lib.device import time_alternately

SPEED_SHAPE = (8, 512, 64)  # (B, L, d)
SPEED_TARGET = 1.5  # reference time / torch time
SPEED_ROUNDS = 50

MEMORY_L, MEMORY_D, MEMORY_BLOCK = 8192, 64, 256
MEMORY_TARGET = 0.05  # tiled peak / naive peak


def bench_speed() -> bool:
    q, k, v = (torch.randn(SPEED_SHAPE) for _ in "qkv")
    functions = {
        "course_lib.scaled_dot_product_attention": lambda: scaled_dot_product_attention(q, k, v),
        "F.scaled_dot_product_attention (baseline)": lambda: F.scaled_dot_product_attention(
            q, k, v
        ),
    }
    times = time_alternately(functions, SPEED_ROUNDS, warm_up=3)
    ours, theirs = (times[name] for name in functions)
    best = min(ours) / min(theirs)
    median = statistics.median(ours) / statistics.median(theirs)
    passed = best <= SPEED_TARGET
    B, L, d = SPEED_SHAPE
    print(f"(a) speed, CPU float32, B={B} L={L} d={d}, {torch.get_num_threads()} threads")
    for name, samples in times.items():
        print(
            f"    {name:42} best {min(samples) * 1e3:7.2f} ms"
            f"   median {statistics.median(samples) * 1e3:7.2f} ms"
        )
    print(
        f"    time ratio {best:.2f}x (best of {SPEED_ROUNDS}; median ratio {median:.2f}x)"
        f"   target <= {SPEED_TARGET}x   {'PASS' if passed else 'FAIL'}"
    )
    return passed


def bench_memory() -> bool:
    L, d = MEMORY_L, MEMORY_D
    q, k, v = (torch.randn(1, L, d) for _ in "qkv")
    with torch.no_grad():
        start = time.perf_counter()
        with MemoryTracker() as naive_memory:
            naive, _ = scaled_dot_product_attention(q, k, v)
        naive_time = time.perf_counter() - start
        start = time.perf_counter()
        with MemoryTracker() as tiled_memory:
            tiled = tiled_attention(q, k, v, block_size=MEMORY_BLOCK)
        tiled_time = time.perf_counter() - start
    error = (tiled - naive).abs().max().item()
    ratio = tiled_memory.peak_bytes / naive_memory.peak_bytes
    passed = ratio <= MEMORY_TARGET and error < 1e-4
    mib = 2**20
    print(f"(b) peak memory, CPU float32, B=1 L={L} d={d}, tiled block_size={MEMORY_BLOCK}")
    print(
        f"    {'naive course_lib.scaled_dot_product_attention (baseline)':58}"
        f" {naive_memory.peak_bytes / mib:8.1f} MiB  {naive_time:6.2f} s"
        f"  largest tensor {naive_memory.largest_shape}"
    )
    print(
        f"    {'course_lib.tiled_attention':58}"
        f" {tiled_memory.peak_bytes / mib:8.1f} MiB  {tiled_time:6.2f} s"
        f"  largest tensor {tiled_memory.largest_shape}"
    )
    print(
        f"    peak ratio {ratio:.2%}   target <= {MEMORY_TARGET:.0%}"
        f"   (max |tiled - naive| = {error:.1e})   {'PASS' if passed else 'FAIL'}"
    )
    return passed


# ---- (c) tiled attention's speed ---------------------------------------------------------------

TILED_SHAPE, TILED_BLOCK = (1, 8192, 64), 128  # (B, L, d), keys per tile
TILED_TARGET = 3.0  # tiled time / torch time, (B, L, d) inputs
TILED_ROUNDS = 5


def bench_tiled_speed() -> bool:
    q, k, v = (torch.randn(TILED_SHAPE) for _ in "qkv")
    q4, k4, v4 = (t.unsqueeze(1) for t in (q, k, v))  # (B, 1, L, d): the same data with a head dim
    functions = {
        f"course_lib.tiled_attention(block_size={TILED_BLOCK})": lambda: tiled_attention(
            q, k, v, block_size=TILED_BLOCK
        ),
        "F.scaled_dot_product_attention (B, L, d) (baseline)": lambda: (
            F.scaled_dot_product_attention(q, k, v)
        ),
        "F.scaled_dot_product_attention (B, 1, L, d)": lambda: F.scaled_dot_product_attention(
            q4, k4, v4
        ),
    }
    times = time_alternately(functions, TILED_ROUNDS, warm_up=1)
    ours, theirs, fused = (times[name] for name in functions)
    best = min(ours) / min(theirs)
    median = statistics.median(ours) / statistics.median(theirs)
    passed = best <= TILED_TARGET
    B, L, d = TILED_SHAPE
    print(f"(c) tiled speed, CPU float32, B={B} L={L} d={d}, {torch.get_num_threads()} threads")
    for name, samples in times.items():
        print(f"    {name:52} best {min(samples) * 1e3:8.1f} ms")
    print(
        f"    time ratio {best:.2f}x (best of {TILED_ROUNDS}; median ratio {median:.2f}x)"
        f"   target <= {TILED_TARGET}x   {'PASS' if passed else 'FAIL'}"
    )
    print(
        f"    for information: {min(ours) / min(fused):.2f}x the time of the 4-D call, which "
        "torch sends to its fused flash kernel (3-D inputs take the math path)"
    )
    return passed


# ---- (d) KV-cache speed-up ---------------------------------------------------------------------

DECODE_PROMPT, DECODE_NEW = 8, 248  # tokens
DECODE_TARGET = 2.0  # uncached time / cached time
DECODE_ROUNDS = 3


def bench_kv_cache() -> bool:
    model = TinyTransformer(
        vocab_size=32, d_model=64, num_heads=4, num_layers=2, d_ff=128, max_len=256
    ).eval()
    prompt = torch.randint(0, 32, (1, DECODE_PROMPT))
    outputs = {}

    def decode(cache: bool):
        outputs[cache] = generate(model, prompt, DECODE_NEW, cache=cache)

    functions = {"uncached (baseline)": lambda: decode(False), "cached": lambda: decode(True)}
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # ops this small only spin-wait on a second thread
    try:
        times = time_alternately(functions, DECODE_ROUNDS, warm_up=1)
    finally:
        torch.set_num_threads(threads)
    uncached, cached = (min(times[name]) for name in functions)
    same = torch.equal(outputs[False], outputs[True])
    speed_up = uncached / cached
    passed = same and speed_up >= DECODE_TARGET
    print(
        f"(d) KV cache, greedy decoding, TinyTransformer(d_model=64, 2 layers), "
        f"prompt {DECODE_PROMPT} + {DECODE_NEW} new tokens, 1 thread"
    )
    print(
        f"    uncached (baseline) {uncached:6.2f} s   cached {cached:6.2f} s   same tokens: {same}"
    )
    print(
        f"    speed-up {speed_up:.1f}x (best of {DECODE_ROUNDS})   target >= {DECODE_TARGET}x"
        f"   {'PASS' if passed else 'FAIL'}"
    )
    return passed


def main() -> int:
    torch.manual_seed(0)
    results = [bench_speed(), bench_memory(), bench_tiled_speed(), bench_kv_cache()]
    print("All targets met." if all(results) else "Some targets MISSED.")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
