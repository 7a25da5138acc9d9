"""The compiled parts, built when a C compiler is there.

``tarneeb.replay.rules._core`` (the compiled rules core) and ``tarneeb.audit.blind._group``
(ristretto255 with multi-scalar multiplication, for blind dealing). Everything else is
in ``pyproject.toml``. Both extensions are optional: without a compiler (or when one
fails to build) the install goes on, and ``tarneeb`` verifies with its pure-Python
path and does blind dealing's group arithmetic with libsodium, which give the same
results (``tarneeb --version`` says which rules path is in use; ``TARNEEB_PURE=1``
turns both compiled parts off).
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("tarneeb.replay.rules._core", ["replay/rules/_core.c"], optional=True),
    Extension("tarneeb.audit.blind._group", ["audit/blind/_group.c"],
              depends=["audit/blind/_group_field.h"],
              optional=True),
])
