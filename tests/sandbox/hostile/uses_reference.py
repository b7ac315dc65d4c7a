import importlib

import torch


def causal_mask(seq_len, device=None):
    # The reference, under another name.
    masks = importlib.import_module("course_lib.masks")
    return masks.causal_mask(seq_len, device=device)


def attention_scores(q, k):
    # The reference's source, loaded as a module of our own.
    spec = importlib.util.spec_from_file_location(
        "my_scores", importlib.util.find_spec("course_lib.attention").origin
    )
    mine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mine)
    return mine.attention_scores(q, k)


def padding_mask(lengths, max_len):
    # A fresh copy of the reference module, hoping to dodge a watch on the loaded one.
    import course_lib.masks

    return importlib.reload(course_lib.masks).padding_mask(lengths, max_len)
