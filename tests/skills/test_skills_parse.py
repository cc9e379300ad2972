"""SKILL.md parsing: the real fixture files, malformed files, field forms, placeholders, globs."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from astro_cli.frontmatter import split_frontmatter
from astro_cli.globs import matches
from astro_cli.skills.skill import Skill, SkillError, parse_skill, scaffold
from tests.paths import FIXTURES_DIR

FIXTURES = FIXTURES_DIR / "skills"
REJECTED = {
    "template": "its name 'template-skill' differs from its folder 'template'",
    "nasa-ads-v1.1.0": "its name 'nasa-ads' differs from its folder 'nasa-ads-v1.1.0'",
}
LOADED = [
    "astropy",
    "brand-guidelines",
    "claude-api",
    "doc-coauthoring",
    "internal-comms",
    "mcp-builder",
    "nasa-ads",
    "webapp-testing",
]


def write(root: Path, folder: str, text: str | bytes) -> Path:
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_fixture_set_is_complete():
    assert sorted(p.name for p in FIXTURES.iterdir()) == sorted(LOADED + list(REJECTED))


@pytest.mark.parametrize("folder", LOADED)
def test_every_good_fixture_loads(folder):
    skill = parse_skill(FIXTURES / folder / "SKILL.md", "project")
    assert skill.name == folder
    assert len(skill.description) > 40
    assert skill.body.strip() and not skill.body.startswith("---")
    assert skill.model_invocable and skill.context == "inline" and skill.model == "inherit"
    entry = skill.entry()
    assert entry.startswith(f"- {folder}: ") and "\n" not in entry


@pytest.mark.parametrize("folder", sorted(REJECTED))
def test_rule_breaking_fixtures_are_rejected_with_the_reason(folder):
    with pytest.raises(SkillError) as info:
        parse_skill(FIXTURES / folder / "SKILL.md", "project")
    assert REJECTED[folder] in str(info.value)


def test_fixture_oddities_are_kept():
    claude_api = parse_skill(FIXTURES / "claude-api" / "SKILL.md")
    assert "\n" in claude_api.description and len(claude_api.description) > 1000  # a |- block scalar
    assert claude_api.license == "Complete terms in LICENSE.txt"
    astropy = parse_skill(FIXTURES / "astropy" / "SKILL.md")
    assert astropy.metadata == {"skill-author": "K-Dense Inc."}
    assert astropy.license == "BSD-3-Clause license"
    nasa = parse_skill(FIXTURES / "nasa-ads" / "SKILL.md")
    assert "查一下文献" in nasa.description and "天体物理论文" in nasa.description
    assert parse_skill(FIXTURES / "doc-coauthoring" / "SKILL.md").license == ""
    assert "🚀" in parse_skill(FIXTURES / "mcp-builder" / "SKILL.md").body


def test_the_version_field_loads_when_the_folder_matches(tmp_path):
    text = (FIXTURES / "nasa-ads-v1.1.0" / "SKILL.md").read_text(encoding="utf-8")
    skill = parse_skill(write(tmp_path, "nasa-ads", text))
    assert skill.version == "1.1.0" and skill.name == "nasa-ads"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("# just markdown\n", "does not start with a '---' frontmatter block"),
        ("---\nname: demo\ndescription: d\n", "not closed"),
        ("---\nname: demo\ndescription: 'unbalanced\n---\nbody\n", "does not parse"),
        ("---\nname: demo\n\tdescription: tab\n---\n", "does not parse"),
        ("---\n- a\n- b\n---\nbody\n", "not a set of 'key: value' fields"),
        ("---\ndescription: no name\n---\nbody\n", "has no 'name'"),
        ("---\nname: demo\n---\nbody\n", "has no 'description'"),
        ("---\nname: demo\ndescription: '  '\n---\nbody\n", "'description' is empty"),
        ("---\nname: other\ndescription: d\n---\nbody\n", "differs from its folder 'demo'"),
        ("---\nname: demo\ndescription: [a, b]\n---\n", "'description' must be text"),
        ("---\nname: demo\ndescription: d\ncontext: background\n---\n", "'context' must be inline or fork"),
        (
            "---\nname: demo\ndescription: d\nuser-invocable: maybe\n---\n",
            "'user-invocable' must be true or false",
        ),
        ("---\nname: demo\ndescription: d\nallowed-tools: {a: 1}\n---\n", "'allowed-tools' must be a list"),
        ("---\nname: demo\ndescription: d\npaths: 3\n---\n", "'paths' must be a list"),
    ],
)
def test_malformed_files_are_rejected_with_one_clear_reason(tmp_path, text, reason):
    with pytest.raises(SkillError) as info:
        parse_skill(write(tmp_path, "demo", text))
    assert reason in str(info.value)
    assert "\n" not in str(info.value)


def test_bytes_that_are_not_utf8_are_rejected(tmp_path):
    with pytest.raises(SkillError, match="not UTF-8"):
        parse_skill(write(tmp_path, "demo", b"---\nname: demo\ndescription: \xff\xfe\n---\n"))


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("[search_papers, rag_search]", ("search_papers", "rag_search")),
        ("search_papers rag_search", ("search_papers", "rag_search")),
        ("search_papers, rag_search,file_write", ("search_papers", "rag_search", "file_write")),
        ('"Bash(git add:*) Read"', ("Bash(git add:*)", "Read")),
        ("[]", ()),
    ],
)
def test_allowed_tools_as_list_or_separated_string(tmp_path, value, expected):
    text = f"---\nname: demo\ndescription: d\nallowed-tools: {value}\n---\nbody\n"
    assert parse_skill(write(tmp_path, "demo", text)).allowed_tools == expected


def test_all_fields_and_unknown_fields_are_kept(tmp_path):
    text = """---
