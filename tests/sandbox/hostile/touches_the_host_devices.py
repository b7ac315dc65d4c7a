# Red team, round 26 (finding 3): the sandbox's /dev/null, /dev/zero, /dev/full, /dev/random and
# /dev/urandom are the host's own inodes (bind-mounted), mode 0666, and utimensat(fd, NULL) ("set
# both times to now") needs only write permission: learner code set the host's times of all five,
# a write outside the sandbox that every later sandbox reads (a channel between students). Each
# attempt is made with the audit hook off, by path and through a descriptor; each is reported as its
# name and errno (0: it worked) unless it failed with EROFS (the server makes each bind read-only).
# Writing to /dev/null and reading /dev/urandom must still work.
import errno
import os
import sys

DEVICES = ("null", "zero", "full", "random", "urandom")


def _unwatch():
    frame = sys._getframe(1)
    while frame is not None:
        box = frame.f_locals.get("self")
        if hasattr(box, "learner") and hasattr(box, "refusals"):
            box.learner = False
        frame = frame.f_back


def _errno(fn) -> int:
    try:
        fn()
    except OSError as e:
        return e.errno or -1
    return 0


def _through(path, flags, times=None):
    def attempt():
        fd = os.open(path, flags)
        try:
            os.utime(fd, ns=times) if times else os.utime(fd)
        finally:
            os.close(fd)

    return attempt


def causal_mask(seq_len, device=None):
    _unwatch()
    found = {}
    for name in DEVICES:
        path = f"/dev/{name}"
        found[f"utime {name}"] = _errno(lambda p=path: os.utime(p))
        found[f"utime {name} ns"] = _errno(lambda p=path: os.utime(p, ns=(7, 7)))
        found[f"fd rdonly {name}"] = _errno(_through(path, os.O_RDONLY))
        found[f"fd wronly {name}"] = _errno(_through(path, os.O_WRONLY))
    with open("/dev/null", "w") as sink:  # the devices themselves still work
        print("into /dev/null", file=sink)
    with open("/dev/urandom", "rb") as source:
        assert len(source.read(16)) == 16
    others = [f"{what}:{e}" for what, e in found.items() if e != errno.EROFS]  # (short: shown cut)
    raise RuntimeError(f"EROFS {len(found) - len(others)} of {len(found)}, others: {others}")
