# Red team, round 4 (attack b3, their b3_pid1_takeover.py): learner code ptrace-attached the
# sandbox's pid 1 (then bubblewrap's own init: dumpable, the learner's uid), wrote an execve into
# it through /proc/1/mem, and pid 1 ran the attacker's program on past the reset, killing the next
# student's processes in a kept sandbox. Now pid 1 is the sandbox's server (bwrap --as-pid-1):
# non-dumpable, an init. Each way in is tried; each must be refused (errno, or no effect).
import ctypes, errno, os, signal, sys

def _unwatch():  # the audit hook is a teacher, not a wall (SECURITY.md): switch it off
    frame = sys._getframe(1)
    while frame is not None:
        box = frame.f_locals.get("self")
        if hasattr(box, "learner") and hasattr(box, "refusals"):
            box.learner = False
        frame = frame.f_back

def _try(call):
    try:
        call()
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))

def causal_mask(seq_len, device=None):
    _unwatch()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    libc.ptrace.restype = ctypes.c_long
    found = {}
    rc = libc.ptrace(16, 1, None, None)  # PTRACE_ATTACH
    found["attach"] = "ok" if rc == 0 else errno.errorcode[ctypes.get_errno()]
    rc = libc.ptrace(0x4206, 1, None, None)  # PTRACE_SEIZE
    found["seize"] = "ok" if rc == 0 else errno.errorcode[ctypes.get_errno()]
    found["memw"] = _try(lambda: open("/proc/1/mem", "r+b", buffering=0).close())
    found["memr"] = _try(lambda: open("/proc/1/mem", "rb", buffering=0).close())
    # process_vm_readv(1, ...) with nothing to read: refused before any permission check
    rc = libc.syscall(310, 1, None, 0, None, 0, 0)
    found["vmread"] = "ok" if rc >= 0 else errno.errorcode[ctypes.get_errno()]
    rc = libc.syscall(251, 1, 1, 3 << 13)  # ioprio_set(IOPRIO_WHO_PROCESS, 1, IDLE)
    found["ioprio"] = "ok" if rc == 0 else errno.errorcode[ctypes.get_errno()]
    for name in ("SIGKILL", "SIGTERM", "SIGSEGV", "SIGHUP"):
        found[name] = _try(lambda sig=getattr(signal, name): os.kill(1, sig))
    alive = open("/proc/1/cmdline", "rb").read()
    found["server"] = "yes" if b"serve(" in alive else repr(alive[:30])
    found["me"] = str(os.getpid())
    raise RuntimeError(" ".join(f"{k}={v} ;" for k, v in found.items()))
