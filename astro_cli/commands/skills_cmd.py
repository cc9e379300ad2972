"""`astro skills list|show|new|validate`: inspect and write skills, without a model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from astro_cli.bootstrap import EXIT_FAILED, UserError, build_app, print_warnings, user_errors
from astro_cli.commands.defaults import command_group

if TYPE_CHECKING:
    from astro_cli.app import AppContext

app = command_group("list")  # `astro skills` alone: `astro skills list`


def _rows(ctx: AppContext, include_all: bool) -> list[dict[str, Any]]:
    from astro_cli.skills.listing import FORK_NOTE, SHORTENED
    from astro_cli.skills.registry import GUARDED_LAYERS, display_path, get_registry

    registry = get_registry(ctx)
    rows = []
    for entry in registry.entries():
        skill = entry.skill
        notes = [SHORTENED[entry.form]] if entry.listed and entry.form in SHORTENED else []
        notes += [FORK_NOTE] if skill.context == "fork" else []
        if skill.model != "inherit" and skill.context != "fork":
            notes.append(f"model {skill.model}: used only by fork skills, ignored inline")
        rows.append(
            {
                "name": skill.name,
                "layer": skill.layer,
                "path": display_path(ctx, skill.path),
                "score": round(entry.score, 3),
                "status": "listed" if entry.listed else "hidden",
                "form": entry.form if entry.listed else None,
                "reason": entry.reason,
                "context": skill.context,
                "notes": notes,
            }
        )
    if include_all:
        for hidden, winner in registry.snapshot.shadowed:
            reason = f"shadowed by the {winner.layer} skill {display_path(ctx, winner.path)}"
            if hidden.layer == "project" and winner.layer in GUARDED_LAYERS:
                reason = (f"not used: a project skill never replaces the {winner.layer} skill of that name "
                          f"({display_path(ctx, winner.path)}); rename it to use it")
            rows.append(
                {
                    "name": hidden.name,
                    "layer": hidden.layer,
                    "path": display_path(ctx, hidden.path),
                    "score": None,
                    "status": "shadowed",
                    "form": None,
                    "reason": reason,
                    "context": hidden.context,
                    "notes": [],
                }
            )
        for problem in registry.snapshot.problems:
            rows.append(
                {
                    "name": problem.path.parent.name,
                    "layer": problem.layer,
                    "path": display_path(ctx, problem.path),
                    "score": None,
                    "status": "broken" if problem.kept else "rejected",
                    "form": None,
                    "reason": problem.reason
                    + ("; the last good version stays in use" if problem.kept else ""),
                    "context": "",
                    "notes": [],
                }
            )
    return rows


@app.command("list")
def list_skills(
    include_all: bool = typer.Option(
        False, "--all", "-a", help="Also show shadowed and rejected skill files."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """List the skills in the order the model sees them, each listed or hidden and why."""
    with user_errors():
        ctx = build_app()
        try:
            rows = _rows(ctx, include_all)
        finally:
            ctx.close()
        if as_json:
            typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
            return
        if not include_all:
            print_warnings(ctx)
        if not rows:
            typer.echo("No skills found. `astro skills new NAME` writes one in skills/NAME/SKILL.md.")
            return
        from rich.console import Console
        from rich.table import Table

        from astro_cli.security.visible import markup_safe

        table = Table(title_justify="left", box=None, header_style="bold", pad_edge=False)
        for column in ("name", "layer", "score", "status", "path"):
            table.add_column(column, no_wrap=column in ("name", "layer", "score"), overflow="fold",
                             style="cyan" if column == "name" else None)
        for row in rows:
            status = row["status"] + (f": {row['reason']}" if row["reason"] else "")
            status += "".join(f" ({note})" for note in row["notes"])
            score = "" if row["score"] is None else f"{row['score']:.2f}"
            # A bundled skill's file is astro's own: `astro skills show NAME` prints it.
            path = "(bundled)" if row["path"].startswith("(bundled)/") else row["path"]
            table.add_row(*(markup_safe(cell) for cell in (row["name"], row["layer"], score, status, path)))
        Console(highlight=False).print(table)


@app.command("show")
def show(
    name: str = typer.Argument(..., help="The skill's name."),
    as_json: bool = typer.Option(False, "--json", help="Print the fields and the body as JSON."),
) -> None:
    """Show a skill's fields and its full body, exactly as load_skill returns it."""
    from astro_cli.skills.listing import FORK_NOTE
    from astro_cli.skills.registry import display_path, get_registry

    with user_errors():
        ctx = build_app()
        try:
            registry = get_registry(ctx)
            skill = registry.get(name)
            if skill is None:
                near = registry.nearest(name)
                hint = f" Nearest: {', '.join(near)}." if near else " `astro skills list` shows them."
                raise UserError(f"No skill named '{name}'.{hint}")
            entry = next(e for e in registry.entries() if e.skill.name == name)
        finally:
            ctx.close()
        if as_json:
            typer.echo(
                json.dumps({**skill.to_dict(), "body": skill.body}, indent=2, ensure_ascii=False, default=str)
            )
            return
        status = "listed" if entry.listed else f"hidden: {entry.reason}"
        fields = [
            ("name", skill.name),
            ("layer", f"{skill.layer} ({display_path(ctx, skill.path)})"),
            ("description", skill.description),
            ("when_to_use", skill.when_to_use),
            ("allowed-tools", " ".join(skill.allowed_tools)),
            ("argument-hint", skill.argument_hint),
            (
                "context",
                skill.context + (f" ({FORK_NOTE.removeprefix('fork: ')})" if skill.context == "fork" else ""),
            ),
            ("model", skill.model),
            ("paths", ", ".join(skill.paths)),
            ("user-invocable", str(skill.user_invocable).lower()),
            ("disable-model-invocation", str(skill.disable_model_invocation).lower()),
            ("score", f"{entry.score:.2f}"),
            ("status", status),
        ]
        fields += [
            (key, json.dumps(value, default=str, ensure_ascii=False)) for key, value in skill.extra.items()
        ]
        for key, value in fields:
            if value:
                typer.echo(f"{key}: {value}")
        typer.echo("---")
        typer.echo(skill.body.rstrip("\n"))


