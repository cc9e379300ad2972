"""The skill registry: the layers, shadowing and usage ranking (the listing itself: listing.py).

Layers, later shadowing earlier by name: bundled < user (ASTRO_HOME/skills) < project
(<workspace>/.claude/skills, then <workspace>/skills), except that a project skill never shadows a
bundled or user skill: it is listed as shadowed instead, with a warning (as in Claude Code, where
personal skills win over project ones). A folder or a SKILL.md reached twice
(symlinks, or a workspace that is astro's own checkout) counts once, under the first layer that
reached it. Reloads reuse the parse of unchanged files (same mtime and size), so a reload after a
change costs a few stat calls; a file that breaks after it once parsed keeps its last good
version. The registry is read by the loop and reloaded by the watcher's thread: a reload builds a
new snapshot and swaps it in one assignment, so readers never see half a reload.
"""

from __future__ import annotations

import difflib
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING

from astro_cli.skills.listing import Entry, listing_entries, reminder_text
from astro_cli.skills.skill import SKILL_FILE, Skill, SkillError, parse_skill

if TYPE_CHECKING:
    from astro_cli.app import AppContext

# On equal usage, a project skill keeps its description longest, then a user skill, then a bundled one.
LAYER_PRIORITY = {"project": 2, "user": 1, "bundled": 0}
GUARDED_LAYERS = ("bundled", "user")  # names a project skill cannot take


@dataclass(frozen=True)
class Problem:
    """A SKILL.md that was skipped, or whose last good version is kept, and why."""

    path: Path
    layer: str
    reason: str
    kept: bool = False  # a broken edit: the last good version is still in use


@dataclass(frozen=True)
class Snapshot:
    skills: dict[str, Skill] = field(default_factory=dict)  # effective, by name
    shadowed: tuple[tuple[Skill, Skill], ...] = ()  # (hidden skill, the one that shadows it)
    problems: tuple[Problem, ...] = ()


def skill_layers(app: AppContext) -> list[tuple[str, Path]]:
    from astro_cli.workspace import bundled_skills_dir

    project = app.workspace.skills_dirs  # [skills, .claude/skills]; skills/ wins, so it comes last
    return [
        ("bundled", bundled_skills_dir()),
        ("user", app.home.skills_dir),
        *[("project", p) for p in reversed(project)],
    ]


def skill_files(layers: Iterable[tuple[str, Path]]) -> list[tuple[str, Path]]:
    """(layer, SKILL.md) for every skill folder of every layer, each real folder and file once."""
    return [(layer, path) for layer, path, _ in scan_layers(layers)]


def scan_layers(layers: Iterable[tuple[str, Path]]) -> list[tuple[str, Path, os.stat_result]]:
    """Like skill_files, with each file's stat; a file is identified by (device, inode), so links count once."""
    seen_dirs: set[Path] = set()
    seen_files: set[tuple[int, int]] = set()
    found: list[tuple[str, Path, os.stat_result]] = []
    for layer, directory in layers:
        try:
            real = directory.resolve()
            if real in seen_dirs or not real.is_dir():
                continue
            seen_dirs.add(real)
            with os.scandir(real) as listing:
                names = sorted(entry.name for entry in listing if entry.is_dir())
        except OSError:
            continue
        for name in names:
            candidate = real / name / SKILL_FILE
            try:
                stat = os.stat(candidate)
            except OSError:
                continue
            identity = (stat.st_dev, stat.st_ino)
            if S_ISREG(stat.st_mode) and identity not in seen_files:
                seen_files.add(identity)
                found.append((layer, candidate, stat))
    return found


