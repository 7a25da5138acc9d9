"""How ``tarneeb``'s help looks: the usual style of command-line tools, in plain text.

:class:`GroupedCommands` lists the commands of ``tarneeb --help`` in groups;
:func:`plain_help` shows arguments and values as ``LOG...`` and ``--rules NAME``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer
from typer.core import TyperArgument, TyperGroup

from .options import PANELS

if TYPE_CHECKING:  # typer ships click as its own module: its classes are typer's
    from typer import _click as click


class GroupedCommands(TyperGroup):
    """The command list of ``tarneeb --help`` in groups, the ``rich_help_panel`` each
    command names (in the order of :data:`tarneeb.cli.options.PANELS`), in plain text."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        groups: dict[str, list[tuple[str, click.Command]]] = {}
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                panel = getattr(command, "rich_help_panel", None) or "Commands"
                groups.setdefault(panel, []).append((name, command))
        if not groups:
            return
        width = max(len(name) for rows in groups.values() for name, _ in rows)
        limit = formatter.width - 6 - width  # as click gives one list of commands
        order = [p for p in PANELS if p in groups] + [p for p in groups if p not in PANELS]
        for panel in order:
            with formatter.section(panel):
                formatter.write_dl([(name.ljust(width), command.get_short_help_str(limit))
                                    for name, command in groups[panel]])


class _PlainArgument(TyperArgument):
    """An argument shown the way command-line tools show them: ``LOG...`` in the usage
    line (not ``{LOG...}...``) and no ``<list[Path]>`` type label in the help."""

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        if self.nargs != 1 and not name.endswith("..."):
            name += "..."
        return name if self.required else f"[{name}]"

    # (override: typer's signature names click's context; the value is not read)
    def display_type_rich(self, ctx: typer.Context) -> str | None:  # type: ignore[override]
        return None


def plain_help(command: click.Command) -> click.Command:
    """Give every command's help the usual style: plain argument names, and options that
    declare no metavar show their name (``--hand HAND``) rather than a Python type."""
    for sub in getattr(command, "commands", {}).values():
        plain_help(sub)
    for param in command.params:
        if isinstance(param, TyperArgument):
            param.__class__ = _PlainArgument
            if param.metavar is None and param.name is not None:
                param.metavar = param.name.upper()
        elif param.metavar is None and not getattr(param, "is_flag", False) \
                and param.name is not None:
            param.metavar = param.name.upper()
    return command


__all__ = ["GroupedCommands", "plain_help"]
