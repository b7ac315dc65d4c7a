"""The seccomp filter bubblewrap installs for learner code (``bwrap --seccomp FD``): a classic BPF
program built here, per CPU. See SECURITY.md."""

from __future__ import annotations

import platform
import struct

# The seccomp filter (:func:`program`), per CPU: its AUDIT_ARCH, then the syscalls it
# refuses or looks into. Refused outright (EPERM): System V IPC (shmget, msgget, semget...), whose
# objects outlive a process and no tmpfs or rlimit caps; POSIX message queues (mq_open, mq_unlink,
# mq_timedsend, mq_timedreceive, mq_notify, mq_getsetattr) and kernel keyrings (add_key,
# request_key, keyctl), which outlive a process too and would survive a kept sandbox's reset into
# the next student's grading; io_uring (io_uring_setup, _enter, _register: kernel attack surface
# nothing here needs); memfd_create and memfd_secret (memory files that no cap counts); setns.
# The numbers: x86_64 from <asm/unistd_64.h>, aarch64 from <asm-generic/unistd.h> (Linux's
# headers, as /usr/include ships them; io_uring is 425-427 on both). Looked into: unshare and
# clone, refused (EPERM) with any namespace flag (a new user namespace would bring a mount
# namespace, and a tmpfs of half the RAM, of its own). clone3 passes its flags in memory a filter
# cannot read: refused with ENOSYS, so that the C library falls back to clone.
# Looked into, so that learner code cannot stop, slow or blind the sandbox's server (which measures
# the learner's peak memory, zygote.PeakMemory, and runs as the same uid): a stop signal (SIGSTOP,
# SIGTSTP, SIGTTIN, SIGTTOU: 19-22 on both CPUs) sent by any of the signal syscalls ("signal": the
# index of the signal argument) is refused; and a change of another process's priority, scheduling
# or limits ("own": setpriority, sched_setparam, sched_setscheduler, sched_setattr, prlimit64) is
# refused unless its pid argument is 0, the caller itself (setpriority: PRIO_PROCESS, who 0 too;
# ioprio_set: IOPRIO_WHO_PROCESS, who 0). And no process may read, write or trace another's memory
# (ptrace, process_vm_readv, process_vm_writev: refused outright; learner code has no use for them).
# And mmap with MAP_HUGETLB is refused: memory in huge pages (where the host has reserved some,
# vm.nr_hugepages > 0) is not in VmRSS/VmHWM, the peak the server measures (red team round 6).
# Kernel buffers that no process's memory shows (red team round 8): socket and socketpair are
# refused (a socket's buffers hold up to 2 x net.core.wmem_max each; learner code needs none, the
# sandbox's own sockets come from the judge, made outside), vmsplice (a pipe that pins a page of a
# transparent huge page keeps all 2 MiB of it, mapped by no process) and fcntl F_SETPIPE_SZ (a
# pipe stays at its default 64 KiB).
# Host resources and kernel memory charged outside the sandbox (red team round 9): inotify_init,
# inotify_init1 and fanotify_init (an inotify instance counts against the per-uid quota of the
# sandbox's owner on the host, fs.inotify.max_user_instances: a submission took all 128), and bpf
# (a map is kernel memory no process's memory shows; refused today only where the host sets
# kernel.unprivileged_bpf_disabled). Nothing the course runs uses them.
# Extended attributes (red team round 10): setxattr, lsetxattr, fsetxattr and setxattrat (Linux
# 6.13; 463 on both) are refused: a tmpfs charges `user.*` values to its inode space, not to the
# blocks PeakMemory reads, so they held ~17 MiB unseen. Nothing the course runs sets one (Python's
# shutil.copystat ignores EPERM there).
_SYSCALLS = {
    "x86_64": {
        "arch": 0xC000003E,
        "refused": (
            *(29, 30, 31, 67, 64, 65, 66, 220, 68, 69, 70, 71),  # System V IPC
            *range(240, 246),  # mq_open .. mq_getsetattr
            *(248, 249, 250),  # add_key, request_key, keyctl
            *(425, 426, 427),  # io_uring_setup, io_uring_enter, io_uring_register
            *(319, 447, 308),  # memfd_create, memfd_secret, setns
            *(101, 310, 311),  # ptrace, process_vm_readv, process_vm_writev
            *(41, 53, 278),  # socket, socketpair, vmsplice
            *(253, 294, 300, 321),  # inotify_init, inotify_init1, fanotify_init, bpf
            *(188, 189, 190, 463),  # setxattr, lsetxattr, fsetxattr, setxattrat
        ),
        "fcntl": 72,
        "ioprio_set": 251,
        "mmap": 9,
        "unshare": 272,
        "clone": 56,
        # kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo, pidfd_send_signal
        "signal": {62: 1, 200: 1, 234: 2, 129: 1, 297: 2, 424: 1},
        "own": (141, 142, 144, 314, 302),  # setpriority, sched_setparam, _setscheduler, _setattr,
        # prlimit64
        "clone3": 435,
    },
    "aarch64": {
        "arch": 0xC00000B7,
        "refused": (
            *range(186, 198),  # System V IPC
            *range(180, 186),  # mq_open .. mq_getsetattr
            *(217, 218, 219),  # add_key, request_key, keyctl
            *(425, 426, 427),  # io_uring_setup, io_uring_enter, io_uring_register
            *(279, 447, 268),  # memfd_create, memfd_secret, setns
            *(117, 270, 271),  # ptrace, process_vm_readv, process_vm_writev
            *(198, 199, 75),  # socket, socketpair, vmsplice
            *(26, 262, 280),  # inotify_init1, fanotify_init, bpf (no inotify_init on arm64)
            *(5, 6, 7, 463),  # setxattr, lsetxattr, fsetxattr, setxattrat
        ),
        "fcntl": 25,
        "ioprio_set": 30,
        "mmap": 222,
        "unshare": 97,
        "clone": 220,
        "signal": {129: 1, 130: 1, 131: 2, 138: 1, 240: 2, 424: 1},
        "own": (140, 118, 119, 274, 261),
        "clone3": 435,
    },
}
# CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET; and CLONE_NEWTIME, which only
# unshare reads (for clone, 0x80 is part of the exit signal)
_CLONE_NEW = 0x00020000 | 0x7E000000
_UNSHARE_NEW = _CLONE_NEW | 0x00000080
_MAP_HUGETLB = 0x40000  # the same on x86_64 and aarch64
_F_SETPIPE_SZ = 1031
_STOP_SIGNALS = (19, 23)  # SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU: 19 <= sig < 23


