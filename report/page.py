"""Rendering pages: one Jinja2 environment, autoescaped, templates shipped with the package.

Text from outside (a file name, a match id, a platform's word) is shown as a terminal shows
it (:func:`~tarneeb.audit.encoding.shown`), line by line: a bidi override or isolate, which
would reorder what follows it on the page, a control character, and a byte of a file name
that is not UTF-8 are written as escapes.

>>> from markupsafe import Markup
>>> env().from_string("{{ x }} {{ y }}").render(x="<b>", y=Markup("<i>ok</i>"))
'&lt;b&gt; <i>ok</i>'
>>> print(env().from_string("{{ x }}").render(x="m1\\u202e.tlog \\udcff"))
m1\\u202e.tlog \\xff
"""

from __future__ import annotations

import functools
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import jinja2
from markupsafe import Markup

from tarneeb.audit.encoding import shown

Tone = Literal["clean", "findings", "unreadable", "notice"]


@dataclass(frozen=True)
class Banner:
    """The verdict a page opens with: a tone (its colour) and a headline in plain words.

    ``detail`` is one or two sentences under the headline.
    """

    tone: Tone
    headline: str
    detail: str = ""


@functools.cache
def env() -> jinja2.Environment:
    """The environment every report renders in: autoescape on for every template,
    undefined variables an error (a typo must not render as an empty string)."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("tarneeb.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_shown,
    )


def _shown(value: Any) -> Any:
    """A value a template writes: text as :func:`~tarneeb.audit.encoding.shown` shows it,
    its line breaks kept; markup the program made, and anything else, as it is."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return "\n".join(map(shown, value.split("\n")))
    return value


def render_page(template: str, **context: Any) -> str:
    """Render ``template`` (a file of ``tarneeb/report/templates``) with ``context``.

    Templates extending ``base.html`` take ``title`` (str), ``verdict`` (:class:`Banner`)
    and optionally ``subtitle`` (str) and ``generator`` (str, the footer line).
    """
    context.setdefault("subtitle", "")
    context.setdefault("generator", "")
    return env().get_template(template).render(**context)


def write_page(path: str | os.PathLike[str], html: str) -> None:
    """Write ``html`` to ``path`` atomically (a reader never sees half a page), with the
    permissions the user's umask gives: a report is made to be published, not a secret.

    Raises ``OSError`` when the file cannot be written.
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent if str(target.parent) else ".",
                               prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(html)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
