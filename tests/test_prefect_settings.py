"""Whether a Prefect API is configured, read without importing Prefect (warehouse/prefect_settings.py):
wherever our reading is certain there is none, Prefect's own settings, built afresh from the same
environment and working directory, have none; and the usual set-ups are read without Prefect."""
from __future__ import annotations

import os
import subprocess
import sys
from contextlib import nullcontext

import pytest
from prefect.settings import Settings

from tests.conftest import MIRROR
from warehouse.prefect_settings import sources_set_no_api

API = "http://127.0.0.1:4200/api"
TEMPLATE = f'active = "ephemeral"\n[profiles.ephemeral]\nPREFECT_SERVER_EPHEMERAL_ENABLED = "true"\n' \
           f'[profiles.local]\nPREFECT_API_URL = "{API}"\n'

# (what is configured, whether our reading is certain there is no API)
CONFIGURATIONS = {
    "nothing: a new PREFECT_HOME": ({}, {}, True),
    "the template profiles file, its active profile local-less": ({"home/profiles.toml": TEMPLATE}, {}, True),
    "the template, PREFECT_PROFILE=local": ({"home/profiles.toml": TEMPLATE}, {"PREFECT_PROFILE": "local"}, False),
    "an active profile that is not in the file": (
        {"home/profiles.toml": 'active = "gone"\n[profiles.a]\nPREFECT_API_URL = "x"\n'}, {}, True),
    "the active profile sets the API": ({"home/profiles.toml": TEMPLATE.replace('"ephemeral"\n[', '"local"\n[', 1)},
                                        {}, False),
    "PREFECT_PROFILES_PATH to a profile with the API": (
        {"elsewhere.toml": TEMPLATE.replace('"ephemeral"\n[', '"local"\n[', 1)},
        {"PREFECT_PROFILES_PATH": "elsewhere.toml"}, False),
    "PREFECT_API_URL": ({}, {"PREFECT_API_URL": API}, False),
    "prefect.toml in the working directory": ({"work/prefect.toml": f'[api]\nurl = "{API}"\n'}, {}, False),
    "pyproject.toml's [tool.prefect]": ({"work/pyproject.toml": f'[tool.prefect.api]\nurl = "{API}"\n'}, {}, False),
    "a pyproject.toml without [tool.prefect]": ({"work/pyproject.toml": '[project]\nname = "x"\n'}, {}, True),
    ".env in the working directory": ({"work/.env": f"PREFECT_API_URL={API}\n"}, {}, False),
    ".env setting the API in lower case": ({"work/.env": f"prefect_api_url={API}\n"}, {}, False),
    "a .env for other tools": ({"work/.env": "MLPERF_SOURCE=/data\nAPI_URL=http://elsewhere\n"}, {}, True),
    "a profiles file that is not TOML": ({"home/profiles.toml": "active = \n"}, {}, False),
}


@pytest.mark.parametrize("name", CONFIGURATIONS)
def test_our_reading_is_certain_only_where_prefect_agrees_there_is_no_api(name, tmp_path, monkeypatch):
    files, env, certain = CONFIGURATIONS[name]
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "work").mkdir(exist_ok=True)
    for variable in [v for v in os.environ if v.upper().startswith("PREFECT_")]:
        monkeypatch.delenv(variable)
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "home"))
    for variable, value in env.items():
        monkeypatch.setenv(variable, str(tmp_path / value) if variable.endswith("_PATH") else value)
    monkeypatch.chdir(tmp_path / "work")
    with pytest.warns() if "not TOML" in name else nullcontext():
        prefects_url = Settings().api.url
    assert sources_set_no_api() is certain
    assert (prefects_url is None) is (certain or "not TOML" in name)  # Prefect: a broken file sets nothing


@pytest.mark.slow
def test_a_plain_backfill_never_imports_prefect(tmp_path):
    probe = ("import atexit, sys; "
             "atexit.register(lambda: print('prefect imported:', any(m.split('.')[0] == 'prefect' for m in sys.modules))); "
             f"sys.argv = ['mlperf-wh', '--db', {str(tmp_path / 'w.duckdb')!r}, 'backfill', '--rounds', 'v6.0', "
             f"'--source', {str(MIRROR)!r}]; from warehouse.startup import entry; entry()")
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("PREFECT_")}
    env["PREFECT_HOME"] = str(tmp_path / "prefect-home")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "backfill: 1 loaded" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "prefect imported: False"
