"""The wheel carries every package of the auditor and the shipped rule packs."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_of_the_auditor_is_listed_for_the_wheel():
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "auditor").rglob("__init__.py")
    }
    assert on_disk | {"auditor.rules"} == listed


def test_the_shipped_rule_packs_go_into_the_wheel_as_package_data():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setuptools["package-dir"]["auditor.rules"] == "rules"
    patterns = setuptools["package-data"]["auditor.rules"]
    shipped = {p.relative_to(ROOT / "rules").as_posix() for p in (ROOT / "rules").rglob("*.toml")}
    assert shipped and all(any(Path(f).match(p) for p in patterns) for f in shipped)
