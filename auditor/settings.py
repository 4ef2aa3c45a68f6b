"""Settings for scheduled runs, so a cron line stays short: ``cd /srv/audit && auditor scan``.

Read from ``auditor.toml`` (keys at the top level) or, when there is none, the ``[tool.auditor]``
table of ``pyproject.toml``, in the folder the command runs in (``auditor --config FILE`` names
another file). Keys are the ``scan`` options, with ``-`` or ``_``: ``paths``, ``out``,
``format``, ``fail-on``, ``fail-on-new``, ``rules``, ``baseline``, ``suppressions``, ``state``,
``partition-by-date``, ``input-format``, ``jobs``, ``quiet``, ``redact``, ``redact-emails``,
``redact-entropy``, ``claims``, ``wait``. Options given on the command line win. Relative
paths are taken from the settings file's folder. A wrong file stops the run like a wrong rule
file: the message names the file, key and problem.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from auditor.rules_loader import RuleFileError

AUDITOR_TOML = "auditor.toml"
PYPROJECT = "pyproject.toml"


class SettingsError(RuleFileError):
    """A settings file that cannot be used: names the file, the key and the problem."""


class Settings(BaseModel):
    """The settings a file may give; every one optional."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    paths: list[str] | None = None
    out: str | None = None
    format: Literal["parquet", "jsonl", "csv"] | None = None
    fail_on: Literal["critical", "warning", "never"] | None = None
    fail_on_new: bool | None = None
    rules: str | None = None
    baseline: str | None = None
    suppressions: str | None = None
    state: str | None = None
    partition_by_date: bool | None = None
    input_format: str | None = None
    jobs: int | None = Field(default=None, ge=1)
    quiet: bool | None = None
    redact: bool | None = None
    redact_emails: bool | None = None
    redact_entropy: bool | None = None
    claims: Literal["findings", "all"] | None = None
    wait: float | None = Field(default=None, ge=0)


PATH_KEYS = ("out", "rules", "baseline", "suppressions", "state")
# settings key -> parameter name of the ``scan`` command
SCAN_PARAMETERS = {
    "format": "output_format",
    "rules": "rules_dir",
}


def find_settings(folder: Path | None = None) -> Path | None:
    """``auditor.toml`` in ``folder`` (default: here), else a ``pyproject.toml`` there that
    has a ``[tool.auditor]`` table; None when neither."""
    folder = folder or Path()  # relative, so that messages name the file as the user knows it
    if (folder / AUDITOR_TOML).is_file():
        return folder / AUDITOR_TOML
    pyproject = folder / PYPROJECT
    if pyproject.is_file():
        try:
            data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            return None  # a broken pyproject.toml is not ours to report
        if isinstance(data.get("tool"), dict) and "auditor" in data["tool"]:
            return pyproject
    return None


def load_settings(path: Path) -> Settings:
    """Read and validate a settings file (``[tool.auditor]`` for a pyproject.toml)."""
    label = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise SettingsError(label, "(file)", "settings file does not exist") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(label, "(syntax)", str(exc)) from exc
    except UnicodeDecodeError as exc:
        raise SettingsError(label, "(encoding)", f"not UTF-8 text ({exc})") from exc
    prefix = ""
    if path.name == PYPROJECT:
        data = data.get("tool", {}).get("auditor", {})
        prefix = "tool.auditor."
    if not isinstance(data, dict):
        raise SettingsError(label, prefix.rstrip(".") or "(top level)", "must be a table")
    data = {str(key).replace("-", "_"): value for key, value in data.items()}
    try:
        settings = Settings.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"]) or "(top level)"
        raise SettingsError(label, prefix + key.replace("_", "-"), error["msg"]) from exc
    base = path.parent
    if base.resolve() == Path.cwd().resolve():
        return settings  # paths stay as written, and so do the sources in the table
    resolved: dict[str, Any] = {
        key: str(base / value) for key in PATH_KEYS if (value := getattr(settings, key)) is not None
    }
    if settings.paths is not None:
        resolved["paths"] = [p if p == "-" else str(base / p) for p in settings.paths]
    return settings.model_copy(update=resolved)


def scan_defaults(settings: Settings) -> dict[str, Any]:
    """The settings as defaults of the ``scan`` command's parameters."""
    given = settings.model_dump(exclude_none=True)
    return {SCAN_PARAMETERS.get(key, key): value for key, value in given.items()}
