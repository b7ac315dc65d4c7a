from course_lib import causal_mask  # noqa: F401
from course_lib.attention import attention_scores as attention_scores  # noqa: F401
