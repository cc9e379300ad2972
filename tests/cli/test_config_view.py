"""The typed view of the settings (issue 27): generated from config_schema, checked against it key by
key, and used instead of `settings.get("key")` (which returned Any and hid a misspelt key)."""

from __future__ import annotations

import re
import typing

import pytest

from astro_cli.config import Settings
from astro_cli.config_schema import SCHEMA, typed_view_source
from astro_cli.config_view import SettingValues
from tests.paths import REPO_ROOT

PACKAGE = REPO_ROOT / "astro_cli"


def test_the_view_file_is_what_the_schema_generates():
    """A key added to config_schema.py without regenerating the view fails here, with the command."""
    assert (PACKAGE / "config_view.py").read_text(encoding="utf-8") == typed_view_source(), (
        "run: python -m astro_cli.config_schema > astro_cli/config_view.py")


def test_the_view_and_the_schema_agree_key_by_key():
    hints = typing.get_type_hints(SettingValues)
    assert list(hints) == list(SCHEMA)
    for name, key in SCHEMA.items():
        default = key.default
        if default is None:
            assert key.type.endswith("?"), name
            continue
        expected = typing.get_origin(hints[name]) or hints[name]
        if expected is typing.Union or str(expected) == "types.UnionType":
            expected = tuple(typing.get_origin(a) or a for a in typing.get_args(hints[name]))
        if expected is float or (isinstance(expected, tuple) and float in expected):
            expected = (int, float) if expected is float else (*expected, int)
        assert isinstance(default, expected), f"{name}: default {default!r} is not {hints[name]}"


def test_the_typed_view_reads_the_live_settings():
    settings = Settings()
    assert settings.typed["max_steps"] == SCHEMA["max_steps"].default
    settings.set("max_steps", 7, "a test")
    assert settings.typed["max_steps"] == 7
    with pytest.raises(KeyError):
        settings.typed["max_stpes"]  # type: ignore[typeddict-unknown-key]


def test_no_setting_is_read_by_a_literal_key_through_get_anywhere_in_the_package():
    """A literal key goes through the typed view, where mypy catches a misspelling; `.get` returns Any."""
    literal = re.compile(r"""settings\.get\(\s*["'][\w.\-]+["']""")
    found = sorted(
        f"{path.relative_to(PACKAGE)}: {match.group(0)}"
        for path in PACKAGE.rglob("*.py")
        for match in literal.finditer(path.read_text(encoding="utf-8"))
    )
    assert found == []
