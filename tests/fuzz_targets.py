"""Fuzz targets shared by tests/cli/test_faults_fuzz.py and benchmarks/bench_reliability.py.

Each target feeds one generated input to the real parser or tool and returns normally when astro
handled it (parsed it, or refused it with its own one-sentence error). Anything else escaping is
a crash: the exception is raised for hypothesis to report (and shrink) it.
"""

from __future__ import annotations

import json
import string
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from astro_cli.config_schema import SCHEMA

# --- generated inputs ----------------------------------------------------------------------------
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40), st.sampled_from(["", "~", "yes", "no", "2025-13-45", "1e999", "-.inf", "0x1F", "!!binary"]),
)
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=60)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)),
    max_leaves=12,
)
YAML_VALUES = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)), max_leaves=10)
YAML_TRICKS = st.sampled_from([
    "", "---", "...", "- a\n- b", "key: [unclosed", "{a: 1", "? complex\n: key", "&a x\n*b", "!!python/object:os.system x",
    "a: !!int 'x'", "a: !!float 'x'", "a: !!timestamp 2025-99-99", "\t- tab", "a: b: c", "%YAML 9.9\n---",
    "a: 0o999", "a: 2001-12-14t21:59:43.10-05:00", "a: 1_000_000", "a: .NaN", "a: *unknown",
])
SKILL_KEYS = ["name", "description", "when_to_use", "allowed-tools", "context", "user-invocable", "paths",
              "disable-model-invocation", "argument-hint", "model"]
MEMORY_KEYS = ["type", "description", "created", "updated", "superseded_by"]
CONFIG_KEYS = sorted(SCHEMA) + ["bash", "permissions", "skills", "memory", "compaction", "unknown_key"]


RAW_SCALARS = st.one_of(
    st.sampled_from(["2025-13-01", "2025-02-30 10:00", "2001-12-14t21:59:43.10-05:00", "1e999", ".nan", "-.inf",
                     "0o999", "0x", "!!int x", "!!float x", "!!timestamp 2025-99-99", "!!binary ###", "*alias",
                     "&anchor", "[a, b", "{a: 1}", "|", ">-", "~", "null", "yes", "'unclosed", '"\\x"', "@", "`",
                     "- item", "? key", "%", "12:30:00", "1_0", "+12", "0b102", "2025-06-01T12:00:00Z"]),
    st.text(max_size=30).filter(lambda t: "\n" not in t),
)


def frontmatter_doc(keys: list[str]) -> st.SearchStrategy[str]:
    """A `---` YAML block (unquoted key: value lines, dumped values or raw YAML tricks) and a body;
    the fences are mostly right, so the YAML inside gets read."""
    lines = st.lists(st.tuples(st.sampled_from(keys) | st.text(max_size=10), RAW_SCALARS), max_size=6).map(
        lambda pairs: "".join(f"{k}: {v}\n" for k, v in pairs))
    dumped = st.dictionaries(st.sampled_from(keys) | st.text(max_size=10), YAML_VALUES, max_size=6).map(
        lambda meta: yaml.safe_dump(meta, allow_unicode=True, sort_keys=False))
    head = st.one_of(lines, lines, dumped, YAML_TRICKS.map(lambda t: t + "\n"), st.text(max_size=200))
    fence = st.one_of(st.just("---\n"), st.just("---\n"), st.sampled_from(["---\r\n", "\ufeff---\n", "--- \n", ""]))
    close = st.one_of(st.just("---\n"), st.just("---\n"), st.sampled_from(["\n---\n", "---", "", "...\n"]))
    return st.builds(lambda f, h, c, b: f + h + c + b, fence, head, close, st.text(max_size=200))


