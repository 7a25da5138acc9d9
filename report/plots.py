"""Plots as inline SVG: a matplotlib figure becomes markup a page embeds as it is.

Needs matplotlib (``pip install 'tarneeb[report]'``). Text stays text in the SVG
(``svg.fonttype = none``: the browser draws it in the page's font, and it can be
found and read in the DOM), and each figure's element ids get a salt of their own,
so many plots on one page never share an id.

>>> import matplotlib.pyplot as plt
>>> fig, ax = plt.subplots(figsize=(3, 2))
>>> _ = ax.bar(["observed", "expected"], [3, 4])
>>> svg = figure_svg(fig, "Observed against expected")
>>> svg.startswith('<figure class="plot"><svg'), "<title>Observed against expected</title>" in svg
(True, True)
"""

from __future__ import annotations

import functools
import io
import itertools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from markupsafe import Markup, escape

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_counter = itertools.count()
P = ParamSpec("P")
R = TypeVar("R")


def plain_text(draw: Callable[P, R]) -> Callable[P, R]:
    """``draw`` with the text of the figures it makes drawn as it is: a label from input (a
    rule set's name, a player's) between two ``$`` is not read as mathematics, which a
    name such as ``$\\oops$`` would end in an error.

    >>> import matplotlib.pyplot as plt
    >>> @plain_text
    ... def titled(name: str) -> str:
    ...     fig, ax = plt.subplots()
    ...     ax.set_title(name)
    ...     return figure_svg(fig, name)
    >>> "$\\\\oops$" in titled("$\\\\oops$")
    True
    """
    @functools.wraps(draw)
    def drawn(*args: P.args, **kwargs: P.kwargs) -> R:
        import matplotlib

        with matplotlib.rc_context({"text.parse_math": False}):
            return draw(*args, **kwargs)
    return drawn


def svg(fig: Figure, title: str) -> Markup:
    """The figure as an ``<svg>`` element (no XML prolog), titled for screen readers and
    tooltips, scaled to the page's width; the figure is closed afterwards."""
    import matplotlib
    import matplotlib.pyplot as plt

    buf = io.StringIO()
    salt = f"plot{next(_counter)}"
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": salt}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)
    text = buf.getvalue()
    start = text.index("<svg")
    text = text[start:]
    # ids from matplotlib are hashes salted per figure; prefix them too, for good measure
    text = re.sub(r'id="([^"]+)"', rf'id="{salt}-\1"', text)
    text = re.sub(r'(href|clip-path)="(url\()?#([^")]+)(\))?"',
                  lambda m: f'{m[1]}="{m[2] or ""}#{salt}-{m[3]}{m[4] or ""}"', text)
    text = text.replace("<svg", f'<svg role="img" aria-label="{escape(title)}"', 1)
    head_end = text.index(">") + 1
    text = f"{text[:head_end]}<title>{escape(title)}</title>{text[head_end:]}"
    return Markup(text)


def figure_svg(fig: Figure, title: str, caption: str = "") -> Markup:
    """:func:`svg` inside ``<figure class="plot">`` with an optional caption, ready to
    put in a template as ``{{ plot }}``."""
    cap = Markup("<figcaption>{}</figcaption>").format(caption) if caption else Markup("")
    return Markup('<figure class="plot">{}{}</figure>').format(svg(fig, title), cap)