name: demo
description: Fits orbits.
when_to_use: When the user fits an orbit.
allowed-tools: [file_write]
model: anthropic/claude-haiku-4-5
context: fork
user-invocable: false
disable-model-invocation: "yes"
paths: "*.fits data/**/*.csv"
argument-hint: "[target]"
arguments: [target]
license: MIT
version: 2
hooks: {PreToolUse: []}
x-team: orbits
---
Body.
"""
    skill = parse_skill(write(tmp_path, "demo", text), "user")
    assert skill.layer == "user" and skill.when_to_use == "When the user fits an orbit."
    assert skill.model == "anthropic/claude-haiku-4-5" and skill.context == "fork"
    assert skill.user_invocable is False and skill.disable_model_invocation is True
    assert skill.paths == ("*.fits", "data/**/*.csv") and skill.arguments == ["target"]
    assert skill.argument_hint == "[target]" and skill.version == "2" and skill.license == "MIT"
    assert skill.extra == {"hooks": {"PreToolUse": []}, "x-team": "orbits"}
    assert skill.entry() == "- demo: Fits orbits. - When the user fits an orbit."


def test_placeholders_are_filled_when_loaded(tmp_path):
    path = write(
        tmp_path,
        "demo",
        "---\nname: demo\ndescription: d\n---\nTarget: $ARGUMENTS\nRun ${SKILL_DIR}/fit.py\n",
    )
    body = parse_skill(path).render("HD 209458")
    assert body == f"Target: HD 209458\nRun {path.parent}/fit.py\n"
    no_slot = write(tmp_path, "other", "---\nname: other\ndescription: d\n---\nDo the thing.\n")
    assert parse_skill(no_slot).render("M31").endswith("Do the thing.\n\nARGUMENTS: M31")
    assert parse_skill(no_slot).render("") == "Do the thing.\n"


def test_the_scaffold_validates(tmp_path):
    skill = parse_skill(write(tmp_path, "my-method", scaffold("my-method")))
    assert skill.name == "my-method" and skill.allowed_tools == ()
    assert "${SKILL_DIR}" in skill.body


def test_frontmatter_split_tolerates_bom_and_crlf():
    front, body = split_frontmatter("\ufeff---\r\nname: a\r\n---\r\n\r\nBody\r\n")
    assert yaml.safe_load(front) == {"name": "a"} and body == "Body\r\n"


# --- property: no frontmatter ever crashes the loader ---------------------------------------
yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=40),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=12,
)
keys = st.sampled_from(
    [
        "name",
        "description",
        "when_to_use",
        "allowed-tools",
        "model",
        "context",
        "user-invocable",
        "disable-model-invocation",
        "paths",
        "argument-hint",
        "arguments",
        "license",
        "metadata",
        "version",
    ]
) | st.text(max_size=12)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(meta=st.dictionaries(keys, yaml_values, max_size=8), body=st.text(max_size=200))
def test_generated_frontmatter_never_crashes(tmp_path, meta, body):
    text = "---\n" + yaml.safe_dump(meta, allow_unicode=True) + "---\n" + body
    try:
        skill = parse_skill(write(tmp_path, "demo", text))
    except SkillError as exc:
        assert str(exc)
    else:
        assert isinstance(skill, Skill) and skill.name == "demo" and skill.description
        skill.entry()
        skill.render("x")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(front=st.text(max_size=300))
def test_arbitrary_frontmatter_text_never_crashes(tmp_path, front):
    try:
        parse_skill(write(tmp_path, "demo", "---\n" + front + "\n---\nbody\n"))
    except SkillError as exc:
        assert str(exc)


# --- globs for conditional skills -------------------------------------------------------------
@pytest.mark.parametrize(
    ("patterns", "rel", "expected"),
    [
        (("*.fits",), "data/raw/m31.fits", True),
        (("*.fits",), "data/raw/m31.fits.gz", False),
        (("data/**/*.csv",), "data/a/b/c.csv", True),
        (("data/**/*.csv",), "data/c.csv", True),
        (("data/*.csv",), "data/a/c.csv", False),
        (("spectra/",), "spectra/night1/s.txt", True),
        (("**/*.ipynb",), "nb.ipynb", True),
        (("[mM]31.*",), "M31.txt", True),
        (("./notes/*.md",), "notes/a.md", True),
        (("[z-a]",), "x", False),
    ],
)
def test_path_globs(tmp_path, patterns, rel, expected):
    assert matches(patterns, tmp_path / rel, tmp_path) is expected
