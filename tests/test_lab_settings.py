"""The learner's lab settings (jupyter/): valid for the installed JupyterLab, and the news off."""

import json
import sys
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas"


@pytest.mark.parametrize("file", ["overrides.json", "zh-CN.json"])
def test_overrides_name_real_settings_with_valid_values(file):
    overrides = json.loads((ROOT / "jupyter" / file).read_text())
    for plugin, values in overrides.items():
        package, name = plugin.split(":")
        schema_file = SCHEMAS / package / f"{name}.json"
        assert schema_file.is_file(), f"{plugin} is not a plugin of this JupyterLab"
        schema = json.loads(schema_file.read_text())
        unknown = set(values) - set(schema["properties"])
        assert not unknown, f"{plugin} has no setting {unknown}"
        jsonschema.validate(values, {**schema, "required": []})


def test_the_news_is_off():
    overrides = json.loads((ROOT / "jupyter" / "overrides.json").read_text())
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"


def test_the_chinese_lab_speaks_chinese_with_the_installed_language_pack():
    """`make lab LANG=zh-CN` reads jupyter/zh-CN.json (merged over overrides.json): its locale is
    the installed language pack's."""
    from importlib.metadata import entry_points

    locale = json.loads((ROOT / "jupyter" / "zh-CN.json").read_text())[
        "@jupyterlab/translation-extension:plugin"
    ]["locale"]
    packs = {e.name for e in entry_points(group="jupyterlab.languagepack")}
    assert locale in packs, f"no JupyterLab language pack {locale} installed (have {packs})"
    makefile = (ROOT / "Makefile").read_text()
    assert "--LabApp.app_settings_dir=" in makefile and "jupyter/zh-CN.json" in makefile


def test_the_instructor_config_turns_nbgrader_back_on():
    config = json.loads((ROOT / "jupyter/instructor/labconfig/page_config.json").read_text())
    assert config["disabledExtensions"] == {"@jupyter/nbgrader": False}
    makefile = (ROOT / "Makefile").read_text()
    assert "labextension disable --level=sys_prefix @jupyter/nbgrader" in makefile
    assert "JUPYTER_CONFIG_PATH=$(abspath jupyter/instructor)" in makefile
