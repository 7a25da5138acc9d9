"""``tarneeb rules``: the presets and shipped house-rule variants, one in full, or a diff.

>>> import typer
>>> app = typer.Typer()
>>> register(app)
>>> [c.name or c.callback.__name__ for c in app.registered_commands]
['rules']
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from tarneeb.audit.encoding import json_shown, shown
from tarneeb.replay.rules.house import (
    PRESET_ABOUT,
    explain,
    field_differences,
    nearest_preset,
    resolve,
    shipped,
    shipped_about,
    to_toml,
)
from tarneeb.replay.rules.ruleset import PRESETS, RulesError, RuleSet

from .options import PLAY

USAGE = "tarneeb rules [NAME | diff A B] [--json]"


def _error(message: str) -> typer.Exit:
    typer.echo(f"tarneeb: error: {shown(message)}", err=True)
    return typer.Exit(2)


def listing() -> list[dict[str, Any]]:
    """Every preset and shipped variant: name, kind, base preset, one line about it."""
    out: list[dict[str, Any]] = [
        {"name": n, "kind": "preset", "base": n, "about": PRESET_ABOUT[n]} for n in PRESETS]
    out += [{"name": n, "kind": "shipped", "base": nearest_preset(r).name,
             "about": shipped_about(n)} for n, r in shipped().items()]
    return out


def diff(a: RuleSet, b: RuleSet) -> dict[str, Any]:
    """The fields two rule sets disagree on, each with both values (the name aside)."""
    return {"a": a.name, "b": b.name,
            "differences": {k: list(v) for k, v in field_differences(a, b).items()}}


def _load(name: str) -> RuleSet:
    try:
        return resolve(name)
    except RulesError as e:
        raise _error(str(e)) from None


def register(app: typer.Typer) -> None:
    """Add the ``rules`` command to ``app``."""

    @app.command(rich_help_panel=PLAY)
    def rules(
        args: Annotated[list[str] | None, typer.Argument(
            metavar="NAME | diff A B",
            help="Nothing (list them), a NAME (a preset, a shipped variant or a .toml "
                 "rules file) or: diff A B.", show_default=False)] = None,
        as_json: Annotated[bool, typer.Option("--json", help="As JSON.")] = False,
    ) -> None:
        """List the rule sets, print one as a rules file, or diff two.

        `tarneeb rules` lists the presets and the shipped house-rule variants;
        `tarneeb rules NAME` prints one in full as TOML, ready to edit into a house
        rules file (`tarneeb play --rules-file`); `tarneeb rules diff A B` prints the
        fields two rule sets disagree on, each with both values, then what each
        difference does, in words.
        """
        args = args or []
        if not args:
            rows = listing()
            if as_json:
                typer.echo(json_shown(json.dumps(rows, indent=1, ensure_ascii=False)))
                return
            width = max(len(r["name"]) for r in rows)
            for r in rows:
                kind = "preset" if r["kind"] == "preset" else f"from {r['base']}"
                typer.echo(shown(f"{r['name']:<{width}}  {kind:<15}  {r['about']}"))
            return
        if args[0] == "diff":
            if len(args) != 3:
                raise _error(f"diff takes two rule sets: {USAGE}")
            a_rules, b_rules = _load(args[1]), _load(args[2])
            result = diff(a_rules, b_rules)
            if as_json:
                typer.echo(json_shown(json.dumps(result, indent=1, ensure_ascii=False)))
                return
            fields = result["differences"]
            if not fields:
                typer.echo(shown(f"{result['a']} and {result['b']} agree on every rule"))
                return
            width = max(map(len, fields))
            typer.echo(shown(f"{'field':<{width}}  {result['a']} | {result['b']}"))
            for k, (x, y) in fields.items():
                typer.echo(shown(f"{k:<{width}}  {json.dumps(x)} | {json.dumps(y)}"))
            typer.echo(shown(f"in words, {result['b']} against {result['a']}:"))
            for line in explain(b_rules, a_rules):
                typer.echo(shown(f"  {line}"))
            return
        if len(args) != 1:
            raise _error(f"too many arguments: {USAGE}")
        chosen = _load(args[0])
        if as_json:
            typer.echo(json_shown(json.dumps(chosen.to_dict(), indent=1, ensure_ascii=False)))
            return
        typer.echo("\n".join(map(shown, to_toml(chosen).split("\n"))), nl=False)