class SkillRegistry:
    def __init__(
        self,
        layers: list[tuple[str, Path]],
        warn: Callable[[str], None] | None = None,
        scorer: Callable[[], dict[str, float]] | None = None,
        budget: Callable[[], int] | int = 4000,
        display: Callable[[Path], str] = str,
    ) -> None:
        self.layers = layers
        self._sink = warn or (lambda text: None)
        self.warnings: list[str] = []  # every warning given, in order (the loop shows new ones as notices)
        self._scorer = scorer or dict
        self._budget = budget if callable(budget) else (lambda: budget)
        self._display = display
        self._lock = threading.RLock()
        self._snapshot: Snapshot | None = None
        self._parsed: dict[tuple[str, Path], tuple[tuple[int, int], Skill | None, str]] = {}
        self._good: dict[tuple[str, Path], Skill] = {}  # the last version of each file that parsed
        self._warned: set[str] = set()
        self._scores: dict[str, float] = {}
        self._order: tuple[str, ...] = ()
        self._reminders: dict[tuple[object, ...], str | None] = {}
        self.version = 0  # bumps when the effective skills change
        self.ranking_version = 0  # bumps when the usage order changes
        self.dirty = False  # set by whoever saw a SKILL.md change; the next reader reloads

    # --- loading ---------------------------------------------------------------------------
    @property
    def snapshot(self) -> Snapshot:
        if self._snapshot is None:
            self.reload()
        assert self._snapshot is not None
        return self._snapshot

    def ensure_loaded(self) -> None:
        if self._snapshot is None or self.dirty:
            self.reload()

    def reload(self) -> bool:
        """Rescan every layer; returns True when the effective skills changed."""
        with self._lock:
            self.dirty = False
            first = self._snapshot is None
            effective: dict[str, Skill] = {}
            shadowed: list[tuple[Skill, Skill]] = []
            problems: list[Problem] = []
            seen: set[tuple[str, Path]] = set()
            for layer, path, stat in scan_layers(self.layers):
                key = (layer, path)
                seen.add(key)
                skill, problem = self._load_one(layer, path, (stat.st_mtime_ns, stat.st_size))
                if problem is not None:
                    problems.append(problem)
                if skill is None:
                    continue
                earlier = effective.get(skill.name)
                if earlier is not None and skill.layer == "project" and earlier.layer in GUARDED_LAYERS:
                    # A project (a cloned folder) never takes the name of astro's or the user's skill:
                    # `/literature-review` must stay the skill the researcher knows.
                    shadowed.append((skill, earlier))
                    self._warn_once(path, f"project skill {self._display(path)} has the name of the {earlier.layer} "
                                          f"skill '{skill.name}' and is not used; rename it to use it.")
                    continue
                if earlier is not None:
                    shadowed.append((earlier, skill))
                effective[skill.name] = skill
            for key in set(self._parsed) - seen:  # deleted files: forget them (and their warnings)
                self._parsed.pop(key, None)
                self._good.pop(key, None)
            old = self._snapshot
            self._snapshot = Snapshot(effective, tuple(shadowed), tuple(problems))
            changed = old is None or old.skills != effective
            if changed:
                self.version += 1
                self._reminders.clear()
        if changed or first:
            self.refresh_scores()
        return changed

    def _load_one(
        self, layer: str, path: Path, stamp: tuple[int, int]
    ) -> tuple[Skill | None, Problem | None]:
        key = (layer, path)
        cached = self._parsed.get(key)
        if cached is None or cached[0] != stamp:
            try:
                cached = (stamp, parse_skill(path, layer), "")
            except SkillError as exc:
                cached = (stamp, None, str(exc))
            self._parsed[key] = cached
        _, skill, reason = cached
        if skill is not None:
            self._good[key] = skill
            if self._warned:  # fixed: a later breakage warns again
                self._warned = {w for w in self._warned if not w.startswith(f"{path}\0")}
            return skill, None
        good = self._good.get(key)
        problem = Problem(path, layer, reason, kept=good is not None)
        shown = self._display(path)
        if good is not None:
            self._warn_once(
                path, f"skill file {shown} has an error ({reason}); the last good version stays in use."
            )
        else:
            self._warn_once(path, f"skill file {shown} was skipped: {reason}.")
        return good, problem

    def _warn(self, text: str) -> None:
        self.warnings.append(text)
        self._sink(text)

    def _warn_once(self, path: Path, text: str) -> None:
        key = f"{path}\0{text}"
        if key not in self._warned:
            self._warned.add(key)
            self._warn(text)

    # --- lookup ----------------------------------------------------------------------------
    def get(self, name: str) -> Skill | None:
        """A skill by name with all its fields (context, allowed_tools, model, body): the subagent hook."""
        return self.snapshot.skills.get(name)

    def names(self) -> list[str]:
        return sorted(self.snapshot.skills)

    def all(self) -> list[Skill]:
        return [self.snapshot.skills[n] for n in self.names()]

    def nearest(self, name: str, limit: int = 3) -> list[str]:
        names = self.names()
        close = difflib.get_close_matches(name, names, n=limit, cutoff=0.5)
        close += [n for n in names if name and name.lower() in n.lower() and n not in close]
        return close[:limit]

    def conditional(self) -> list[Skill]:
        return [s for s in self.snapshot.skills.values() if s.conditional]

    def is_skill_file(self, path: Path) -> bool:
        """Is `path` a SKILL.md directly inside a skill folder of one of the layers?"""
        if path.name != SKILL_FILE:
            return False
        try:
            parent = path.parent.parent.resolve()
        except OSError:
            return False
        return any(_same(parent, directory) for _, directory in self.layers)

    # --- ranking and the listing -----------------------------------------------------------
    def refresh_scores(self) -> bool:
        """Recompute usage scores (at load and at turn start, never mid-turn); True if the order changed."""
        try:
            scores = dict(self._scorer())
        except Exception as exc:  # noqa: BLE001 - a locked or broken database must not stop the agent
            self._warn(
                f"skill usage could not be read ({type(exc).__name__}: {exc}); skills are listed by name."
            )
            scores = {}
        with self._lock:
            self._scores = scores
            order = tuple(s.name for s in self._ranked(self.snapshot.skills.values()))
            if order != self._order:
                self._order = order
                self.ranking_version += 1
                self._reminders.clear()
                return True
        return False

    def score(self, name: str) -> float:
        return self._scores.get(name, 0.0)

    def _ranked(self, skills: Iterable[Skill]) -> list[Skill]:
        return sorted(skills, key=lambda s: (-round(self._scores.get(s.name, 0.0), 9),
                                             -LAYER_PRIORITY.get(s.layer, 0), s.name))

    def entries(self, active: Iterable[str] = ()) -> list[Entry]:
        """Every effective skill in listing order, listed (and in which form) or hidden with the reason."""
        ranked = self._ranked(self.snapshot.skills.values())
        return listing_entries(ranked, self.score, set(active), self._budget())

    def reminder(self, active: Iterable[str] = ()) -> str | None:
        """The tier-1 <system-reminder> block, cached until the skills, their order or activation change."""
        skills = self.snapshot.skills  # loads first, so the key below has the loaded version
        conditional = frozenset(a for a in active if a in skills and skills[a].conditional)
        key = (self.version, self.ranking_version, self._budget(), conditional)
        cached = self._reminders.get(key, False)
        if cached is not False:
            return cached  # type: ignore[return-value]
        text = reminder_text(self.entries(conditional))
        with self._lock:
            if len(self._reminders) > 32:
                self._reminders.clear()
            self._reminders[key] = text
        return text


