"""The compiled parts, built when a C compiler is there, and the verifier page.

``tarneeb.replay.rules._core`` (the compiled rules core) and ``tarneeb.audit.blind._group``
(ristretto255 with multi-scalar multiplication, for blind dealing). Everything else is
in ``pyproject.toml``. Both extensions are optional: without a compiler (or when one
fails to build) the install goes on, and ``tarneeb`` verifies with its pure-Python
path and does blind dealing's group arithmetic with libsodium, which give the same
results (``tarneeb --version`` says which rules path is in use; ``TARNEEB_PURE=1``
turns both compiled parts off).

The verifier page (``tarneeb verifier``) is the TypeScript verifier of ``js/`` bundled
into one HTML file, ``js/dist/verify.html``. A wheel carries it as
``tarneeb/verify.html`` and an sdist as ``js/dist/verify.html`` (``MANIFEST.in``): when it
is not built yet, building either runs the page's build with Node.js (``npm run
build:page``, after ``npm ci`` when ``js/node_modules`` is missing), and fails with one
line saying what to install when Node.js is not there. An editable install reads the
page from ``js/dist`` where it is.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist
from setuptools.errors import SetupError

HERE = Path(__file__).resolve().parent
JS = HERE / "js"
PAGE = JS / "dist" / "verify.html"


def verifier_page() -> Path:
    """``js/dist/verify.html``, built with Node.js when it is missing."""
    if PAGE.is_file():
        return PAGE
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None or not (JS / "package.json").is_file():
        raise SetupError(
            f"the verifier page {PAGE} is not built and Node.js (node, npm) is not on the "
            "PATH to build it: install Node.js >= 20 and build again (or run make js), or "
            "install from an sdist or a wheel, which carry the page")
    if not (JS / "node_modules").is_dir():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=JS, check=True)
    subprocess.run([npm, "run", "build:page"], cwd=JS, check=True)
    if not PAGE.is_file():
        raise SetupError(f"npm run build:page (in {JS}) did not write {PAGE}")
    return PAGE


class BuildPyWithPage(build_py):
    """build_py, then the verifier page into the package, as ``tarneeb/verify.html``."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            self.copy_file(str(verifier_page()), str(Path(self.build_lib, "tarneeb",
                                                          "verify.html")))


class SdistWithPage(sdist):
    """sdist, with the page built first, so ``MANIFEST.in`` puts it in."""

    def run(self) -> None:
        verifier_page()
        super().run()


setup(
    cmdclass={"build_py": BuildPyWithPage, "sdist": SdistWithPage},
    ext_modules=[
        Extension("tarneeb.replay.rules._core", ["replay/rules/_core.c"], optional=True),
        Extension("tarneeb.audit.blind._group", ["audit/blind/_group.c"],
                  depends=["audit/blind/_group_field.h"],
                  optional=True),
    ],
)
