"""The set-up files agree: what pip installs is what conda users get, pinned exactly."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pins(lines):
    pins = {}
    for line in lines:
        line = line.split("#", 1)[0].strip().removeprefix("- ").strip()
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s]+)", line)
        if m:
            pins[m.group(1).lower()] = m.group(2)
    return pins


def test_requirements_pin_every_package_exactly():
    lines = [
        ln.split("#", 1)[0].strip() for ln in (ROOT / "requirements.txt").read_text().splitlines()
    ]
    packages = [ln for ln in lines if ln]
    assert packages, "requirements.txt lists no package"
    unpinned = [ln for ln in packages if "==" not in ln]
    assert not unpinned, f"unpinned requirements (pin them with ==): {unpinned}"


def test_environment_yml_lists_the_same_pinned_packages_as_requirements():
    pip_pins = _pins((ROOT / "requirements.txt").read_text().splitlines())
    conda_pins = _pins((ROOT / "environment.yml").read_text().splitlines())
    assert conda_pins == pip_pins


def test_torch_is_pinned_to_a_cpu_friendly_exact_release():
    assert _pins((ROOT / "requirements.txt").read_text().splitlines())["torch"] == "2.13.0"


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in readme
    assert "make test" in ci