@app.command("new")
def new(
    name: str = typer.Argument(..., help="The new skill's name (letters, digits, '-', '_', '.')."),
    user: bool = typer.Option(
        False, "--user", help="Write it in ASTRO_HOME/skills instead of the workspace."
    ),
    description: Optional[str] = typer.Option(
        None, "--description", "-d", help="Its one-sentence description."
    ),
) -> None:
    """Write a SKILL.md scaffold that validates as it is, ready to edit."""
    from astro_cli.skills.skill import NAME_RE, SkillError, parse_skill, scaffold

    with user_errors():
        ctx = build_app()
        if not NAME_RE.match(name):
            raise UserError(
                f"'{name}' cannot be a skill name: use letters, digits, '-', '_' or '.' (at most 64)."
            )
        root = ctx.home.skills_dir if user else ctx.workspace.skills_dirs[0]
        path = root / name / "SKILL.md"
        if path.exists():
            raise UserError(f"{path} already exists; `astro skills show {name}` prints it.")
        text = scaffold(name)
        if description:
            if "\n" in description:
                raise UserError("The description must be one line.")
            text = text.replace(
                "description: One sentence saying what this skill does for the researcher.",
                f"description: {json.dumps(description, ensure_ascii=False)}",
            )
        from astro_cli.security.writer import Place, write_text

        write_text(Place.of(root, path), text, replace=False)
        try:
            parse_skill(path)
        except SkillError as exc:  # cannot happen with a valid name, but never leave a broken file behind
            path.unlink()
            raise UserError(f"The scaffold did not validate ({exc}).") from None
        typer.echo(f"Created {path}. Edit it, then check it with `astro skills validate {path.parent}`.")


def _targets(ctx: AppContext, paths: list[Path]) -> list[tuple[str, Path | None, str]]:
    """(layer, SKILL.md or None, problem) for each path given, or for every layer when none is."""
    from astro_cli.skills.registry import skill_files, skill_layers
    from astro_cli.skills.skill import SKILL_FILE

    if not paths:
        return [(layer, path, "") for layer, path in skill_files(skill_layers(ctx))]
    targets: list[tuple[str, Path | None, str]] = []
    for raw in paths:
        path = raw.expanduser()
        if path.is_file():
            targets.append(("given", path, ""))
        elif (path / SKILL_FILE).is_file():
            targets.append(("given", path / SKILL_FILE, ""))
        elif path.is_dir():
            found = [(layer, skill, "") for layer, skill in skill_files([("given", path)])]
            targets += found or [("given", None, f"{raw}: no <name>/SKILL.md inside this folder")]
        else:
            targets.append(("given", None, f"{raw}: no such file or folder"))
    return targets


@app.command("validate")
def validate(
    paths: Optional[list[Path]] = typer.Argument(
        None, help="SKILL.md files or folders; default: every layer."
    ),
) -> None:
    """Check SKILL.md files; prints each file's verdict and exits 1 if any is rejected."""
    from astro_cli.skills.skill import SkillError, parse_skill

    with user_errors():
        ctx = build_app()
        try:
            targets = _targets(ctx, list(paths or []))
            known_tools = set(ctx.install_features().tools.names())
        finally:
            ctx.close()
        if not targets:
            typer.echo(
                "No skill files found (skills/, .claude/skills/, ASTRO_HOME/skills and the bundled ones)."
            )
            return
        errors = 0
        names: dict[str, Path] = {}
        for layer, path, problem in targets:
            if path is None:
                errors += 1
                typer.echo(f"error  {problem}")
                continue
            try:
                skill = parse_skill(path, layer)
            except SkillError as exc:
                errors += 1
                typer.echo(f"error  {path}: {exc}")
                continue
            typer.echo(f"ok     {skill.name}  {path}")
            foreign = [t for t in skill.allowed_tools if t not in known_tools]
            if foreign:
                typer.echo(f"       note: allowed-tools names no astro tool: {', '.join(foreign)} (ignored)")
            if skill.name in names and layer == "given":
                typer.echo(f"       note: the name '{skill.name}' is also used by {names[skill.name]}")
            names.setdefault(skill.name, path)
        verdict = f"{len(targets) - errors} ok, {errors} rejected"
        typer.echo(verdict)
        if errors:
            raise typer.Exit(EXIT_FAILED)
