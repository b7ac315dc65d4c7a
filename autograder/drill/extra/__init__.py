"""Drills beyond the course's exercises: what interviews ask besides SDPA and MHA.

Each :class:`NewDrill` has what a course drill has (a statement, hints, an explanation, a target
time) plus what the course's contract gives the others: the interface the checks rely on (in the
blank file at both levels), the pitfalls (the guided level only), the stubs, its own checks
(:mod:`.checks_attention`, :mod:`.checks_norms`, :mod:`.checks_decoding`) and its model answer
(:mod:`.references`, hidden from the sandbox like ``course_lib``'s references). The "find the bug"
drills give broken code instead of stubs; those on a course exercise are graded by the course's
own checks.

The list of them is :mod:`.drills`; this file holds no code.
"""
