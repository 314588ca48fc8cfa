"""Whether a Prefect API is configured: read without importing Prefect where the answer is certain.

Importing any part of Prefect costs about a second here (its package sets up its settings and
analytics on import), more than a third of a cold backfill. A run with no API configured never uses
Prefect (flows/local_runs.py), so it must not pay that to learn there is none.

Prefect 3 reads its settings from (prefect/settings/base.py `settings_customise_sources`,
prefect/settings/sources.py `_get_profiles_path`, `ProfileSettingsTomlLoader`): the environment;
`.env`, `prefect.toml` and `pyproject.toml`'s [tool.prefect] in the working directory; and the
active profile (PREFECT_PROFILE, else the file's `active`) of its profiles file (PREFECT_PROFILES_PATH,
else $PREFECT_HOME/profiles.toml, else ~/.prefect/profiles.toml when it exists, else Prefect's own
template, whose active profile sets no API). Where none of these can set the API's URL, none is
configured; in every other case Prefect itself is asked. tests/test_prefect_settings.py holds the
two answers equal, configuration by configuration.
"""
from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

TEST_MODE_ENV = ("PREFECT_TEST_MODE", "PREFECT_UNIT_TEST_MODE", "PREFECT_TESTING_UNIT_TEST_MODE",
                 "PREFECT_TESTING_TEST_MODE")


def api_configured() -> bool:
    """Prefect's `api.url` is set (by any of its sources)."""
    if certainly_no_api():
        return False
    from prefect.settings import get_current_settings
    return bool(get_current_settings().api.url)


def certainly_no_api() -> bool:
    """No source Prefect reads can set the API's URL (False: it may, ask Prefect). Once Prefect is
    imported, it is asked: its settings may have been changed in this process (temporary_settings),
    and asking then costs nothing."""
    return "prefect" not in sys.modules and sources_set_no_api()


def sources_set_no_api() -> bool:
    """No settings source Prefect would read now (environment, working directory, profiles file)
    can set the API's URL."""
    if any(name.upper().startswith("PREFECT_API") for name in os.environ):
        return False
    if any(os.environ.get(name) for name in TEST_MODE_ENV):
        return False
    if _dotenv_names_prefect() or Path("prefect.toml").exists() or _pyproject_configures_prefect():
        return False
    profiles = _profiles_path()
    if profiles is None:
        return True
    try:
        data = tomllib.loads(profiles.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    active = os.environ.get("PREFECT_PROFILE") or data.get("active")
    every_profile = data.get("profiles", {})
    if not isinstance(every_profile, dict) or (active and not isinstance(active, str)):
        return False
    profile = every_profile.get(active) if active else None
    if profile is None:
        return True  # Prefect falls back to its template's active profile
    return isinstance(profile, dict) and not any("API" in str(key).upper() for key in profile)


def _profiles_path() -> Path | None:
    """The profiles file Prefect reads, or None when it reads only its own template."""
    if os.environ.get("PREFECT_PROFILES_PATH"):
        path = Path(os.environ["PREFECT_PROFILES_PATH"])
    elif os.environ.get("PREFECT_HOME"):
        path = Path(os.environ["PREFECT_HOME"]) / "profiles.toml"
    else:
        path = Path.home() / ".prefect" / "profiles.toml"
    return path if path.exists() else None


def _dotenv_names_prefect() -> bool:
    """A `.env` here may set Prefect's settings: Prefect reads only its variables named PREFECT_*
    (in any letter case), so a `.env` kept for other tools does not."""
    try:
        return "PREFECT_" in Path(".env").read_text(encoding="utf-8", errors="replace").upper()
    except FileNotFoundError:
        return False
    except OSError:
        return True


def _pyproject_configures_prefect() -> bool:
    try:
        text = Path("pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return False
    try:
        return "prefect" in tomllib.loads(text).get("tool", {})
    except tomllib.TOMLDecodeError:
        return True
