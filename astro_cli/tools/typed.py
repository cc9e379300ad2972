"""Tools written as typed functions: the JSON schema comes from the signature and the docstring.

    @tool(key_argument="path")
    def read_file(ctx: ToolContext, path: str, offset: int | None = None) -> ToolResult:
        \"\"\"Read a text file of the workspace with line numbers.

        Args:
            path: Path relative to the workspace.
            offset: First line to read (1-based).
        \"\"\"

    app.tools.register(as_tool(read_file))

The first parameter is the ToolContext; every other one is an argument the model sends. A parameter
without a default is required; `X | None` and a default make it optional. str, int, float, bool,
list[str] (or list of int/float/bool) and Literal["a", "b"] (an enum) are what a schema can say (with
`Annotated[..., Limits(...)]` for a minimum, maximum or maxItems), so
they are all a parameter may be: anything else is a ToolDefinitionError when the tool is defined,
not a surprise when the model calls it. The docstring's text before `Args:` is the description the
model reads (its first sentence is the summary in the system prompt); each `name: text` under `Args:`
describes that argument. Defaults are not repeated in the schema: say them in the description.

A tool declares the services it needs and receives them: with `@tool(needs=Library)`, a parameter
annotated `Library` is left out of the schema and filled, per call, with the app's one Library
(`ctx.service(Library)`, built by the factory the feature's install provided). The tool never sees
the app, so a test hands it a Library of its own parts and the tool's reach is its signature.
(openai-agents' `RunContextWrapper[T]` gives every tool the same T, which for astro would be the
app again; `needs` names exactly the services a tool uses.)

Like llm's `Tool.function` and openai-agents' `@function_tool`, but with no pydantic, so defining a
tool costs nothing at startup. In a session the loop checks the model's arguments against this schema
first (agent/tool_runner.check_arguments: a wrong type, an unknown name, NaN or infinity, or a negative
number where the schema sets no minimum is one sentence there); the
binding here converts what reaches the function as leniently as the hand-written tools did ("5" is 5,
"true" is True, null is the default) and raises one ToolError sentence for what it cannot convert.
"""

from __future__ import annotations

import inspect
import logging
import re
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar

