"""Lists and refusals the instructor reads under a Chinese locale: joined by the Chinese list
separator, in Chinese words (the class report's assignments were '（04_softmax_masks,
02_qkt）', and a student folder the gradebook refuses said 'it holds ...' in English)."""

from __future__ import annotations

from test_grade_zh import language  # noqa: F401 (a fixture)
from test_report import HOSTILE_FOLDER, Page, small_class

from autograder.grade.inert import id_problem
from autograder.grade.outputs import class_report


def test_the_reports_lists_and_asides_are_chinese(language):  # noqa: F811
    language("zh_CN.UTF-8")
    text = "".join(Page(class_report.report_html(small_class())).text)
    assert "份作业（02_qkt，04_softmax_masks），" in text, text
    assert "causal_mask（04_softmax_masks） ×2" in text, text
    assert "(their messages" not in text and "not attempted" not in text, text
    language("C.UTF-8")
    text = "".join(Page(class_report.report_html(small_class())).text)
    assert "assignments (02_qkt, 04_softmax_masks), " in text, text


def test_a_refused_student_folder_is_said_in_chinese(language):  # noqa: F811
    language("zh_CN.UTF-8")
    said = id_problem(HOSTILE_FOLDER)
    assert said.startswith("其中含有 ' '，'('，')'，'<'"), said
    language("C.UTF-8")
    assert id_problem(HOSTILE_FOLDER).startswith("it holds ' ', '(', ')', '<'")
