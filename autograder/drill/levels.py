"""The two levels of a blank file: *guided* (the contract's text, with the pitfalls the checks
test) and *bare* (``start --bare``: the interface only, as an interviewer states it; knowing
the pitfalls is the point). The bare text is the guided text less every clause that gives a
pitfall away, so the two cannot drift apart; ``tests/drill/test_drill.py`` checks that no bare file
mentions one.
"""

from __future__ import annotations

import re

# Words that give a pitfall away: the fill value, the dtype cast, overflow. (What a fully masked
# row gives is not one: the checks grade it, so both levels state it.)
PITFALLS = (
    "1e9",
    "-inf not",
    "mask.to(",
    "float16",
    "bfloat16",
    "overflow",
    "huge finite",
    "sqrt(d_head)",
    "keepdim",
    "unbiased",
)
# The same words in the Chinese texts (autograder/locale/zh_CN; the English ones above that are
# code, such as NaN or float16, stay as they are in them).
PITFALLS_ZH = ("溢出", "极大的有限值", "无偏")
# Conventions that are pitfalls, not interface (by their first words in catalogue.CONVENTIONS).
PITFALL_CONVENTIONS = (
    "Block with -inf",
    "Create every tensor",
)


def gives_away(text: str) -> bool:
    return any(p.lower() in text.lower() for p in PITFALLS + PITFALLS_ZH)


def _chinese(text: str) -> bool:
    return bool(re.search(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]", text))


def _clauses(text: str) -> list[str]:
    return [c for c in re.split(r"(?<=[.;])\s+|(?<=[。；])", text.strip()) if c.strip()]


def first_sentence(text: str) -> str:
    """The first sentence of ``text`` (English or Chinese), with its full stop."""
    if _chinese(text):
        return text.split("。")[0].rstrip("。；;") + "。"
    end = re.search(r"(?<=\S)\.(?=\s)", text)  # "q_m . k_n" is a dot product, not a full stop
    return (text[: end.start()] if end else text).rstrip(".") + "."


def bare(text: str) -> str:
    """``text`` without the sentences and clauses that give a pitfall away. Within a sentence,
    a trailing ", ..." part that gives one away is cut; a sentence that starts with one goes."""
    if _chinese(text):
        return _bare_chinese(text)
    kept = []
    for clause in _clauses(text):
        if not gives_away(clause):
            kept.append(clause)
            continue
        parts = clause.split(", ")
        head = []
        for part in parts:
            if gives_away(part):
                break
            head.append(part)
        if head:
            kept.append(", ".join(head).rstrip(";,.") + ".")
    out = " ".join(kept).replace(";.", ".")
    return out[:-1] + "." if out.endswith(";") else out


def _bare_chinese(text: str) -> str:
    """:func:`bare` for a Chinese text: clauses end with 。 or ；, parts are split at ，."""
    kept = []
    for clause in _clauses(text):
        if not gives_away(clause):
            kept.append(clause.strip())
            continue
        head = []
        for part in re.split(r"，|, ", clause):
            if gives_away(part):
                break
            head.append(part)
        if head:
            kept.append("，".join(head).strip().rstrip("；;，,。.") + "。")
    out = "".join(kept).replace("；。", "。")
    return out[:-1] + "。" if out.endswith("；") else out


def conventions(texts: list[str]) -> list[str]:
    """The conventions a bare file states: the interface ones."""
    return [t for t in texts if not t.startswith(PITFALL_CONVENTIONS)]
