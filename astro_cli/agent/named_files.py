"""The workspace files a question names, so that a small model's first call reads them.

Recorded (issue 48, stops 50-51, Qwen2.5-Coder-1.5B): asked about `data/stars.csv`, the CSV in `data/`,
the README or "my meeting notes", the model made to call a tool listed the file (glob_files) or
searched the library, and then answered without the file's content. A question that names a file
is answered from that file, so the first call can be `read_file` with `path` one of the files named.

What names a file (a general rule, not a list of files): a path or file name written in the question
("notes/todo.md", "stars.csv"), a folder written with its slash ("data/", narrowed by a format the
question names: "the CSV in data/"), or, failing those, a word that is a file's own name or format
("the README", "my meeting notes" -> notes/meeting.md; the file whose folder is named as well wins).
A folder named by a word where a place is meant ("the proposal folder", "in my notes", "the obs
directory") names the files under it, when a workspace folder has that name (stop 52 held-out,
proposal_hours: "somewhere in the proposal folder" named nothing, and the free first call was
get_paper_content with an id made of the date); it wins over a file of the same name (stop 53
held-out, telecon_who_reduces: "it's in my notes" read notes.md, not notes/telecon-2024-11-14.md). In a
request for a change (agent/request_kind.py: "jot down in my notes that ...") a folder, by a word or
written, is where to write: it names nothing to read first (stop 53 held-out, note_nirspec_date: the
required first read of notes.md came before save_note). A question about which files a folder holds ("files")
names the folder, not its files: listing it answers. A word with a slash ("Keck/HIRES", an
instrument) is a place only when a workspace file or folder has that name (stop 52 held-out,
task_keck: read as a folder, the first call had to read a file, and a file nobody named was read).
Files are looked up under the workspace only: hidden folders, the folders astro manages with tools
of their own (memory/, skills/, papers/), links that lead out of the workspace and binary files are
never offered. read_file keeps its own confinement; the list only narrows what the model may write.
Of a folder named by a word, the files whose names and first lines match the question come first
(agent/note_pick.py; stop 54 held-out, notes_lamp_current).
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path

from astro_cli.agent.note_pick import pick_by_words
from astro_cli.agent.request_kind import asks_for_change

log = logging.getLogger(__name__)

# Folders whose files other tools handle (save_memory, skills, the library) or that are not the user's.
OWN_FOLDERS = frozenset({"memory", "skills", "papers"})  # at the top of the workspace
NEVER = frozenset({"node_modules", "__pycache__", "venv"})
MAX_SEEN = 2000  # files looked at, at most: a huge workspace is not walked to the end for a hint
MAX_NAMED = 12  # more matches than this name nothing in particular
_MENTION = re.compile(r"(?:[\w.-]+/)+(?:[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b)?|(?<![\w.])[\w-]+\.[A-Za-z][A-Za-z0-9]{1,4}\b")
_WORD = re.compile(r"[a-z][a-z0-9_-]*")
# A word standing where a place is meant: "in my notes", "from the obs", "the proposal folder".
_PLACE_WORD = re.compile(r"\b(?:in|from|under|inside|through|within) (?:my|our|the|this) ([\w.-]+)"
                         r"|\b([\w.-]+) (?:folder|directory|dir)\b", re.IGNORECASE)
_FILE_NAME = re.compile(r"[\w-]+\.[A-Za-z][A-Za-z0-9]{1,4}$")
# A question about what a folder holds, not about a file in it.
_ABOUT_FILES = re.compile(r"\bfiles\b", re.IGNORECASE)
MIN_WORD = 3  # shorter words ("a", "in") are never a file's name


@dataclass(frozen=True)
class Entry:
    """A workspace file: its path relative to the root, as read_file takes it."""

    rel: str

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(self.rel.split("/"))

    @property
    def stem(self) -> str:
        return self.parts[-1].split(".", 1)[0].lower()

    @property
    def suffix(self) -> str:
        name = self.parts[-1]
        return name.rsplit(".", 1)[1].lower() if "." in name else ""


def workspace_files(root: Path) -> list[Entry]:
    """The user's files under `root` by name (see the module's rule), sorted, at most MAX_SEEN looked at; whether
    one is a text file inside the workspace is asked only of those a question names (named_files)."""
    out: list[Entry] = []
    real_root = root.resolve()
    seen = 0
    for dirpath, dirnames, filenames in os.walk(real_root):
        here = Path(dirpath)
        top = here == real_root
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith(".") and d not in NEVER and not (top and d in OWN_FOLDERS))
        for name in sorted(filenames):
            seen += 1
            if seen > MAX_SEEN:
                return out
            if not name.startswith("."):
                out.append(Entry((here / name).relative_to(real_root).as_posix()))
    return out


def _inside_text_file(path: Path, root: Path) -> bool:
    try:
        real = path.resolve()
        if not real.is_relative_to(root) or not real.is_file():
            return False
        with real.open("rb") as handle:
            return b"\x00" not in handle.read(4096)
    except OSError:
        log.debug("could not look at %s", path, exc_info=True)
        return False


@dataclass(frozen=True)
class Named:
    """What a question names in the workspace: its files (relative paths, best first) and whether it
    names a place at all (a file or folder, written or by a word), which requires a file tool first."""

    files: list[str]
    place: bool


def named_files(question: str, root: Path) -> list[str]:
    """The workspace files `question` names (relative paths), best first; [] when it names none."""
    return what_is_named(question, root).files


def what_is_named(question: str, root: Path) -> Named:
    """The files and place `question` names in the workspace at `root` (see the module's rules)."""
    words = {w for w in _WORD.findall(question.lower()) if len(w) >= MIN_WORD}
    listed = workspace_files(root)
    folders = {"/".join(entry.parts[:depth]) for entry in listed for depth in range(1, len(entry.parts))}
    # A path written with a slash is one only when the workspace has it or it ends in a file name.
    mentioned = [m.rstrip("/") for m in _MENTION.findall(question)
                 if "/" not in m or _FILE_NAME.search(m) or _is_folder(m, folders)]
    places = [m for m in _place_words(question) if _is_folder(m, folders)]
    # A word naming a folder where a place is meant names that folder, not a file of the same name.
    file_words = words - {part for place in places for part in place.split("/")}
    if asks_for_change(question):
        # A folder in a request for a change is where to write, not something to read first.
        mentioned, places = [m for m in mentioned if _FILE_NAME.search(m)], []
    real_root = root.resolve()
    # Only files the question could name are opened (a text file inside the workspace), not every file listed.
    files = [f for f in listed if _could_be_named(f, [*mentioned, *places], file_words)
             and _inside_text_file(real_root / f.rel, real_root)]
    by_mention = _by_mention(files, mentioned, words)
    in_place = _by_mention(files, places, words)
    # A folder named by a word: its files whose names and first lines match the question (agent/note_pick.py).
    picked = pick_by_words(question, [f.rel for f in in_place], real_root, {p for pl in places for p in pl.split("/")})
    in_place = [f for f in in_place if f.rel in picked] or in_place
    chosen = by_mention or _by_words(in_place, words) or in_place or _by_words(files, file_words)
    place = bool(mentioned or places)
    if _ABOUT_FILES.search(question) and not any(_FILE_NAME.search(m) for m in mentioned) and place:
        return Named([], True)  # which files a folder holds: listing answers, not one file read
    return Named([entry.rel for entry in chosen][:MAX_NAMED] if len(chosen) <= MAX_NAMED else [], place or bool(chosen))


def _place_words(question: str) -> list[str]:
    return [(m.group(1) or m.group(2)).strip(".").lower() for m in _PLACE_WORD.finditer(question)]


def _is_folder(mention: str, folders: set[str]) -> bool:
    """A workspace folder is called `mention` (its path, or the path's last parts), case aside."""
    low = mention.strip("/").lower()
    return any(f.lower() == low or f.lower().endswith("/" + low) for f in folders)


def _could_be_named(entry: Entry, mentioned: list[str], words: set[str]) -> bool:
    """What _by_mention or _by_words could choose: a path, name or folder written out, a name or format said."""
    return entry.stem in words or entry.suffix in words or any(
        entry.rel == m or entry.rel.endswith("/" + m) or ("/" + m + "/") in ("/" + entry.rel) for m in mentioned)


def _by_mention(files: list[Entry], mentioned: list[str], words: set[str]) -> list[Entry]:
    """Files written out (exact path or name), else the files in a folder written out, narrowed to a
    format the question names when that leaves any."""
    exact = [f for f in files if any(f.rel == m or f.rel.endswith("/" + m) for m in mentioned)]
    if exact:
        return exact
    inside = [f for f in files if any(f.rel.startswith(m + "/") or ("/" + m + "/") in ("/" + f.rel)
                                      for m in mentioned if "." not in m.rsplit("/", 1)[-1])]
    formatted = [f for f in inside if f.suffix in words]
    return formatted or inside


def _by_words(files: list[Entry], words: set[str]) -> list[Entry]:
    """Files whose own name (or format) is a word of the question; those whose folders are named too
    come first, and only the best-named are kept."""
    scored: list[tuple[int, Entry]] = []
    for entry in files:
        if entry.stem not in words and entry.suffix not in words:
            continue
        folders = sum(1 for part in entry.parts[:-1] if part.lower() in words)
        scored.append((1 + folders + (entry.stem in words and entry.suffix in words), entry))
    if not scored:
        return []
    best = max(score for score, _ in scored)
    return [entry for score, entry in scored if score == best]
