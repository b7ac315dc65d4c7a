"""The drills beyond the course's exercises, in the order ``drill list`` shows them: the attention
drills, the language-modelling ones, then "find the bug"."""

from __future__ import annotations

from autograder.drill.extra import attention_drills, lm_drills
from autograder.drill.extra.base import NewDrill
from autograder.drill.extra.bugs import BUGS

DRILLS: tuple[NewDrill, ...] = (*attention_drills.DRILLS, *lm_drills.DRILLS, *BUGS)

BY_NAME: dict[str, NewDrill] = {d.name: d for d in DRILLS}
