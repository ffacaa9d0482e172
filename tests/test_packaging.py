"""What a non-editable install (``pip install .``) ships: every package of the
source tree and every template, so that ``mailbot demo`` runs from a wheel."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "setuptools"
]


def test_every_package_of_the_source_tree_is_installed() -> None:
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "mailbot").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert found - set(SETUPTOOLS["packages"]) == set()


def test_every_template_is_package_data() -> None:
    folder = ROOT / "templates"
    # setuptools reads these as globs: "*" does not cross a folder
    shipped = {
        p for glob in SETUPTOOLS["package-data"]["mailbot.templates"] for p in folder.glob(glob)
    }
    files = {
        path
        for path in folder.rglob("*")
        if path.is_file() and path.suffix != ".py" and "__pycache__" not in path.parts
    }
    assert sorted(str(p.relative_to(folder)) for p in files - shipped) == []
