"""The compiled core (``tarneeb.replay.rules._core``), built when a C compiler is there.

Everything else is in ``pyproject.toml``. The extension is optional: without a
compiler (or when it fails to build) the install goes on, and ``tarneeb`` verifies with
its pure-Python path, which gives the same verdicts (``tarneeb --version`` says which
path is in use; ``TARNEEB_PURE=1`` turns the compiled core off).
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("tarneeb.replay.rules._core", ["replay/rules/_core.c"],
                             optional=True)])