from astro_cli.tools.base import Tool, ToolError, ToolResult
from astro_cli.tools.docstrings import split_docstring

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., "ToolResult | str"])
SPEC_ATTRIBUTE = "__astro_tool__"
_SCALARS: dict[type, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_SUPPORTED = "str, int, float, bool, list[str], a Literal, a TypedDict (or a list of one), dict[str, Any] or X | None"


class ToolDefinitionError(TypeError):
    """A tool function the schema cannot describe: raised when the tool is defined, in one sentence."""


@dataclass(frozen=True)
class Limits:
    """Bounds a schema states beside the type: `Annotated[list[str], Limits(max_items=3)]`,
    `Annotated[int, Limits(minimum=1)]`. The loop checks them before the tool runs."""

    minimum: float | None = None
    maximum: float | None = None
    min_items: int | None = None
    max_items: int | None = None
    # Objects (TypedDicts) accept keys they do not name: a todo item with a key the model added is kept
    # rather than refused. By default an object's schema has "additionalProperties": false.
    extra_keys: bool = False

    def schema(self) -> dict[str, Any]:
        named = {"minimum": self.minimum, "maximum": self.maximum, "minItems": self.min_items,
                 "maxItems": self.max_items}
        return {key: value for key, value in named.items() if value is not None}


@dataclass(frozen=True)
class Kind:
    """What a parameter's annotation says: a scalar, maybe a list of it, maybe one of fixed choices."""

    scalar: type
    array: bool = False
    choices: tuple[object, ...] | None = None
    limits: Limits = Limits()
    fields: tuple[Param, ...] | None = None  # an object's keys (a TypedDict); None for any object


def object_entry(fields: tuple[Param, ...] | None, extra_keys: bool) -> dict[str, Any]:
    """The schema of an object: its keys, which are required, and whether others may come too."""
    entry: dict[str, Any] = {"type": "object"}
    if fields is None:
        return entry
    entry["properties"] = {f.name: f.schema() for f in fields}
    if not extra_keys:
        entry["additionalProperties"] = False
    required = [f.name for f in fields if f.required]
    if required:
        entry["required"] = required
    return entry


@dataclass(frozen=True)
class Param:
    """One argument the model sends: its schema, and how a sent value becomes the Python value."""

    name: str
    kind: Kind
    required: bool
    default: object
    description: str | None

    def schema(self) -> dict[str, Any]:
        entry: dict[str, Any] = (object_entry(self.kind.fields, self.kind.limits.extra_keys)
                                 if self.kind.scalar is dict else {"type": _SCALARS[self.kind.scalar]})
        if self.kind.choices is not None:
            entry["enum"] = list(self.kind.choices)
        if self.kind.array:
            entry = {"type": "array", "items": entry}
        entry.update(self.kind.limits.schema())
        if self.description:
            entry["description"] = self.description
        return entry


@dataclass(frozen=True)
class ToolOptions:
    """How the loop treats the tool (the Tool fields that are not its schema)."""

    read_only: bool = True
    needs_permission: bool = False
    timeout: float | None = None
    key_argument: str | None = None
    permission_when: Callable[[dict[str, Any]], bool] | None = None
    widens: Callable[[dict[str, Any]], str | None] | None = None
    tidy_arguments: Callable[[dict[str, Any]], dict[str, Any]] | None = None


@dataclass(frozen=True)
class ToolSpec:
    """What `@tool` learnt from a function: everything `as_tool` needs."""

    name: str
    description: str
    params: tuple[Param, ...]
    options: ToolOptions = field(default_factory=ToolOptions)
    # (parameter name, service class): filled from the app's services per call, never in the schema
    needs: tuple[tuple[str, type], ...] = ()

    def services(self, ctx: Any) -> dict[str, object]:
        """The declared services as keyword arguments, each the app's one object of its class."""
        return {name: ctx.service(kind) for name, kind in self.needs}

    def parameters(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": "object", "properties": {p.name: p.schema() for p in self.params},
                                  "additionalProperties": False}
        required = [p.name for p in self.params if p.required]
        if required:
            schema["required"] = required
        return schema

    def bind(self, arguments: dict[str, Any]) -> dict[str, object]:
        """The model's arguments as keyword arguments for the function; a bad one is a ToolError."""
        unknown = sorted(set(arguments) - {p.name for p in self.params})
        if unknown:
            log.debug("%s: ignoring unknown arguments %s", self.name, unknown)
        bound: dict[str, object] = {}
        for param in self.params:
            value = arguments.get(param.name)
            if value is None or (value == "" and param.kind.scalar is not str):
                if param.required:
                    raise ToolError(f"{self.name} needs the argument '{param.name}'.")
                bound[param.name] = param.default
            else:
                bound[param.name] = convert(param, value)
        return bound


def tool(*, name: str | None = None, description: str | None = None, read_only: bool = True,
         needs_permission: bool = False, timeout: float | None = None, key_argument: str | None = None,
         permission_when: Callable[[dict[str, Any]], bool] | None = None,
         widens: Callable[[dict[str, Any]], str | None] | None = None,
         tidy_arguments: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
         needs: type | tuple[type, ...] = ()) -> Callable[[F], F]:
    """Mark a typed function as a tool; its schema is derived (and checked) now, at definition time.
    `needs`: the service classes it receives as parameters (annotated with the class), not the model."""

    def mark(function: F) -> F:
        options = ToolOptions(read_only, needs_permission, timeout, key_argument, permission_when, widens,
                              tidy_arguments)
        kinds = needs if isinstance(needs, tuple) else (needs,)
        spec = derive(function, name=name, description=description, options=options, needs=kinds)
        if key_argument is not None and key_argument not in {p.name for p in spec.params}:
            raise ToolDefinitionError(f"Tool {spec.name}: key_argument '{key_argument}' is not one of its parameters.")
        setattr(function, SPEC_ATTRIBUTE, spec)
        return function

    return mark


def spec_of(function: Callable[..., object]) -> ToolSpec:
    """The spec `@tool` attached; a plain function is derived with the default options."""
    spec = getattr(function, SPEC_ATTRIBUTE, None)
    return spec if isinstance(spec, ToolSpec) else derive(function)


def derive(function: Callable[..., object], name: str | None = None, description: str | None = None,
           options: ToolOptions | None = None, needs: tuple[type, ...] = ()) -> ToolSpec:
    tool_name = name or function.__name__
    if tool_name == "<lambda>":
        raise ToolDefinitionError("A tool made from a lambda needs a name.")
    text, arg_docs = split_docstring(inspect.getdoc(function) or "")
    description = description or text
    if not description:
        raise ToolDefinitionError(f"Tool {tool_name} has no description: give the function a docstring.")
    parameters = list(inspect.signature(function).parameters.values())
    if not parameters or parameters[0].kind not in (inspect.Parameter.POSITIONAL_ONLY,
                                                    inspect.Parameter.POSITIONAL_OR_KEYWORD):
        raise ToolDefinitionError(f"Tool {tool_name}: the first parameter must be the ToolContext.")
    injected = _needed(tool_name, parameters[1:], needs)
    params = tuple(_param(tool_name, function, p, arg_docs.get(p.name)) for p in parameters[1:]
                   if p.name not in dict(injected))
    stray = sorted(set(arg_docs) - {p.name for p in params})
    if stray:
        raise ToolDefinitionError(f"Tool {tool_name}: its docstring describes {', '.join(stray)}, "
                                  "which is not a parameter.")
    return ToolSpec(tool_name, description, params, options or ToolOptions(), injected)


def _needed(tool_name: str, parameters: list[inspect.Parameter],
            needs: tuple[type, ...]) -> tuple[tuple[str, type], ...]:
    """The parameters annotated with a needed class, matched by the class or its name (annotations are
    strings under `from __future__ import annotations`, and the class is often imported for types only)."""
    found: list[tuple[str, type]] = []
    for kind in needs:
        names = {kind, kind.__name__, f"{kind.__module__}.{kind.__qualname__}"}
        matches = [p.name for p in parameters if p.annotation in names]
        if len(matches) != 1:
            raise ToolDefinitionError(f"Tool {tool_name} needs {kind.__name__}: give it exactly one parameter "
                                      f"annotated {kind.__name__}.")
        found.append((matches[0], kind))
    return tuple(found)


def _param(tool_name: str, function: Callable[..., object], parameter: inspect.Parameter,
           description: str | None) -> Param:
    where = f"Tool {tool_name}: parameter '{parameter.name}'"
    if parameter.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
        raise ToolDefinitionError(f"{where} is *args or **kwargs, which a tool schema cannot describe.")
    if parameter.kind is inspect.Parameter.POSITIONAL_ONLY:
        raise ToolDefinitionError(f"{where} is positional-only; the model sends arguments by name.")
    annotation = parameter.annotation
    if annotation is inspect.Parameter.empty:
        raise ToolDefinitionError(f"{where} has no type annotation.")
    if isinstance(annotation, str):
        try:
            annotation = eval(annotation, getattr(function, "__globals__", {}))  # noqa: S307 - our own source
        except Exception as exc:  # noqa: BLE001 - any failure is the same sentence
            raise ToolDefinitionError(f"{where}: its annotation {parameter.annotation!r} cannot be evaluated "
                                      f"at run time ({exc}).") from None
    optional, kind, _ = _annotated_kind(where, annotation)
    has_default = parameter.default is not inspect.Parameter.empty
    if optional and not has_default:
        raise ToolDefinitionError(f"{where} may be None but has no default; give it '= None'.")
    return Param(parameter.name, kind, not has_default, parameter.default if has_default else None, description)


def _annotated_kind(where: str, annotation: object) -> tuple[bool, Kind, str | None]:
    """Whether None is allowed, the kind, and the description an `Annotated[X, "text"]` gives."""
    optional, inner = _strip_none(annotation)
    limits, text = Limits(), None
    if typing.get_origin(inner) is typing.Annotated:
        inner, *metadata = typing.get_args(inner)
        limits = next((m for m in metadata if isinstance(m, Limits)), limits)
        text = next((m for m in metadata if isinstance(m, str)), None)
    kind = _kind(where, inner)
    if kind is None:
        raise ToolDefinitionError(f"{where} has type {annotation!r}, which a tool schema cannot express; "
                                  f"use {_SUPPORTED}.")
    return optional, replace(kind, limits=limits), text


def _object_fields(where: str, shape: type) -> tuple[Param, ...]:
    """A TypedDict's keys as parameters: required unless NotRequired (or the class is total=False)."""
    hints = typing.get_type_hints(shape, include_extras=True)
    required = getattr(shape, "__required_keys__", frozenset(hints))
    fields = []
    for name, hint in hints.items():
        _, kind, text = _annotated_kind(f"{where}, key '{name}'", hint)
        fields.append(Param(name, kind, name in required, None, text))
    return tuple(fields)


def _strip_none(annotation: object) -> tuple[bool, object]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(annotation)) == 2:
            return True, args[0]
    return False, annotation