def program() -> bytes | None:
    """A classic BPF program (``struct sock_filter[]``) for bubblewrap's ``--seccomp``: what
    :data:`_SYSCALLS` refuses, and any foreign syscall ABI, refused; a stop signal, a change
    to another process's priority, scheduling or limits, huge pages and a pipe's resizing,
    refused; everything else allowed.
    None on another CPU."""
    calls = _SYSCALLS.get(platform.machine())
    if calls is None:
        return None
    deny, allow = 0x00050000 | 1, 0x7FFF0000  # SECCOMP_RET_ERRNO | EPERM, SECCOMP_RET_ALLOW
    nosys = 0x00050000 | 38  # SECCOMP_RET_ERRNO | ENOSYS
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06  # BPF_LD|W|ABS, BPF_JMP|..|K, BPF_RET

    def arg(i: int) -> tuple:  # the low 32 bits of argument i (little-endian): an int or pid
        return (ld, 0, 0, 16 + 8 * i)

    # (code, jump if true, jump if false, k); a jump is a label, resolved below
    prog: list[tuple] = [(ld, 0, 0, 4), (jeq, 1, 0, calls["arch"]), (ret, 0, 0, deny)]
    prog.append((ld, 0, 0, 0))  # the syscall's number
    if platform.machine() == "x86_64":
        prog.append((jge, "deny", 0, 0x40000000))  # the x32 ABI: nr | 2**30
    prog += [(jeq, "deny", 0, nr) for nr in calls["refused"]]
    prog += [(jeq, f"signal{i}", 0, nr) for nr, i in calls["signal"].items()]
    prog += [(jeq, "own", 0, nr) for nr in calls["own"]]
    prog += [
        (jeq, "ioprio", 0, calls["ioprio_set"]),
        (jeq, "mmap", 0, calls["mmap"]),
        (jeq, "fcntl", 0, calls["fcntl"]),
        (jeq, "nosys", 0, calls["clone3"]),
        (jeq, "unshare", 0, calls["unshare"]),
        (jeq, "clone", 0, calls["clone"]),
        (ret, 0, 0, allow),
        ("unshare",),
        (ld, 0, 0, 16),  # the low 32 bits of the first argument (little-endian): the flags
        (jset, "deny", 0, _UNSHARE_NEW),
        (ret, 0, 0, allow),
        ("clone",),
        (ld, 0, 0, 16),
        (jset, "deny", 0, _CLONE_NEW),
        (ret, 0, 0, allow),
        ("mmap",),
        arg(3),  # the flags
        (jset, "deny", "allow", _MAP_HUGETLB),
        ("fcntl",),
        arg(1),  # the command
        (jeq, "deny", "allow", _F_SETPIPE_SZ),
    ]
    for i in sorted(set(calls["signal"].values())):
        low, high = _STOP_SIGNALS
        prog += [(f"signal{i}",), arg(i), (jge, 0, "allow", low), (jge, "allow", "deny", high)]
    prog += [
        ("own",),
        arg(0),
        (jeq, 0, "deny", 0),  # a pid (sched_*, prlimit64) or PRIO_PROCESS (setpriority): 0
        arg(1),  # setpriority's who; for the others, any value with pid 0 is the caller's own
        (jeq, "allow", 0, 0),
        (ld, 0, 0, 0),
        (jeq, "deny", "allow", calls["own"][0]),  # setpriority(PRIO_PROCESS, who != 0)
        ("ioprio",),
        arg(0),
        (jeq, 0, "deny", 1),  # IOPRIO_WHO_PROCESS (a group or a user is more than the caller)
        arg(1),
        (jeq, "allow", "deny", 0),  # who: 0, the caller itself
        ("allow",),
        (ret, 0, 0, allow),
        ("nosys",),
        (ret, 0, 0, nosys),
        ("deny",),
        (ret, 0, 0, deny),
    ]
    labels, code = {}, []
    for ins in prog:
        if len(ins) == 1:
            labels[ins[0]] = len(code)
        else:
            code.append(ins)
    out = []
    for i, (op, jt, jf, k) in enumerate(code):
        jt = labels[jt] - i - 1 if isinstance(jt, str) else jt
        jf = labels[jf] - i - 1 if isinstance(jf, str) else jf
        out.append(struct.pack("=HBBI", op, jt, jf, k))
    return b"".join(out)
