# Issue 20's red team, round 4 (repro 4): state that outlives a process and survived a kept
# sandbox's reset into the next student's grading: a POSIX message queue (mq_open) and keys in the
# user keyrings (add_key to @u, @us); also io_uring, kernel attack surface nothing here needs.
# Each is tried with the audit hook off, straight through syscall(2); the errno of each is reported
# (0: it worked). The next student looks for what this one left.
import ctypes
import platform
import sys

NR = {  # x86_64: <asm/unistd_64.h>; aarch64: <asm-generic/unistd.h>
    "x86_64": {"mq_open": 240, "add_key": 248, "request_key": 249, "keyctl": 250, "uring": 425},
    "aarch64": {"mq_open": 180, "add_key": 217, "request_key": 218, "keyctl": 219, "uring": 425},
}[platform.machine()]


def _unwatch():
    frame = sys._getframe(1)
    while frame is not None:
        box = frame.f_locals.get("self")
        if hasattr(box, "learner") and hasattr(box, "refusals"):
            box.learner = False
        frame = frame.f_back


def _errno(result: int) -> int:
    return 0 if result >= 0 else ctypes.get_errno()


def causal_mask(seq_len, device=None):
    _unwatch()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    got = {}
    if "__MODE__" == "leave":
        got["mq_open"] = _errno(libc.syscall(NR["mq_open"], b"leak", 0o102, 0o666, None))
        for ring, name in ((-4, b"leak-u"), (-5, b"leak-us")):  # @u, @us
            key = libc.syscall(NR["add_key"], b"user", name, b"secret", 6, ring)
            got[f"add_key {ring}"] = _errno(key)
        params = ctypes.create_string_buffer(120)  # struct io_uring_params
        got["io_uring_setup"] = _errno(libc.syscall(NR["uring"], 4, params))
    else:  # look for what the last student left
        got["mq_open"] = _errno(libc.syscall(NR["mq_open"], b"leak", 2, 0, None))
        got["request_key"] = _errno(libc.syscall(NR["request_key"], b"user", b"leak-u", None, -4))
        got["keyctl"] = _errno(libc.syscall(NR["keyctl"], 10, -4, b"user", b"leak-u", 0))
    raise RuntimeError("errnos " + ", ".join(f"{k}={v}" for k, v in got.items()) + " ;")
