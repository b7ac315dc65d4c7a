"""Benchmark the course's reference attention against named baselines, in one run.

(a) speed: course_lib.scaled_dot_product_attention vs torch's F.scaled_dot_product_attention
    on the CPU, float32, (B, L, d) = (8, 512, 64).  Target: at most 1.5x torch's time.
(b) memory: course_lib.tiled_attention vs the naive reference (course_lib's
    scaled_dot_product_attention) at L = 8192, d = 64, B = 1.  Target: tiled peak <= 5% of naive
    peak.  Peak memory is measured by course_lib.MemoryTracker, a TorchDispatchMode that adds up
    the bytes of every tensor storage the code creates while a tensor still refers to it
    (inputs made beforehand are not counted, for either side).
(c) speed of tiling: course_lib.tiled_attention vs F.scaled_dot_product_attention, CPU float32,
    (B, L, d) = (1, 8192, 64), 128-key tiles.  Target: at most 3x torch's time, as the median of
    the per-round ratios of 7 interleaved rounds, on 1 thread, timed by the thread's own CPU time
    (time.thread_time): the work done, which other users of the machine do not inflate.  Also
    printed, for information: the ratio against the same data as (B, 1, L, d), which torch 2.13
    sends to its fused flash kernel on the CPU (3-D inputs take the "math" path, which builds
    the scores); and the wall-clock ratio on all threads, with the load average.  The tiled loop
    runs ~500 multi-threaded ops, each ending by waiting for every thread: when the load exceeds
    the cores, those waits for a descheduled thread, not the code, set its wall time.
(d) KV cache: greedy decoding with course_lib.generate, cached vs uncached, on a small
    TinyTransformer.  Target: the same tokens, and the cache at least 2x faster.
(e) lesson 08: course_lib.TinyTransformer trained as solutions/08_blocks trains it, to 99% exact
    match on the reverse puzzle.  Target: at most 60 CPU seconds.  Baseline, for information: the
    same model and loop with torch's nn.TransformerEncoderLayer (CPU time per step, ours / theirs).

Prints every figure and exits 1 if a target is missed.  Run: ``python bench/bench_reference.py``
(``make bench``).
"""

import os
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
TILED_TARGET = 3.0  # tiled time / torch time, (B, L, d) inputs, 1 thread
TILED_ROUNDS = 7  # the target is judged on the median of the per-round ratios
TILED_WALL_ROUNDS = 3  # for information: wall time on all threads


