"""The red team's breaks after issue 20's round 2, each tried through the real sandbox, each
gaining nothing, and a correct classmate graded next in the same kept sandbox (as ``grade
--workers 1`` does) keeping its points.

1. Points without tiling: the memory a call uses is measured by the sandbox's server, outside the
   learner's processes; replacing every in-process measure gains nothing, and what cannot be
   measured (memory made unreadable, a process that ends during the call) fails.
2. A reply too big to decode quickly (a 60 MB list) fails its exercise at once.
3. and 4. No memory outside the caps: no nested user or mount namespace (a tmpfs of half the
   RAM), no memory files, few open files.
5. No folder left in /tmp per run.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from autograder.core.extract import from_file
from autograder.core.judge import judge_code, judge_source
from autograder.sandbox.host import bwrap, pool
from autograder.sandbox.inside.lockdown import OPEN_FILES_LIMIT
from autograder.sandbox.protocol import MAX_PICKLE, ProtocolError, encode, parse
from tests.sandbox.marks import NEEDS_BWRAP

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).parent / "hostile"
pytestmark = NEEDS_BWRAP
GOOD_MASK = (
    "import torch\n"
    "def causal_mask(seq_len, device=None):\n"
    "    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()\n"
)


def hostile(name: str, **values) -> str:
    source = (HOSTILE / name).read_text()
    for key, value in values.items():
        source = source.replace(f"__{key.upper()}__", str(value))
    return source


def attacker_then_classmate(attack: str, exercise: str, classmate) -> tuple:
    """The attacker's ``exercise``, then the classmate's, in one kept sandbox."""
    with pool.isolated(fresh=False):
        [a] = judge_source(attack, [exercise], label="attacker.py")
    with pool.isolated(fresh=False):
        [b] = (
            judge_code(classmate, [exercise])
            if not isinstance(classmate, str)
            else (judge_source(classmate, [exercise], label="classmate.py"))
        )
    return a, b


# -- 1. the memory of a call is measured outside the learner's reach -----------------------------
@pytest.mark.parametrize("mode", ["forge", "undumpable", "prealloc", "forks"])
def test_tiled_attention_building_the_full_matrix_scores_nothing_whatever_it_forges(mode):
    solution = from_file(ROOT / "solutions" / "09_efficient" / "09_efficient.ipynb")
    a, b = attacker_then_classmate(
        hostile("forges_memory.py", mode=mode), "tiled_attention", solution
    )
    assert not a.passed
    if mode in ("forge", "prealloc"):  # measured all the same
        assert a.mistake == "materialises-full-matrix", a
    else:  # cannot be measured: fails closed, saying why
        assert "could not measure the memory" in a.message, a
    assert b.passed, b


def test_a_call_s_peak_memory_is_measured_from_outside_and_counts_what_it_allocates():
    from autograder.sandbox.host.submission import Submission

    source = "import torch\ndef f(n):\n    return float(torch.ones(n, n).sum())\n"

    class Exercise:
        name, time_limit = "f", 10.0

    with Submission([("f.py", source)], {}) as sub:
        sub.begin(Exercise)
        small = sub.peak_memory("f", 8)
        big = sub.peak_memory("f", 4096)
    assert small[0] == 64.0 and small[1] < 2**20, small  # the first call too: its code mapped
    assert big[0] == 4096.0**2 and big[1] >= 4096**2 * 4 * 0.9, big


# -- 2. a reply too big to decode quickly --------------------------------------------------------
def test_a_sixty_megabyte_reply_fails_its_exercise_at_once_and_the_classmate_keeps_its_points():
    a, b = attacker_then_classmate(hostile("huge_reply.py"), "causal_mask", GOOD_MASK)
    assert not a.passed and "plain data" in a.message and "\n" not in a.message.strip(), a
    assert b.passed, b


def test_plain_data_past_the_limit_is_refused_before_it_is_decoded():
    small = encode({"type": "reply", "trace": None, "value": list(range(1000))})
    assert parse(small)["value"] == list(range(1000))
    big = encode({"type": "reply", "trace": None, "value": list(range(MAX_PICKLE))})
    with pytest.raises(ProtocolError, match="KiB of plain data"):
        parse(big)
    # what is not a torch.save archive is refused whatever its size (round 18)
    with pytest.raises(ProtocolError, match="not an archive"):
        parse(b"\x80\x04" + b"N" * MAX_PICKLE)


# -- 3. and 4. no memory outside the caps --------------------------------------------------------
def test_no_nested_namespace_no_memory_file_and_few_open_files():
    a, b = attacker_then_classmate(hostile("hoards_memory.py", mib=256), "causal_mask", GOOD_MASK)
    assert "held 0 MiB" in a.message, a
    assert "errno 1" in a.message and "memfd 1" in a.message, a  # EPERM, from seccomp
    assert b.passed, b
    probe = (
        "import os\n"
        "def causal_mask(seq_len, device=None):\n"
        "    fds = []\n"
        "    try:\n"
        "        while len(fds) < 1000:\n"
        "            fds.append(os.open('/dev/null', os.O_RDONLY))\n"
        "    except OSError:\n"
        "        pass\n"
        "    raise RuntimeError(f'opened {len(fds)}')\n"
    )
    [r] = judge_source(probe, ["causal_mask"])
    opened = int(r.message.split("opened ", 1)[1].split()[0])
    assert opened < OPEN_FILES_LIMIT, r.message


# -- 5. nothing left in /tmp ---------------------------------------------------------------------
def test_judges_share_one_font_copy_and_one_staging_folder_per_user(monkeypatch):
    bwrap._font_cache()
    before = set(os.listdir(tempfile.gettempdir()))
    monkeypatch.setattr(bwrap, "_probe", {})  # a new judge
    fonts = bwrap._font_cache()
    if fonts is not None:
        assert os.path.dirname(fonts) == os.path.join(
            tempfile.gettempdir(), f"autograder-fonts-{os.geteuid()}"
        )
    assert set(os.listdir(tempfile.gettempdir())) - before == set()


def test_a_folder_another_user_holds_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    (tmp_path / "autograder-x").mkdir(mode=0o777)
    os.chmod(tmp_path / "autograder-x", 0o777)  # writable by others: not ours to trust
    got = bwrap._own_folder("autograder-x")
    assert got != str(tmp_path / "autograder-x") and os.path.isdir(got)
    assert bwrap._own_folder("autograder-y") == str(tmp_path / "autograder-y")
