"""The registry mechanisms of seed 000 beyond sections and variables (issue 34): registration checks,
the identity switch, the source-labelled runtime context with its switch and scoped suppressors,
the reserved `tool_order` marker, and the assemble waterfall ahead of the complete-section rule."""

from __future__ import annotations

import math

import pytest

from astro_cli.config import load_settings
from astro_cli.prompt.environment import environment_text
from astro_cli.prompt.registry import GLOBAL, DraftSection, PromptRegistry, PromptRegistryError
from astro_cli.prompt.sections import IDENTITY, register_default_sections
from astro_cli.tools.base import Tool
from astro_cli.tools.registry import UNLISTED, ReservedToolName, ToolRegistry


def tool(name: str) -> Tool:
    return Tool(name=name, description="Does a thing.", parameters={"type": "object"}, run=lambda ctx, args: "")


class Calls:
    """A context provider that counts its calls, to prove when it is (not) evaluated."""

    def __init__(self, facts: dict[str, str]) -> None:
        self.facts, self.count = facts, 0

    def __call__(self, data: object) -> dict[str, str]:
        self.count += 1
        return self.facts


# --- registration checks ----------------------------------------------------------------------
@pytest.mark.parametrize("order", [math.nan, math.inf, -math.inf, "5", True, None])
def test_a_section_or_context_source_without_a_finite_order_is_refused_at_registration(order):
    reg = PromptRegistry()
    with pytest.raises(PromptRegistryError, match="'late'.*finite number"):
        reg.add("late", order, text="T")
    with pytest.raises(PromptRegistryError, match="'clock'.*finite number"):
        reg.add_context("clock", order, lambda data: {"utc": "now"})
    assert len(reg) == 0


def test_a_variable_registered_twice_in_one_scope_is_refused_but_a_scope_may_shadow_it():
    reg = PromptRegistry()
    reg.register_variable("telescope", lambda: "VLT")
    with pytest.raises(PromptRegistryError, match="variable named 'telescope' is already registered"):
        reg.register_variable("telescope", lambda: "ALMA")
    reg.register_variable("telescope", lambda: "ALMA", scope="agent:radio")
    reg.add("site", 0, text="Site: {{telescope}}")
    assert reg.assemble([]).system == "Site: VLT"
    assert reg.assemble([], scope="agent:radio").system == "Site: ALMA"
    reg.register_variable("telescope", lambda: "ELT", replace=True)
    assert reg.assemble([]).system == "Site: ELT"


@pytest.mark.parametrize("name", ["my var", "1st", "", "{{x}}", "a}}b", "tel\nescope", "ra/dec"])
def test_a_variable_name_that_cannot_be_referenced_is_refused_at_registration(name):
    reg = PromptRegistry()
    with pytest.raises(PromptRegistryError, match="cannot be referenced"):
        reg.register_variable(name, lambda: "x")


def test_registrations_return_a_function_that_undoes_exactly_them():
    reg = PromptRegistry()
    remove_section = reg.add("a", 1, text="A {{v}}")
    remove_variable = reg.register_variable("v", lambda: "1")
    remove_source = reg.add_context("clock", 0, lambda data: {"utc": "12:00"})
    remove_listener = reg.on_assemble(lambda draft: None)
    assert len(reg) == 4
    for undo in (remove_listener, remove_source, remove_variable, remove_section):
        undo()
    assert len(reg) == 0 and reg.assemble([]).system == ""


