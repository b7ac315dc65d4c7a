"""Benchmark the course's reference attention against named baselines, in one run.

(a) speed: course_lib.scaled_dot_product_attention vs torch's F.scaled_dot_product_attention
    on the CPU, float32, (B, L, d) = (8, 512, 64).  Target: at most 1.5x torch's time.
(b) memory: course_lib.tiled_attention vs the naive reference (course_lib's
    scaled_dot_product_attention) at L = 8192, d = 64, B = 1.  Target: tiled peak <= 5% of naive
    peak.  Peak memory is measured by course_lib.MemoryTracker, a TorchDispatchMode that adds up
    the bytes of every tensor storage the code creates while a tensor still refers to it
    (inputs made beforehand are not counted, for either side).

Prints every figure and exits 1 if a target is missed.  Run: ``python bench/bench_reference.py``
(``make bench``).
"""

import statistics
import sys
import time

import torch
import torch.nn.functional as F

from course_lib import MemoryTracker, scaled_dot_product_attention, tiled_attention
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


def main() -> int:
    torch.manual_seed(0)
    results = [bench_speed(), bench_memory()]
    print("All targets met." if all(results) else "Some targets MISSED.")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
