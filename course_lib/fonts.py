"""Chinese text in the course's figures: a CJK font, added as a fallback when one is installed.

Matplotlib's default font (DejaVu Sans) has no Chinese glyphs, so the Chinese edition's plot titles
would show as empty boxes. When a CJK font is installed, :func:`use_cjk_fallback` appends it to
``font.family`` *after* the default: matplotlib (3.6+) then draws each character with the first
font that has it, so Latin text, digits and math are drawn exactly as before (the English edition's
figures do not change by a pixel) and only Chinese characters come from the CJK font.

Where the font comes from (offline at run time; nothing is downloaded here):

- a system font, found by matplotlib: on Debian/Ubuntu ``make cjk-font`` installs
  ``fonts-wqy-microhei`` (1.6 MB) as root and refreshes matplotlib's font cache; Noto Sans CJK /
  Source Han Sans, macOS's PingFang and Windows' Microsoft YaHei are found too;
- the ``mplfonts`` package (``pip install mplfonts``, 85 MB: Noto Sans CJK SC among others), whose
  font files are registered from its folder.

Without either, Chinese labels show as boxes and everything else works (a Chinese notebook, see
:mod:`course_lib.language`, says once how to install a font); the labels course_lib's own figures
draw (axis names such as "key") are Chinese in a Chinese notebook (:mod:`course_lib.labels`), so
they show as boxes too. matplotlib's "Glyph ... (CJK ...) missing from font" warnings are then
silenced (for CJK and full-width characters only): a learner cannot act on them in the notebook,
they would fill every plot cell's output, and README.zh-CN.md says how to install a font.
"""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

from course_lib.language import chinese

# In order of preference: Simplified Chinese first, then fonts that cover it.
CJK_FAMILIES = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "Noto Sans SC",
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
    "PingFang SC",
    "Heiti SC",
    "Microsoft YaHei",
    "SimHei",
    "Noto Sans CJK JP",
    "Source Han Sans",
)
MPLFONTS_FILE = "NotoSansCJKsc-Regular.otf"  # the Noto Sans CJK SC that mplfonts ships
# matplotlib's warning for a character no font has, for Chinese characters and punctuation:
# "Glyph 27880 (\N{CJK UNIFIED IDEOGRAPH-6CE8}) missing from font(s) DejaVu Sans."
MISSING_CJK_GLYPH = r"Glyph \d+ \(\\N\{(CJK|FULLWIDTH|IDEOGRAPHIC)[^}]*\}\) missing from font"


def _register_mplfonts() -> None:
    """Register the ``mplfonts`` package's Noto Sans CJK SC with matplotlib, if it is installed."""
    spec = importlib.util.find_spec("mplfonts")
    if spec is None or not spec.submodule_search_locations:
        return
    from matplotlib import font_manager

    for folder in spec.submodule_search_locations:
        path = Path(folder) / "fonts" / MPLFONTS_FILE
        if path.is_file() and str(path) not in {f.fname for f in font_manager.fontManager.ttflist}:
            font_manager.fontManager.addfont(str(path))


def cjk_family() -> str | None:
    """The installed font family used for Chinese text, or None when there is none."""
    from matplotlib import font_manager

    _register_mplfonts()
    installed = {f.name for f in font_manager.fontManager.ttflist}
    return next((family for family in CJK_FAMILIES if family in installed), None)


# Said once per process, in a Chinese notebook that has no CJK font (no network at run time).
NO_CJK_FONT = (
    "提示：没有找到中文字体，图中的中文会显示为方框（其余部分不受影响）。安装方法：在课程文件夹中"
    "运行 make cjk-font（Debian/Ubuntu，需要 root；或 sudo apt-get install fonts-wqy-microhei），"
    "或 pip install mplfonts，然后重启内核（菜单 内核 → 重启内核…；"
    "英文界面为 Kernel → Restart Kernel…）。"
)
_said: list[bool] = []


def _say_how_to_install() -> None:
    """Tell a Chinese notebook's reader, once, that Chinese labels need a font and how to get
    one (an English notebook draws no Chinese and is told nothing)."""
    if chinese() and not _said:
        _said.append(True)
        print(NO_CJK_FONT)  # stdout: a notice, not an error (lesson runs forbid stderr)


def use_cjk_fallback() -> str | None:
    """Append the CJK font to matplotlib's ``font.family`` (after the default fonts, so they
    still draw everything they can) and return its name; without one, silence the warnings for
    the Chinese glyphs it lacks (see the module's docstring) and return None."""
    import matplotlib

    family = cjk_family()
    if family is None:
        warnings.filterwarnings("ignore", message=MISSING_CJK_GLYPH, category=UserWarning)
        _say_how_to_install()
        return None
    current = list(matplotlib.rcParams["font.family"])
    if family not in current:
        matplotlib.rcParams["font.family"] = [*current, family]
    return family