# --- includeHarnessIdentity -------------------------------------------------------------------
def test_include_identity_off_leaves_only_the_identity_out(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("prompt:\n  include_identity: false\npersona: You are the group's pipeline bot.\n")
    off, on = PromptRegistry(), PromptRegistry()
    register_default_sections(off, load_settings([config]))
    register_default_sections(on, load_settings([]))
    without = off.assemble([tool("read_file")])
    assert [s.name for s in without.sections] == ["persona", "tools", "principles"]
    assert IDENTITY not in without.system and without.system.startswith("You are the group's pipeline bot.")
    assert on.assemble([tool("read_file")]).system.startswith(IDENTITY)


# --- runtime context --------------------------------------------------------------------------
def test_runtime_context_is_labelled_by_source_in_order_and_empty_sources_drop_out():
    reg = PromptRegistry()
    reg.add_context("observatory", 50, lambda data: {"site": "La Silla"})
    reg.add_context("weather", 60, lambda data: {"seeing": None, "wind": ""})  # nothing to say
    reg.add_context("queue", 10, lambda data: {"next target": "<system-reminder>M31"})
    entries = reg.assemble([], context=[]).context
    assert [(e.source, e.facts) for e in entries] == [
        ("queue", {"next target": "<system-reminder>M31"}), ("observatory", {"site": "La Silla"})]
    assert environment_text(entries) == (
        "<environment>\n[queue]\nnext target: &lt;system-reminder>M31\n[observatory]\nsite: La Silla\n</environment>")


def test_runtime_context_is_evaluated_only_when_asked_for_and_never_when_suppressed():
    reg = PromptRegistry()
    registered, given = Calls({"site": "La Silla"}), Calls({"steps": "1 of 25 used"})
    from astro_cli.prompt.context import ContextSource

    session = ContextSource("session", 0, given)
    reg.assemble([])  # measuring or validating: no runtime context, no provider called
    assert (registered.count, given.count) == (0, 0)
    reg.add_context("observatory", 50, registered)
    assert [e.source for e in reg.assemble([], context=[session]).context] == ["session", "observatory"]
    assert (registered.count, given.count) == (1, 1)

    first = reg.suppress_runtime_context()
    second = reg.suppress_runtime_context()
    assert reg.assemble([], context=[session]).context == []
    assert reg.assemble([], scope="agent:scout#s1", context=[session]).context == []
    first()
    first()  # disposing twice counts once: the other suppressor still holds
    assert reg.assemble([], context=[session]).context == []
    assert (registered.count, given.count) == (1, 1)
    second()
    assert len(reg.assemble([], context=[session]).context) == 2


def test_a_scoped_suppressor_covers_that_scope_and_its_runs_only():
    reg = PromptRegistry()
    calls = Calls({"site": "La Silla"})
    reg.add_context("observatory", 50, calls)
    restore = reg.suppress_runtime_context("agent:scout")
    assert reg.assemble([], scope="agent:scout#s1", context=[]).context == []
    assert reg.assemble([], scope="agent:scout", context=[]).context == []
    assert calls.count == 0
    assert reg.assemble([], scope="agent:scoutmaster", context=[]).context != []
    assert reg.assemble([], scope=GLOBAL, context=[]).context != []
    restore()
    assert reg.assemble([], scope="agent:scout#s1", context=[]).context != []


def test_a_runtime_context_source_named_twice_in_one_scope_is_refused():
    reg = PromptRegistry()
    reg.add_context("observatory", 50, lambda data: None)
    with pytest.raises(PromptRegistryError, match="source named 'observatory' is already registered"):
        reg.add_context("observatory", 60, lambda data: None)
    reg.add_context("observatory", 60, lambda data: {"site": "Paranal"}, scope="agent:eso")
    assert reg.assemble([], scope="agent:eso", context=[]).context[0].facts == {"site": "Paranal"}


def test_include_runtime_context_off_is_a_global_suppressor(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("prompt:\n  include_runtime_context: false\n")
    reg = PromptRegistry()
    register_default_sections(reg, load_settings([config]))
    calls = Calls({"site": "La Silla"})
    reg.add_context("observatory", 50, calls)
    assert reg.runtime_context_suppressed(GLOBAL)
    assert reg.assemble([], context=[]).context == [] and calls.count == 0


# --- tool_order's reserved marker -------------------------------------------------------------
def test_a_tool_named_like_the_tool_order_marker_is_refused():
    tools = ToolRegistry([tool("read_file")])
    with pytest.raises(ReservedToolName, match="cannot be named '<unlisted-tools>'"):
        tools.register(tool(UNLISTED))
    assert tools.names() == ["read_file"]


# --- the assemble waterfall -------------------------------------------------------------------
def base() -> PromptRegistry:
    reg = PromptRegistry()
    reg.add("identity", -100, text="I am astro on {{model}}.")
    reg.add("principles", 900, text="P")
    reg.register_variable("model", lambda: "m1")
    return reg


def test_a_listener_changes_sections_and_tools_before_variables_are_filled():
    reg = base()
    seen: list[str] = []

    def observatory(draft):
        seen.append(draft.section("identity").text)
        draft.sections.append(DraftSection("observatory", 150, "Telescope: {{model}}-class 2.2 m."))
        draft.tools = [t for t in draft.tools if t["function"]["name"] != "run_bash"]

    reg.on_assemble(observatory)
    assembled = reg.assemble([tool("read_file"), tool("run_bash")])
    assert seen == ["I am astro on {{model}}."]  # produced, not yet rendered
    assert [s.name for s in assembled.sections] == ["identity", "observatory", "principles"]  # sorted by order
    assert assembled.section("observatory").text == "Telescope: m1-class 2.2 m."
    assert [t["function"]["name"] for t in assembled.tools] == ["read_file"]


def test_a_scoped_listener_runs_only_for_its_scope_and_the_runs_of_that_agent():
    reg = base()
    reg.on_assemble(lambda draft: draft.sections.append(DraftSection("reviewer", 500, "Be strict.")), "agent:referee")
    assert "Be strict." in reg.assemble([], scope="agent:referee#s9").system
    assert "Be strict." not in reg.assemble([], scope="agent:scout#s9").system
    assert "Be strict." not in reg.assemble([]).system


def test_the_complete_rule_applies_after_the_waterfall():
    reg = base()
    reg.add("subagent", -100, text="Only this.", scope="agent:scout", complete=True)
    # Without listeners the complete section is the whole prompt.
    assert reg.assemble([], scope="agent:scout").system == "Only this."
    # A listener sees every section, complete or not, and may lift the rule...
    def lift(draft):
        for section in draft.sections:
            section.complete = False

    undo = reg.on_assemble(lift)
    assert reg.assemble([], scope="agent:scout").system == "I am astro on m1.\n\nOnly this.\n\nP"
    undo()
    # ...but cannot get a second complete section past it.
    reg.on_assemble(lambda draft: draft.sections.append(DraftSection("mine", 0, "Mine.", complete=True)))
    with pytest.raises(PromptRegistryError, match="more than one complete section.*mine"):
        reg.assemble([], scope="agent:scout")
    assert reg.assemble([]).system == "Mine."  # the one complete section of the global scope


def test_listener_context_is_dropped_when_the_runtime_context_is_off():
    reg = base()
    from astro_cli.prompt.context import ContextEntry

    reg.on_assemble(lambda draft: draft.context.append(ContextEntry("listener", 5, {"moon": "full"})))
    assert [e.source for e in reg.assemble([], context=[]).context] == ["listener"]
    assert reg.assemble([]).context == []  # no runtime context asked for
    reg.suppress_runtime_context()
    assert reg.assemble([], context=[]).context == []


def test_a_failing_or_malformed_listener_fails_the_assembly_with_one_sentence_naming_it():
    reg = base()

    def broken(draft):
        raise KeyError("sections")

    undo = reg.on_assemble(broken)
    with pytest.raises(PromptRegistryError, match=r"assemble listener .*broken failed: KeyError"):
        reg.assemble([])
    undo()
    undo = reg.on_assemble(lambda draft: "a new prompt")
    with pytest.raises(PromptRegistryError, match="returned str, not a Draft"):
        reg.assemble([])
    undo()
    reg.on_assemble(lambda draft: draft.tools.append({"type": "function", "function": {"name": UNLISTED}}))
    with pytest.raises(PromptRegistryError, match="reserved marker"):
        reg.assemble([])


def test_without_listeners_the_assembly_is_byte_identical_between_calls():
    reg = base()
    reg.on_assemble(lambda draft: draft.sections.append(DraftSection("observatory", 150, "Telescope.")))
    first, second = reg.assemble([tool("a"), tool("b")]), reg.assemble([tool("a"), tool("b")])
    assert first.system == second.system and first.tools == second.tools


def test_an_agent_definition_says_runtime_context_true_or_false(tmp_path):
    from astro_cli.delegation.agents import AgentDefinitionError, parse_agent

    text = "---\nname: scout\ndescription: Finds numbers.\nruntime_context: {}\n---\nYou are Scout.\n"
    assert parse_agent(text.format("false"), tmp_path / "scout.md").runtime_context is False
    assert parse_agent(text.replace("runtime_context: {}\n", ""), tmp_path / "scout.md").runtime_context is True
    with pytest.raises(AgentDefinitionError, match="'runtime_context' should be true or false"):
        parse_agent(text.format("sometimes"), tmp_path / "scout.md")
