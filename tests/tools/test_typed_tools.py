"""Tools written as typed functions (`@tool`, tools/typed.py): the schema the model sees comes from the
signature and the docstring, arguments are converted by the signature's types, and a signature no
schema can express fails when the tool is defined, in one sentence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import pytest

from astro_cli.app import AppContext
from astro_cli.config import load_settings
from astro_cli.extensions import ExtensionPoints
from astro_cli.tools.base import ToolError, ToolResult
from astro_cli.tools.typed import ToolDefinitionError, as_tool, tool
from astro_cli.workspace import AstroHome, Workspace
from tests.paths import FIXTURES_DIR

# The schemas of the converted tools as main built them by hand before the decorator (commit 24099df).
BEFORE = FIXTURES_DIR / "tool_schemas_before_typed.json"


def _app(tmp_path: Path) -> AppContext:
    return AppContext(load_settings([], env={}, flags={"library.embedding_model": "off"}),
                      Workspace(tmp_path), AstroHome(tmp_path / ".home")).install_features()


def test_the_converted_tools_show_the_model_what_the_hand_written_schemas_showed(tmp_path):
    before = json.loads(BEFORE.read_text(encoding="utf-8"))
    app = _app(tmp_path)
    for name, old in before.items():
        registered = app.tools.get(name)
        assert registered is not None, name
        new = registered.schema()["function"]
        old = old["function"]
        assert new["description"] == old["description"], name
        old_params, new_params = old["parameters"], new["parameters"]
        assert list(new_params["properties"]) == list(old_params["properties"]), name
        assert new_params.get("required") == old_params.get("required"), name
        assert new_params["additionalProperties"] is False, name
        grown = 0
        for param, was in old_params["properties"].items():
            now = new_params["properties"][param]
            assert now["type"] == was["type"], (name, param)
            if (name, param) == ("search_papers", "source"):  # the registered sources (issue 45): INSPIRE joined
                assert now["enum"] == app.service(ExtensionPoints).search_choices() == [*was["enum"], "inspire"]
                grown = len(json.dumps(now["enum"])) - len(json.dumps(was["enum"]))
            else:
                assert now.get("enum") == was.get("enum"), (name, param)
            assert now.get("description") == was.get("description"), (name, param)
        # Same words, same size: the prompt's token count for these tools cannot have grown (but by a source's name).
        assert len(json.dumps(new)) <= len(json.dumps(old)) + grown, name


def test_the_converted_tools_are_built_from_their_signatures(tmp_path):
    from astro_cli.compact import feature as compact
    from astro_cli.research import feature as research
    from astro_cli.research.library import feature as library
    from astro_cli.tools import files
    from astro_cli.tools.typed import spec_of

    app = _app(tmp_path)
    functions = [files.read_file, files.grep_files, files.glob_files, files.file_write, files.file_edit,
                 research.search_papers_tool, research.paper_graph_tool, research.download_paper_tool,
                 research.query_target_tool, library.parse_paper_tool, library.get_paper_content_tool,
                 library.save_note_tool, compact.compress_context]
    assert sorted(spec_of(f).name for f in functions) == sorted(json.loads(BEFORE.read_text(encoding="utf-8")))
    for function in functions:
        spec = spec_of(function)
        registered = json.loads(json.dumps(app.tools.get(spec.name).parameters))
        if spec.name == "search_papers":  # the source enum is the registry's (issue 45), set at install
            assert registered["properties"]["source"].pop("enum") == ["all", "ads", "arxiv", "inspire"]
        assert registered == spec.parameters()
    assert app.tools.get("file_edit").needs_permission and not app.tools.get("file_edit").read_only
    assert app.tools.get("download_paper").timeout == 900 and app.tools.get("search_papers").key_argument == "query"


@tool(key_argument="target", timeout=30)
def _lookup(ctx: object, target: str, band: Literal["V", "R", "I"] = "V", radius: float | None = None,
            limit: int = 20, names: list[str] | None = None, cone: bool = False) -> ToolResult:
    """Look up an object. A second sentence
    continues on the next line.

    Args:
        target: The object's name.
        band: Photometric band.
        radius: Cone radius in arcminutes, which
            a long description continues here.
        names: Other names to try.

    Returns:
        Nothing the schema shows.
    """
    return ToolResult(json.dumps({"target": target, "band": band, "radius": radius, "limit": limit,
                                  "names": names, "cone": cone}))


def test_a_signature_becomes_a_schema():
    made = as_tool(_lookup)
    assert made.name == "_lookup" and made.timeout == 30 and made.key_argument == "target"
    assert made.description == "Look up an object. A second sentence continues on the next line."
    assert made.summary == "Look up an object."
    assert made.parameters == {
        "type": "object",
        "properties": {
            "target": {"type": "string", "description": "The object's name."},
            "band": {"type": "string", "enum": ["V", "R", "I"], "description": "Photometric band."},
            "radius": {"type": "number",
                       "description": "Cone radius in arcminutes, which a long description continues here."},
            "limit": {"type": "integer"},
            "names": {"type": "array", "items": {"type": "string"}, "description": "Other names to try."},
            "cone": {"type": "boolean"},
        },
        "additionalProperties": False,
        "required": ["target"],
    }


def _call(arguments: dict[str, object]) -> dict[str, object]:
    result = as_tool(_lookup).run(None, arguments)
    assert isinstance(result, ToolResult)
    return json.loads(result.content)


def test_arguments_are_converted_by_the_signature_and_defaults_fill_the_rest():
    assert _call({"target": "M 31"}) == {"target": "M 31", "band": "V", "radius": None, "limit": 20,
                                         "names": None, "cone": False}
    sent = {"target": "M 31", "band": "R", "radius": "2.5", "limit": "7", "names": "Andromeda", "cone": "true"}
    assert _call(sent) == {"target": "M 31", "band": "R", "radius": 2.5, "limit": 7, "names": ["Andromeda"],
                           "cone": True}
    # null is the default, as small models send it; 3.0 is a whole number.
    assert _call({"target": "M 31", "limit": None, "band": None, "radius": 3})["limit"] == 20
    assert _call({"target": "M 31", "limit": 3.0})["limit"] == 3
    assert _call({"target": "M 31", "unknown": 1})["target"] == "M 31"


@pytest.mark.parametrize(("arguments", "sentence"), [
    ({}, "_lookup needs the argument 'target'."),
    ({"target": "M 31", "limit": "many"}, "limit must be a whole number, not 'many'."),
    ({"target": "M 31", "limit": 2.5}, "limit must be a whole number, not 2.5."),
    ({"target": "M 31", "radius": "far"}, "radius must be a number, not 'far'."),
    ({"target": "M 31", "band": "K"}, "band must be one of V, R, I, not 'K'."),
    ({"target": "M 31", "cone": "maybe"}, "cone must be true or false, not 'maybe'."),
    ({"target": ["M 31"]}, "target must be text, not list ['M 31']."),
])
def test_an_argument_that_cannot_be_converted_is_one_sentence_for_the_model(arguments, sentence):
    with pytest.raises(ToolError) as caught:
        as_tool(_lookup).run(None, arguments)
    assert str(caught.value) == sentence


def test_a_bad_argument_reaches_the_model_as_an_error_result_through_the_real_loop(cli, fake, astro_env, workspace):
    (workspace / "a.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    fake.add(
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt", "offset": "second"}}]},
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt", "offset": 2}}]},
        {"text": "It says beta."},
    )
    result = cli(["run", "Read line 2 of a.txt"], env=astro_env)
    assert result.exit_code == 0, result.stderr
    assert "Traceback" not in result.stderr
    # The loop checks the arguments against the derived schema before the tool meets them.
    first = [m for m in fake.bodies()[1]["messages"] if m["role"] == "tool"][-1]["content"]
    assert first == "Error: read_file: 'offset': 'second' is not of type 'integer'. Send arguments that fit its parameters."
    second = [m for m in fake.bodies()[2]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "beta" in second and "alpha" not in second


def _ok(ctx: object) -> str:
    return ""


def test_a_signature_no_schema_can_express_fails_when_the_tool_is_defined():
    def no_doc(ctx: object, x: str) -> str:
        return x

    def untyped(ctx: object, x) -> str:  # type: ignore[no-untyped-def]
        """Untyped."""
        return str(x)

    def a_dict(ctx: object, x: dict[str, int]) -> str:
        """Takes a dict."""
        return str(x)

    def star(ctx: object, *names: str) -> str:
        """Takes *names."""
        return ""

    def optional_without_default(ctx: object, x: str | None) -> str:
        """Optional but required."""
        return ""

    def stray_arg_doc(ctx: object, x: str) -> str:
        """Documents y.

        Args:
            y: Not a parameter.
        """
        return x

    cases = {
        no_doc: "Tool no_doc has no description: give the function a docstring.",
        untyped: "Tool untyped: parameter 'x' has no type annotation.",
        a_dict: "Tool a_dict: parameter 'x' has type dict[str, int], which a tool schema cannot express; "
                "use str, int, float, bool, list[str], a Literal, a TypedDict (or a list of one), "
                "dict[str, Any] or X | None.",
        star: "Tool star: parameter 'names' is *args or **kwargs, which a tool schema cannot describe.",
        optional_without_default: "Tool optional_without_default: parameter 'x' may be None but has no default; "
                                  "give it '= None'.",
        stray_arg_doc: "Tool stray_arg_doc: its docstring describes y, which is not a parameter.",
    }
    for function, sentence in cases.items():
        with pytest.raises(ToolDefinitionError) as caught:
            tool()(function)
        assert str(caught.value) == sentence
    with pytest.raises(ToolDefinitionError, match="key_argument 'path' is not one of its parameters"):
        tool(key_argument="path", description="Fine otherwise.")(_ok)
    with pytest.raises(ToolDefinitionError, match="first parameter must be the ToolContext"):
        tool(name="no_context", description="No context.")(lambda: "")
    with pytest.raises(ToolDefinitionError, match="A tool made from a lambda needs a name"):
        tool(description="Anonymous.")(lambda ctx: "")