def _same(a: Path, b: Path) -> bool:
    try:
        return a == b.resolve()
    except OSError:
        return False


def get_registry(app: AppContext) -> SkillRegistry:
    """The app's registry (made on first use, scanned on first read); warnings go to app.warn."""
    return app.service(SkillRegistry, lambda: SkillRegistry(
        skill_layers(app),
        warn=app.warn,
        scorer=lambda: _usage_scores(app),
        budget=lambda: int(app.settings.typed["skills.budget_chars"]),
        display=lambda path: display_path(app, path),
    ))


def _usage_scores(app: AppContext) -> dict[str, float]:
    if not app.workspace.db_path.exists():  # `astro skills list` in a fresh folder must not create .astro/
        return {}
    from astro_cli.skills.usage import UsageStore

    return UsageStore(app.db).scores()


def display_path(app: AppContext, path: Path) -> str:
    """A path as the user thinks of it: relative to the workspace, with ~ for the home folder, or
    `(bundled)/...` for the skills shipped with astro."""
    from astro_cli.workspace import bundled_skills_dir

    try:
        return f"(bundled)/{path.relative_to(bundled_skills_dir())}"
    except ValueError:
        pass
    for root in (app.workspace.root, Path.home()):
        try:
            rel = path.relative_to(root)
        except ValueError:
            continue
        return str(rel) if root == app.workspace.root else f"~/{rel}"
    return str(path)