def _kind(where: str, annotation: object) -> Kind | None:
    if isinstance(annotation, type) and annotation in _SCALARS:
        return Kind(annotation)
    if typing.is_typeddict(annotation):
        return Kind(dict, fields=_object_fields(where, typing.cast(type, annotation)))
    if typing.get_origin(annotation) is dict and typing.get_args(annotation) in ((str, Any), (str, object)):
        return Kind(dict)  # any object (another tool's arguments); dict[str, int] says more than a schema here
    origin = typing.get_origin(annotation)
    if origin is Literal:
        choices = typing.get_args(annotation)
        if choices and len({type(c) for c in choices}) == 1 and type(choices[0]) in _SCALARS:
            return Kind(type(choices[0]), choices=tuple(choices))
    if origin is list:
        (item,) = typing.get_args(annotation) or (None,)
        if isinstance(item, type) and item in _SCALARS:
            return Kind(item, array=True)
        if typing.is_typeddict(item):
            return Kind(dict, array=True, fields=_object_fields(where, typing.cast(type, item)))
    return None


def convert(param: Param, value: object) -> object:
    """A sent value as the parameter's type, as leniently as a person would read it."""
    kind = param.kind
    if kind.array:
        items = value if isinstance(value, list) else [value]
        return [_scalar(param.name, kind.scalar, item) for item in items]
    chosen = _scalar(param.name, kind.scalar, value)
    if kind.choices is not None and chosen not in kind.choices:
        raise ToolError(f"{param.name} must be one of {', '.join(map(str, kind.choices))}, not {value!r}.")
    return chosen