SKILL_DOCS = frontmatter_doc(SKILL_KEYS)
MEMORY_DOCS = frontmatter_doc(MEMORY_KEYS)
CONFIG_DOCS = st.one_of(
    st.dictionaries(st.sampled_from(CONFIG_KEYS), YAML_VALUES, max_size=6).map(
        lambda data: yaml.safe_dump(data, allow_unicode=True).encode()),
    st.lists(st.tuples(st.sampled_from(CONFIG_KEYS), RAW_SCALARS), max_size=6).map(
        lambda pairs: "".join(f"{k}: {v}\n" for k, v in pairs).encode()),
    st.dictionaries(st.sampled_from(["bash", "permissions", "skills", "memory"]),
                    st.dictionaries(st.text(string.ascii_lowercase + "_", max_size=14), YAML_VALUES, max_size=3),
                    max_size=3).map(lambda data: yaml.safe_dump(data).encode()),
    YAML_TRICKS.map(str.encode),
    st.binary(max_size=200),
)
TOOL_NAMES = ["read_file", "grep_files", "glob_files", "file_write", "file_edit", "todo_write", "load_skill",
              "save_memory", "rag_search", "get_paper_content", "parse_paper", "save_note", "bg_task_run"]
ARGUMENT_KEYS = ["path", "content", "pattern", "glob", "offset", "limit", "old_string", "new_string", "replace_all",
                 "case_sensitive", "todos", "name", "arguments", "query", "paper", "section", "pages", "id", "k",
                 "slug", "type", "description", "title", "text", "tool", "task_id", "cancel", "force"]
TOOL_ARGUMENTS = st.one_of(
    st.dictionaries(st.sampled_from(ARGUMENT_KEYS), JSON_VALUES, max_size=5).map(json.dumps),
    st.text(max_size=80),  # not JSON at all, or JSON that is not an object
    JSON_VALUES.map(json.dumps),
)


# --- targets ------------------------------------------------------------------------------------
def skill_md(text: str, root: Path) -> None:
    from astro_cli.skills.skill import SkillError, parse_skill

    folder = root / "skills" / "fuzzed"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        parse_skill(path)
    except SkillError:
        pass


def memory_file(text: str, root: Path) -> None:
    from astro_cli.memory.format import MemoryFileError, read_memory

    path = root / "memory" / "fuzzed.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        read_memory(path)
    except MemoryFileError:
        pass


def config_file(data: bytes, root: Path) -> None:
    from astro_cli.config import ConfigError, load_settings

    path = root / "config.yaml"
    path.write_bytes(data)
    try:
        load_settings([path], env={})
    except ConfigError:
        pass


class ToolHarness:
    """One workspace with every feature installed; runs a tool call as the tool runner does, but
    reports an exception that the runner would call 'failed unexpectedly' as a crash."""

    def __init__(self) -> None:
        from astro_cli.app import AppContext
        from astro_cli.config import load_settings
        from astro_cli.workspace import AstroHome, Workspace

        self.tmp = tempfile.TemporaryDirectory(prefix="astro-fuzz-")
        root = Path(self.tmp.name)
        (root / "notes.md").write_text("# Notes\nflux 3 mJy\n")
        self.app = AppContext(load_settings([], env={}, flags={"library.embedding_model": "off"}), Workspace(root), AstroHome(root / ".home")).install_features()

    def call(self, name: str, raw: str) -> None:
        from astro_cli.agent.model import parse_arguments
        from astro_cli.agent.tool_runner import check_arguments
        from astro_cli.tools.base import ToolError
        from astro_cli.tools.context import ToolContext

        tool = self.app.tools.get(name)
        assert tool is not None, name
        try:
            arguments = parse_arguments(raw)
        except ValueError:
            return
        problem = check_arguments(tool, arguments)
        if problem:
            return
        ctx = ToolContext(app=self.app, session_id="fuzz", call_id="fuzz")
        try:
            tool.run(ctx, arguments)
        except ToolError:
            pass

    def close(self) -> None:
        self.app.close()
        self.tmp.cleanup()


def describe(value: Any) -> str:
    return repr(value)[:200]