def _median_ratio(ours: list[float], theirs: list[float]) -> float:
    """The median of the per-round ratios: each pair ran back to back, under the same load."""
    return statistics.median(a / b for a, b in zip(ours, theirs, strict=True))


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
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # all the work in this thread, so that thread_time counts all of it
    try:
        times = time_alternately(functions, TILED_ROUNDS, warm_up=1, clock=time.thread_time)
    finally:
        torch.set_num_threads(threads)
    ours, theirs, fused = times.values()
    ratio = _median_ratio(ours, theirs)
    passed = ratio <= TILED_TARGET
    B, L, d = TILED_SHAPE
    print(f"(c) tiled speed, CPU float32, B={B} L={L} d={d}, 1 thread, CPU time of the thread")
    for name, samples in times.items():
        print(
            f"    {name:52} median {statistics.median(samples) * 1e3:8.1f} ms"
            f"   best {min(samples) * 1e3:8.1f} ms"
        )
    print(
        f"    time ratio {ratio:.2f}x (median of {TILED_ROUNDS} interleaved rounds;"
        f" best / best {min(ours) / min(theirs):.2f}x)   target <= {TILED_TARGET}x"
        f"   {'PASS' if passed else 'FAIL'}"
    )
    print(
        f"    for information: {_median_ratio(ours, fused):.2f}x the time of the 4-D call, which "
        "torch sends to its fused flash kernel (3-D inputs take the math path)"
    )
    tiled_and_baseline = dict(list(functions.items())[:2])
    wall = time_alternately(tiled_and_baseline, TILED_WALL_ROUNDS, warm_up=1)
    cores, load = len(os.sched_getaffinity(0)), os.getloadavg()[0]
    print(
        f"    for information: {_median_ratio(*wall.values()):.2f}x in wall time on {threads}"
        f" threads (median of {TILED_WALL_ROUNDS}), load average {load:.1f} on {cores} cores"
        + ("; busier than the cores, so this figure measures the waits" if load > cores else "")
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


# ---- (e) lesson 08: the tiny model's time to 99% exact match ------------------------------------
# The settings of solutions/08_blocks/08_blocks.ipynb ("Train it"); keep the two in step.
TINY_TASK, TINY_LENGTH, TINY_SYMBOLS = "reverse", 8, 10
TINY_CONFIG = dict(vocab_size=11, d_model=32, num_heads=2, num_layers=2, d_ff=64, max_len=16)
TINY_BATCH, TINY_LR, TINY_EVAL_EVERY, TINY_MAX_STEPS = 64, 3e-3, 10, 1500
TINY_TARGET_S = 60.0  # CPU seconds to 99% exact match (issue 11: at most 60 s on 2 cores)


def _train_to_99(model, held_out) -> tuple[int, float, float, float]:
    """The notebook's loop; returns (steps, exact match, wall seconds, CPU seconds)."""
    from course_lib.data import IGNORE_INDEX, toy_task_batch

    torch.manual_seed(0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=TINY_LR)
    wall, cpu = time.perf_counter(), time.process_time()
    accuracy = 0.0
    for step in range(TINY_MAX_STEPS + 1):
        inputs, targets = toy_task_batch(TINY_TASK, TINY_BATCH, TINY_LENGTH, TINY_SYMBOLS)
        loss = F.cross_entropy(model(inputs).flatten(0, 1), targets.flatten())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % TINY_EVAL_EVERY == 0:
            model.eval()
            with torch.no_grad():
                predicted = model(held_out[0]).argmax(-1)
            model.train()
            right = (predicted == held_out[1]) | (held_out[1] == IGNORE_INDEX)
            accuracy = right.all(-1).float().mean().item()
            if accuracy >= 0.99:
                break
    return step, accuracy, time.perf_counter() - wall, time.process_time() - cpu


class _TorchTinyTransformer(torch.nn.Module):
    """The baseline: the same model from torch's own nn.TransformerEncoderLayer (Pre-LN)."""

    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, max_len):
        super().__init__()
        self.token_embedding = torch.nn.Embedding(vocab_size, d_model)
        self.position_embedding = torch.nn.Embedding(max_len, d_model)
        layer = torch.nn.TransformerEncoderLayer(
            d_model, num_heads, d_ff, dropout=0.0, batch_first=True, norm_first=True
        )
        self.blocks = torch.nn.TransformerEncoder(layer, num_layers, enable_nested_tensor=False)
        self.norm = torch.nn.LayerNorm(d_model)
        self.lm_head = torch.nn.Linear(d_model, vocab_size)

    def forward(self, tokens):
        L = tokens.size(1)
        x = self.token_embedding(tokens) + self.position_embedding.weight[:L]  # (B, L, M)
        blocked = torch.ones(L, L, dtype=torch.bool, device=tokens.device).triu(1)  # True: hidden
        return self.lm_head(self.norm(self.blocks(x, mask=blocked, is_causal=True)))


def bench_tiny_model() -> bool:
    from course_lib import TinyTransformer
    from course_lib.data import toy_task_batch

    held_out = toy_task_batch(
        TINY_TASK, 1000, TINY_LENGTH, TINY_SYMBOLS, generator=torch.Generator().manual_seed(1)
    )
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as the notebook does: tiny matrices gain nothing from threads
    results = {}
    for name, cls in (
        ("course_lib.TinyTransformer", TinyTransformer),
        ("nn.TransformerEncoderLayer (baseline)", _TorchTinyTransformer),
    ):
        torch.manual_seed(0)
        results[name] = _train_to_99(cls(**TINY_CONFIG), held_out)
    torch.set_num_threads(threads)
    (steps, accuracy, wall, cpu), (b_steps, b_accuracy, b_wall, b_cpu) = results.values()
    per_step = (cpu / (steps + 1)) / (b_cpu / (b_steps + 1))
    passed = accuracy >= 0.99 and cpu <= TINY_TARGET_S
    print(
        f"(e) lesson 08 tiny model, {TINY_TASK} of {TINY_LENGTH} symbols, "
        "1 thread: time to 99% exact match"
    )
    for name, (s, a, w, c) in results.items():
        print(f"    {name:40} {s:5} steps  exact match {a:6.1%}  wall {w:6.1f} s  CPU {c:6.1f} s")
    print(
        f"    CPU time per step, ours / baseline {per_step:.2f}x (information)"
        f"   target: 99% within {TINY_TARGET_S:.0f} CPU s   {'PASS' if passed else 'FAIL'}"
    )
    return passed


def main() -> int:
    torch.manual_seed(0)
    results = [bench_speed(), bench_memory(), bench_tiled_speed(), bench_kv_cache()]
    results.append(bench_tiny_model())
    print("All targets met." if all(results) else "Some targets MISSED.")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
