"""course_lib.device: pick_device, the per-device reference check, and the doctor."""

import subprocess
import sys

import pytest
import torch

from course_lib import device as device_module
from course_lib import pick_device, scaled_dot_product_attention, tiled_attention
from course_lib.device import CHECK_DTYPES, check_reference, dtype_supported, speed_comparison


def test_pick_device_prefers_cuda_then_mps_then_cpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    assert pick_device() == torch.device("cpu")
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert pick_device() == torch.device("mps")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert pick_device() == torch.device("cuda")


@pytest.mark.parametrize("dtype", CHECK_DTYPES, ids=str)
def test_reference_passes_the_doctor_check_on_cpu(dtype):
    results = check_reference("cpu", dtype)
    assert {r.name for r in results} == {
        "scaled_dot_product_attention",
        "tiled_attention",
        "MultiHeadAttention",
    }
    for r in results:
        assert r.passed, f"{r.name} in {r.dtype}: max error {r.max_error:.1e}"


def test_doctor_check_fails_when_results_are_wrong(monkeypatch):
    from course_lib import attention

    right = attention.scaled_dot_product_attention

    def wrong(q, k, v, mask=None):
        output, weights = right(q, k, v, mask)
        return output * 1.01, weights

    monkeypatch.setattr(attention, "scaled_dot_product_attention", wrong)
    results = check_reference("cpu", torch.float32)
    assert not all(r.passed for r in results)
    assert device_module.main(["--no-speed"]) == 1


def test_speed_comparison_times_both_implementations():
    ours, theirs = speed_comparison("cpu", shape=(2, 64, 16), repeats=2)
    assert 0 < ours < 1 and 0 < theirs < 1


def test_doctor_prints_the_environment_and_exits_0_when_checks_pass(capsys):
    assert device_module.main(["--no-speed"]) == 0
    out = capsys.readouterr().out
    for expected in ["Python", "torch", "CUDA", "MPS", "picked", "All checks passed"]:
        assert expected in out


def test_python_m_course_lib_device_runs_cleanly():
    result = subprocess.run(
        [sys.executable, "-m", "course_lib.device", "--no-speed"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "All checks passed" in result.stdout
    assert "Warning" not in result.stderr


# --- on a real accelerator -----------------------------------------------------------------


@pytest.mark.gpu
def test_pick_device_picks_the_accelerator(gpu_device):
    assert pick_device().type == gpu_device.type


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", CHECK_DTYPES, ids=str)
def test_reference_passes_the_doctor_check_on_the_accelerator(gpu_device, dtype):
    if not dtype_supported(gpu_device, dtype):
        pytest.skip(f"{dtype} is not supported on {gpu_device}")
    for r in check_reference(gpu_device, dtype):
        assert r.passed, f"{r.name} on {r.device} in {r.dtype}: max error {r.max_error:.1e}"


@pytest.mark.gpu
def test_attention_on_the_accelerator_stays_there_and_matches_cpu(gpu_device):
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 40, 16, generator=g) for _ in range(3))
    mask = torch.ones(40, 40, dtype=torch.bool).tril()
    expected, _ = scaled_dot_product_attention(q, k, v, mask)
    output, weights = scaled_dot_product_attention(
        q.to(gpu_device), k.to(gpu_device), v.to(gpu_device), mask.to(gpu_device)
    )
    tiled = tiled_attention(q.to(gpu_device), k.to(gpu_device), v.to(gpu_device), 16, True)
    assert output.device.type == weights.device.type == tiled.device.type == gpu_device.type
    torch.testing.assert_close(output.cpu(), expected, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(tiled.cpu(), expected, atol=1e-4, rtol=1e-4)
