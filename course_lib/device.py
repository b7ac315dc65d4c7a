"""Which device to use, and a doctor that checks the course runs correctly on each one.

``pick_device()`` is the one place that chooses a device: CUDA, else Apple's MPS, else the CPU.
Lessons call it once and create every tensor on that device; nothing hard-codes ``.cuda()``.

``python -m course_lib.device`` (``make doctor``) prints the environment, checks the reference
attention on every available device and dtype against the same computation on the CPU in
float64, compares its speed with ``F.scaled_dot_product_attention``, and exits 0 when every
check passes (1 otherwise).
"""

import argparse
import os
import platform
import sys
import time
import unicodedata
from dataclasses import dataclass

import torch
import torch.nn.functional as F

from course_lib.labels import tr

# Allowed error |actual - expected| <= atol + rtol * |expected|, per dtype: a few times the
# rounding error of attention on unit-scale inputs (float16 has ~3 significant digits,
# bfloat16 ~2).
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float64: (1e-10, 1e-10),
    torch.float32: (1e-5, 1e-4),
    torch.float16: (5e-3, 5e-3),
    torch.bfloat16: (4e-2, 4e-2),
}
CHECK_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def pick_device() -> torch.device:
    """The best available device: ``cuda`` > ``mps`` > ``cpu``."""
    if torch.cuda.is_available():
        return torch.device("cuda")
    if torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def available_devices() -> list[torch.device]:
    """Every device this machine offers: the CPU, then CUDA GPUs and MPS if present."""
    devices = [torch.device("cpu")]
    devices += [torch.device("cuda", i) for i in range(torch.cuda.device_count())]
    if torch.backends.mps.is_available():
        devices.append(torch.device("mps"))
    return devices


def dtype_supported(device: torch.device, dtype: torch.dtype) -> bool:
    """Whether a small matmul and exp work in ``dtype`` on ``device`` (bfloat16 on old GPUs
    or old macOS does not)."""
    try:
        x = torch.ones(2, 2, device=device, dtype=dtype)
        (x @ x).exp().sum().item()
        return True
    except (RuntimeError, TypeError):
        return False


def environment_report() -> list[str]:
    """Lines describing Python, torch and the devices."""
    lines = [
        f"Python   {sys.version.split()[0]} ({platform.platform()})",
        f"torch    {torch.__version__} ({torch.get_num_threads()} CPU threads)",
        "CPU      "
        + tr(
            "{cpu}, {cores} cores, {memory} RAM",
            cpu=platform.processor() or platform.machine(),
            cores=os.cpu_count(),
            memory=_format_bytes(_cpu_memory_bytes()),
        ),
    ]
    if torch.cuda.is_available():
        lines.append("CUDA     " + tr("available (CUDA {version})", version=torch.version.cuda))
        for i in range(torch.cuda.device_count()):
            props = torch.cuda.get_device_properties(i)
            lines.append(f"  cuda:{i}  {props.name}, {_format_bytes(props.total_memory)}")
    else:
        lines.append("CUDA     " + tr("not available"))
    if torch.backends.mps.is_available():
        said = tr("available, {memory} recommended max", memory=_format_bytes(_mps_memory_bytes()))
        lines.append("MPS      " + said)
    else:
        if torch.backends.mps.is_built():
            said = tr("not available (built into this torch)")
        else:
            said = tr("not available (not built into this torch)")
        lines.append("MPS      " + said)
    picked = tr("picked")  # as wide as the other labels (9 columns; a Chinese character is 2)
    width = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in picked)
    lines.append(picked + " " * max(1, 9 - width) + f"{pick_device()}  (course_lib.pick_device())")
    return lines


@dataclass
class CheckResult:
    name: str
    device: str
    dtype: str
    max_error: float
    passed: bool


