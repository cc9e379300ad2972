"""The prompt-section registry: ordering, scopes, complete sections, strict variables, tool order."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from astro_cli.config import ConfigError, load_settings
from astro_cli.prompt.registry import GLOBAL, PromptRegistry, PromptRegistryError
from astro_cli.prompt.render import PromptRenderError, render
from astro_cli.tools.base import Tool, first_sentence
from astro_cli.tools.registry import UNLISTED, ToolOrderError, ToolRegistry


def tool(name: str, description: str = "Does a thing. More detail.") -> Tool:
    return Tool(name=name, description=description, parameters={"type": "object"}, run=lambda ctx, args: "")


def test_sections_join_in_ascending_order_with_blank_lines():
    reg = PromptRegistry()
    reg.add("principles", 900, text="P")
    reg.add("identity", -100, text="I")
    reg.add("tools", 100, text="T")
    assert reg.assemble([]).system == "I\n\nT\n\nP"


def test_empty_section_disappears():
    reg = PromptRegistry()
    reg.add("a", 1, text="A")
    reg.add("empty", 2, provider=lambda data: None)
    reg.add("blank", 3, text="   ")
    reg.add("b", 4, text="B")
    assembled = reg.assemble([])
    assert assembled.system == "A\n\nB"
    assert [s.name for s in assembled.sections] == ["a", "b"]


def test_same_name_twice_in_one_scope_is_an_error_but_other_scope_is_fine():
    reg = PromptRegistry()
    reg.add("identity", -100, text="I")
    with pytest.raises(PromptRegistryError, match="identity"):
        reg.add("identity", -100, text="again")
    reg.add("identity", -100, text="sub identity", scope="subagent")


def test_scoped_section_shadows_global_for_that_agent_only():
    reg = PromptRegistry()
    reg.add("identity", -100, text="main identity")
    reg.add("principles", 900, text="P")
    reg.add("identity", -100, text="helper identity", scope="helper")
    assert reg.assemble([], scope="helper").system == "helper identity\n\nP"
    assert reg.assemble([], scope=GLOBAL).system == "main identity\n\nP"
    assert reg.assemble([], scope="other").system == "main identity\n\nP"


def test_complete_section_is_the_whole_prompt():
    reg = PromptRegistry()
    reg.add("identity", -100, text="I")
    reg.add("principles", 900, text="P")
    reg.add("whole", 0, text="Only this, for {{who}}.", scope="sub", complete=True)
    reg.register_variable("who", lambda: "the subagent")
    assert reg.assemble([], scope="sub").system == "Only this, for the subagent."
    assert reg.assemble([]).system == "I\n\nP"


def test_two_complete_sections_fail():
    reg = PromptRegistry()
    reg.add("one", 0, text="1", complete=True)
    reg.add("two", 1, text="2", scope="x", complete=True)
    with pytest.raises(PromptRegistryError, match="more than one complete"):
        reg.assemble([], scope="x")


def test_scoped_variable_shadows_global():
    reg = PromptRegistry()
    reg.add("identity", 0, text="model={{model}}")
    reg.register_variable("model", lambda: "big")
    reg.register_variable("model", lambda: "small", scope="sub")
    assert reg.assemble([]).system == "model=big"
    assert reg.assemble([], scope="sub").system == "model=small"
    assert reg.assemble([], scope="sub").variables == {"model": "small"}


@pytest.mark.parametrize(
    "text, message",
    [
        ("hello {{nobody}}", "unknown variable 'nobody'"),
        ("hello {{empty}}", "variable 'empty' has no value"),
        ("hello {{not valid!}}", "malformed variable group"),
        ("hello {{}}", "malformed variable group"),
    ],
)
def test_strict_variables_name_the_section_and_variable(text, message):
    reg = PromptRegistry()
    reg.add("greeting", 0, text=text)
    reg.register_variable("empty", lambda: None)
    with pytest.raises(PromptRegistryError) as info:
        reg.assemble([])
    assert "greeting" in str(info.value)
    assert message in str(info.value)


def test_lone_braces_pass_and_values_are_not_rescanned():
    reg = PromptRegistry()
    reg.add("s", 0, text="a {{x}} and a lone {{ brace")
    reg.register_variable("x", lambda: "{{x}}")
    assert reg.assemble([]).system == "a {{x}} and a lone {{ brace"


_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)


@given(st.lists(st.one_of(st.text(alphabet=st.characters(blacklist_characters="{}"), max_size=12),
                          _names.map(lambda n: "{{" + n + "}}")), max_size=12),
       st.dictionaries(_names, st.text(max_size=10), max_size=6))
def test_renderer_fills_known_names_and_rejects_unknown(parts, values):
    text = "".join(parts)
    referenced = [p[2:-2] for p in parts if p.startswith("{{")]
    try:
        out = render(text, values.get, lambda n: n in values, "sec")
    except PromptRenderError as exc:
        assert any(name not in values for name in referenced)
        assert "sec" in str(exc)
    else:
        assert all(name in values for name in referenced)
        expected = "".join(values[p[2:-2]] if p.startswith("{{") else p for p in parts)
        assert out == expected


@given(st.text(max_size=40))
def test_renderer_never_crashes_on_arbitrary_text(text):
    try:
        render(text, lambda n: "v", lambda n: True, "sec")
    except PromptRenderError:
        pass


def test_tools_section_lists_first_sentence_cut_to_80():
    from astro_cli.prompt.registry import AssemblyInput
    from astro_cli.prompt.sections import tools_section

    long = "x" * 120 + ". Second."
    text = tools_section(AssemblyInput(scope=GLOBAL, tools=[tool("a", "Reads files. Second sentence."), tool("b", long)]))
    lines = text.splitlines()
    assert "- a: Reads files." in lines
    assert "- b: " + "x" * 80 in lines


@pytest.mark.parametrize(
    "description, summary",
    [
        ("Search papers. Uses ADS.", "Search papers."),
        ("查询天体。然后返回", "查询天体。"),
        ("Is it there? Yes", "Is it there?"),
        ("Run it!\nMore", "Run it!"),
        ("First line\nsecond line.", "First line"),
        ("No end at all", "No end at all"),
        ("Version 1.5 of the thing. Next", "Version 1.5 of the thing."),
    ],
)
def test_first_sentence(description, summary):
    assert first_sentence(description) == summary


def test_tool_order_with_marker_and_name_order_without():
    reg = ToolRegistry([tool(n) for n in ["zeta", "alpha", "mid", "beta"]])
    assert [t.name for t in reg.ordered(None)] == ["alpha", "beta", "mid", "zeta"]
    order = ["zeta", UNLISTED, "alpha"]
    assert [t.name for t in reg.ordered(order)] == ["zeta", "beta", "mid", "alpha"]


def test_tool_order_naming_unknown_tool_fails_clearly():
    reg = ToolRegistry([tool("alpha")])
    with pytest.raises(ToolOrderError, match="ghost"):
        reg.ordered(["ghost", UNLISTED])


@pytest.mark.parametrize(
    "order, message",
    [(["a", "b"], "exactly one"), (["a", UNLISTED, UNLISTED], "exactly one"), (["a", "a", UNLISTED], "twice")],
)
def test_bad_tool_order_fails_at_config_load(tmp_path, order, message):
    path = tmp_path / "config.yaml"
    import yaml

    path.write_text(yaml.safe_dump({"tool_order": order}))
    with pytest.raises(ConfigError, match=message):
        load_settings([path], env={})


def test_tool_with_builtin_name_replaces_it():
    reg = ToolRegistry([tool("read_file", "Built-in reader.")])
    replacement = tool("read_file", "Plugin reader.")
    replacement.source = "plugin"
    reg.register(replacement)
    assert len(reg) == 1
    assert reg.get("read_file").description == "Plugin reader."
    assert reg.ordered(None)[0].schema()["function"]["description"] == "Plugin reader."


def test_provider_output_is_data_not_a_template():
    reg = PromptRegistry()
    reg.add("identity", 0, text="I am {{who}}.")
    reg.add("memory", 300, provider=lambda data: "a memory that mentions {{nobody}} and {{ odd }}")
    reg.add("opt-in", 400, provider=lambda data: "rendered for {{who}}", variables=True)
    reg.register_variable("who", lambda: "astro")
    assert reg.assemble([]).system == (
        "I am astro.\n\na memory that mentions {{nobody}} and {{ odd }}\n\nrendered for astro"
    )
