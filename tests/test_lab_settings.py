"""The learner's lab settings (jupyter/): valid for the installed JupyterLab, and the news off."""

import json
import sys
from pathlib import Path

import jsonschema

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas"


def test_overrides_name_real_settings_with_valid_values():
    overrides = json.loads((ROOT / "jupyter" / "overrides.json").read_text())
    for plugin, values in overrides.items():
        package, name = plugin.split(":")
        schema_file = SCHEMAS / package / f"{name}.json"
        assert schema_file.is_file(), f"{plugin} is not a plugin of this JupyterLab"
        schema = json.loads(schema_file.read_text())
        unknown = set(values) - set(schema["properties"])
        assert not unknown, f"{plugin} has no setting {unknown}"
        jsonschema.validate(values, {**schema, "required": []})
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"


def test_the_instructor_config_turns_nbgrader_back_on():
    config = json.loads((ROOT / "jupyter/instructor/labconfig/page_config.json").read_text())
    assert config["disabledExtensions"] == {"@jupyter/nbgrader": False}
    makefile = (ROOT / "Makefile").read_text()
    assert "labextension disable --level=sys_prefix @jupyter/nbgrader" in makefile
    assert "JUPYTER_CONFIG_PATH=$(abspath jupyter/instructor)" in makefile