_TRUE, _FALSE = {"true", "yes", "1", "on"}, {"false", "no", "0", "off"}
_NUMBER = re.compile(r"\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*")


def _scalar(name: str, kind: type, value: object) -> object:
    if kind is dict:  # its keys were checked against the schema by the loop; the tool reads them
        if isinstance(value, dict):
            return value
        raise ToolError(f"{name} must be an object, not {type(value).__name__} {value!r}.")
    if kind is str:
        if isinstance(value, str):
            return value
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        raise ToolError(f"{name} must be text, not {type(value).__name__} {value!r}.")
    if kind is bool:
        if isinstance(value, bool):
            return value
        word = str(value).strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        raise ToolError(f"{name} must be true or false, not {value!r}.")
    if isinstance(value, bool) or not (isinstance(value, (int, float)) or
                                       (isinstance(value, str) and _NUMBER.fullmatch(value))):
        noun = "a whole number" if kind is int else "a number"
        raise ToolError(f"{name} must be {noun}, not {value!r}.")
    number = float(value)
    if kind is float:
        return number
    if not number.is_integer():
        raise ToolError(f"{name} must be a whole number, not {value!r}.")
    return int(number)


def run_function(spec: ToolSpec, function: Callable[..., ToolResult | str]) -> Callable[[object, dict[str, Any]], ToolResult | str]:
    """The `run(ctx, args)` a Tool holds: the arguments bound and converted, then the function called."""

    def run(ctx: object, arguments: dict[str, Any]) -> ToolResult | str:
        return function(ctx, **spec.services(ctx), **spec.bind(arguments))

    run.__name__ = getattr(function, "__name__", spec.name)
    run.__doc__ = function.__doc__
    return run


def as_tool(function: Callable[..., ToolResult | str], wrap: Callable[[Callable[[Any, dict[str, Any]], Any]],
            Callable[[Any, dict[str, Any]], Any]] | None = None) -> Tool:
    """A fresh Tool for a `@tool` function (one per app: nothing is shared between apps). `wrap`
    decorates its run(ctx, args), e.g. the library's guard that turns a down server into one sentence."""
    spec = spec_of(function)
    run = run_function(spec, function)
    options = spec.options
    return Tool(name=spec.name, description=spec.description, parameters=spec.parameters(),
                run=wrap(run) if wrap else run, read_only=options.read_only,
                needs_permission=options.needs_permission, timeout=options.timeout,
                key_argument=options.key_argument, permission_when=options.permission_when,
                widens=options.widens, tidy_arguments=options.tidy_arguments)
