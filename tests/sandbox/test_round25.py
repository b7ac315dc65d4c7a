"""Red team round 25 (notes: rt25): a learner owns the sandbox's tmpfs roots, and the reset
between two submissions in a kept sandbox left the roots' times (and inode flags) as the last
one set them: 64 bits in ``/dev/shm``'s mtime passed to every later student. Each reset now sets
them the same, and a sandbox whose roots still differ is not handed on."""

from __future__ import annotations

from autograder.grade.grading import grade_class
from tests.sandbox.marks import NEEDS_BWRAP
from tests.sandbox.test_round2 import submit
from tests.sandbox.test_round3 import GOOD_MASK

LEAVES = GOOD_MASK.replace(
    "def causal_mask(seq_len, device=None):\n",
    "def causal_mask(seq_len, device=None):\n"
    "    import os\n"
    "    for place in ('/dev/shm', '/tmp'):\n"
    "        fd = os.open(place, os.O_RDONLY)\n"
    "        os.utime(fd, ns=(1, 123456789012987654321))  # through a descriptor: no path\n"
    "        os.close(fd)\n",
)
READS = (
    GOOD_MASK
    + """
import os
def softmax(x, dim=-1):
    raise ValueError(f"times found: {[os.stat(p).st_mtime_ns for p in ('/dev/shm', '/tmp')]}")
"""
)


@NEEDS_BWRAP
def test_the_next_student_reads_no_time_the_last_one_left(tmp_path):
    assert "123456789012987654321" in LEAVES
    root = tmp_path / "submitted"
    submit(root, "a_sender", LEAVES)
    submit(root, "b_reader", READS)
    table = grade_class(root, tmp_path / "grades.csv", workers=1)  # one kept sandbox, in order
    rows = {g.student: {r.exercise: r for r in g.results} for g in table.rows}
    assert rows["a_sender"]["causal_mask"].passed  # what it did is not the grader's concern
    message = rows["b_reader"]["softmax"].message
    shm, tmp = (int(v) for v in message.split("times found: [")[1].split("]")[0].split(", "))
    assert shm == 0 and tmp != 123456789012987654321, message  # /tmp: its working folder's time
