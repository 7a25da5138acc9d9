"""What a package index shows: the license, its file, project URLs, classifiers, and a
changelog entry for the version being built."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import metadata, version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_metadata_a_package_index_shows() -> None:
    meta = metadata("tarneeb")
    assert meta["License-Expression"] == "MIT" and meta.get_all("License-File") == ["LICENSE"]
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert {"Homepage", "Source", "Issues", "Changelog", "Documentation"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())
    classifiers = meta.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers and "Environment :: Console" in classifiers
    py = [c.rsplit(" :: ", 1)[1] for c in classifiers if re.fullmatch(r".*Python :: 3\.\d+", c)]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert min(py) == pyproject["project"]["requires-python"].removeprefix(">=")


def test_license_and_changelog() -> None:
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(version('tarneeb'))}\]", changelog, re.M)


def test_setting_up_installs_no_system_package() -> None:
    """``make`` sets the project up with pip alone: blind dealing's libsodium comes inside
    the rbcl wheel, so no system package is installed (nor root needed) to set up."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    found = re.search(r"^\$\(STAMP\):.*\n((?:\t.*\n|#.*\n)+)", makefile, re.M)
    assert found is not None
    recipe = found.group(1)
    assert "pip install" in recipe
    assert not re.search(r"apt-get|apt |ldconfig|sudo", recipe), recipe
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = pyproject["project"]["optional-dependencies"]
    assert not any(d.startswith("pysodium") for e in extras.values() for d in e)