def check_reference(device: torch.device | str, dtype: torch.dtype) -> list[CheckResult]:
    """Run the reference on ``device`` in ``dtype`` and compare with CPU float64.

    Checks scaled_dot_product_attention with a causal mask and one fully masked query row,
    tiled_attention (causal, length not a multiple of the block), and MultiHeadAttention.
    """
    # Imported here: course_lib/__init__ imports this module for pick_device.
    from course_lib.attention import scaled_dot_product_attention
    from course_lib.efficient import tiled_attention
    from course_lib.masks import causal_mask
    from course_lib.multihead import MultiHeadAttention

    device = torch.device(device)
    generator = torch.Generator().manual_seed(0)
    B, H, T, D = 2, 4, 37, 16
    q, k, v = (torch.randn(B, H, T, D, generator=generator, dtype=torch.float64) for _ in "qkv")
    mask = causal_mask(T)
    mask[5] = False  # query 5 may attend to nothing: zero weights, zero output
    x = torch.randn(B, T, H * D, generator=generator, dtype=torch.float64)
    mha = MultiHeadAttention(H * D, H, bias=True).double()

    def on_device(t: torch.Tensor) -> torch.Tensor:
        return t.to(device=device, dtype=dtype if t.is_floating_point() else t.dtype)

    cases = {
        "scaled_dot_product_attention": (
            lambda: scaled_dot_product_attention(q, k, v, mask)[0],
            lambda: scaled_dot_product_attention(*map(on_device, (q, k, v, mask)))[0],
        ),
        "tiled_attention": (
            lambda: scaled_dot_product_attention(q, k, v, causal_mask(T))[0],
            lambda: tiled_attention(*map(on_device, (q, k, v)), block_size=16, causal=True),
        ),
        "MultiHeadAttention": (
            lambda: mha(x, mask=mask)[0],
            lambda: _copy_module(mha, device, dtype)(on_device(x), mask=on_device(mask))[0],
        ),
    }
    atol, rtol = TOLERANCES[dtype]
    results = []
    with torch.no_grad():
        for name, (expected_fn, actual_fn) in cases.items():
            expected = expected_fn()
            actual = actual_fn().to("cpu", torch.float64)
            error = (actual - expected).abs()
            passed = bool(torch.all(error <= atol + rtol * expected.abs()))
            results.append(
                CheckResult(name, str(device), _dtype_name(dtype), error.max().item(), passed)
            )
    return results


def time_alternately(
    functions, repeats: int, device="cpu", warm_up: int = 2, clock=time.perf_counter
):
    """Seconds of each of ``functions`` (a dict name -> callable), ``repeats`` samples each.

    The functions run in turn, round after round, so that all of them see the same machine
    load; the first ``warm_up`` rounds are not counted.  ``clock`` reads the time: wall time by
    default; ``time.thread_time`` counts only this thread's CPU time, which other processes do
    not inflate (for CPU code run with ``torch.set_num_threads(1)``).
    """
    device = torch.device(device)
    samples: dict[str, list[float]] = {name: [] for name in functions}
    with torch.no_grad():
        for round_ in range(warm_up + repeats):
            for name, function in functions.items():
                _synchronize(device)
                start = clock()
                function()
                _synchronize(device)
                if round_ >= warm_up:
                    samples[name].append(clock() - start)
    return samples


def speed_comparison(
    device: torch.device | str,
    dtype: torch.dtype = torch.float32,
    shape: tuple[int, int, int] = (8, 512, 64),
    repeats: int = 20,
) -> tuple[float, float]:
    """Best-of-``repeats`` seconds of the reference vs ``F.scaled_dot_product_attention``,
    on ``(B, L, d) = shape``, measured alternately."""
    from course_lib.attention import scaled_dot_product_attention

    q, k, v = (torch.randn(shape, device=device, dtype=dtype) for _ in "qkv")
    times = time_alternately(
        {
            "reference": lambda: scaled_dot_product_attention(q, k, v),
            "torch": lambda: F.scaled_dot_product_attention(q, k, v),
        },
        repeats,
        device,
    )
    return min(times["reference"]), min(times["torch"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m course_lib.device",
        description="Check that the course's reference attention works on every device here.",
    )
    parser.add_argument("--no-speed", action="store_true", help="skip the speed comparison")
    args = parser.parse_args(argv)

    print("== Environment")
    for line in environment_report():
        print(line)

    print("\n== Correctness: reference on each device and dtype vs CPU float64")
    all_passed = True
    for device in available_devices():
        for dtype in CHECK_DTYPES:
            if not dtype_supported(device, dtype):
                print(f"  {str(device):7} {_dtype_name(dtype):9} not supported here, skipped")
                continue
            for r in check_reference(device, dtype):
                all_passed &= r.passed
                verdict = "ok  " if r.passed else "FAIL"
                print(
                    f"  {verdict} {r.device:7} {r.dtype:9} {r.name:29} max error {r.max_error:.1e}"
                )

    if not args.no_speed:
        print(
            "\n== Speed: reference vs F.scaled_dot_product_attention,"
            " float32, (B, L, d) = (8, 512, 64)"
        )
        for device in available_devices():
            ours, theirs = speed_comparison(device)
            print(
                f"  {str(device):7} reference {ours * 1e3:8.2f} ms   torch {theirs * 1e3:8.2f} ms"
                f"   ratio {ours / theirs:5.2f}x"
            )

    print("\nAll checks passed." if all_passed else "\nSome checks FAILED (see above).")
    return 0 if all_passed else 1


def _copy_module(module: torch.nn.Module, device: torch.device, dtype: torch.dtype):
    import copy

    return copy.deepcopy(module).to(device=device, dtype=dtype)


def _synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _cpu_memory_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None  # e.g. Windows


def _mps_memory_bytes() -> int | None:
    try:
        return torch.mps.recommended_max_memory()
    except (AttributeError, RuntimeError):
        return None


def _format_bytes(n: int | None) -> str:
    return "unknown" if n is None else f"{n / 2**30:.1f} GiB"


if __name__ == "__main__":
    sys.exit(main())
