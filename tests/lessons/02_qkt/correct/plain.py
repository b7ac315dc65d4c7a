# A learner's straightforward solutions, written the way the notebooks suggest.
# Lesson 02's exercises in this style. The whole style is every lesson's plain.py, in lesson order:
# a later lesson uses the earlier ones' definitions.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def attention_scores(q, k):
    return q @ k.transpose(-2, -1)
