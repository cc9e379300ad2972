"""A workspace table, and the numbers a plot takes from it: a column or a small expression, with its unit.

A quantity is a column name (`phot_g_mean_mag`, or any name the table has, even `B-V`) or arithmetic
over columns and numbers: `+ - * / **`, parentheses and log10, sqrt, abs; names with other
characters go in backticks (`` `B-V` - 0.3 ``). The text is parsed here into a tree and evaluated
over numpy arrays: nothing is ever handed to Python's eval. Masked and non-finite values become
NaN, so a row is plotted only where every quantity it needs is a number.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from astro_cli.tools.base import ToolError

if TYPE_CHECKING:
    import numpy as np
    from astropy.table import Table

MAX_EXPRESSION = 200
FUNCTIONS = ("log10", "sqrt", "abs")
_TOKEN = re.compile(
    r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)|(?P<name>[A-Za-z_][A-Za-z0-9_.]*)"
    r"|`(?P<quoted>[^`]+)`|(?P<op>\*\*|[-+*/()]))"
)


@dataclass
class Quantity:
    """Values of one plotted quantity (NaN where a row has none), its label and unit."""

    values: np.ndarray
    label: str
    unit: str | None = None
    masked: dict[str, int] = field(default_factory=dict)  # column -> rows masked in it

    @property
    def axis_label(self) -> str:
        return f"{self.label} [{self.unit}]" if self.unit else self.label


def find_column(table: Table, name: str) -> str:
    """The table's own spelling of `name` (exact, else the one case-insensitive match)."""
    if name in table.colnames:
        return name
    folded: list[str] = [c for c in table.colnames if c.lower() == name.lower()]
    if len(folded) == 1:
        return folded[0]
    listed = ", ".join(table.colnames[:40]) + (f" and {len(table.colnames) - 40} more" if len(table.colnames) > 40 else "")
    raise ToolError(f"The table has no column '{name}'; its columns are {listed}.")


def column_values(table: Table, name: str) -> Quantity:
    import numpy as np

    column = table[name]
    kind = column.dtype.kind
    if kind not in "biuf" or column.ndim != 1:
        what = "text" if kind in "USO" else "arrays" if column.ndim != 1 else f"'{column.dtype}'"
        raise ToolError(f"Column '{name}' holds {what}, not numbers; pick a numeric column.")
    mask = np.ma.getmaskarray(column)
    values = np.array(column, dtype=float, copy=True)
    values[mask] = np.nan
    unit = column.unit.to_string() if getattr(column, "unit", None) is not None else None
    return Quantity(values, name, unit or None, {name: int(mask.sum())} if mask.any() else {})


def quantity(table: Table, text: str) -> Quantity:
    """A column or an expression over columns, evaluated over the whole table."""
    text = text.strip()
    if not text:
        raise ToolError("An empty column name was given.")
    if text in table.colnames:
        return column_values(table, text)
    if len(text) > MAX_EXPRESSION:
        raise ToolError(f"The expression is longer than {MAX_EXPRESSION} characters; write a shorter one.")
    parser = _Parser(text, lambda name: column_values(table, find_column(table, name)))
    result = parser.parse()
    result.label = text
    return result


class _Parser:
    """Recursive descent over the tokens: expr := term (+|- term)*, term := unary (*|/ unary)*,
    unary := - unary | power, power := atom (** unary)?, atom := number | name | f(expr) | (expr)."""

    def __init__(self, text: str, column: Callable[[str], Quantity]) -> None:
        self.text = text
        self.column = column
        self.tokens = self._tokens(text)
        self.at = 0

    def _tokens(self, text: str) -> list[tuple[str, str]]:
        tokens: list[tuple[str, str]] = []
        position = 0
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None or match.end() == position:
                if text[position:].strip() == "":
                    break
                raise ToolError(
                    f"'{text}' is not a column or an arithmetic expression (it stops making sense at "
                    f"'{text[position:position + 10].strip()}'); use + - * / ** ( ), log10, sqrt, abs, and "
                    "backticks around names with other characters."
                )
            kind = match.lastgroup or ""
            tokens.append(("name" if kind == "quoted" else kind, match.group(kind)))
            position = match.end()
        return tokens

    def _peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _take(self, value: str | None = None) -> tuple[str, str]:
        token = self._peek()
        if token is None or (value is not None and token[1] != value):
            found = f"'{token[1]}'" if token else "the end"
            raise ToolError(f"'{self.text}' is not a valid expression: expected {value or 'more'} but found {found}.")
        self.at += 1
        return token

    def parse(self) -> Quantity:
        result = self._expr()
        if self._peek() is not None:
            raise ToolError(f"'{self.text}' is not a valid expression: unexpected '{self._peek()[1]}'.")  # type: ignore[index]
        return result

    def _expr(self) -> Quantity:
        left = self._term()
        while (token := self._peek()) and token[1] in "+-" and token[0] == "op":
            self._take()
            left = _combine(token[1], left, self._term())
        return left

    def _term(self) -> Quantity:
        left = self._unary()
        while (token := self._peek()) and token[1] in ("*", "/"):
            self._take()
            left = _combine(token[1], left, self._unary())
        return left

    def _unary(self) -> Quantity:
        token = self._peek()
        if token and token == ("op", "-"):
            self._take()
            inner = self._unary()
            return Quantity(-inner.values, "", inner.unit, inner.masked)
        if token and token == ("op", "+"):
            self._take()
            return self._unary()
        return self._power()

    def _power(self) -> Quantity:
        base = self._atom()
        if self._peek() == ("op", "**"):
            self._take()
            exponent = self._unary()
            if exponent.unit or exponent.values.ndim != 0:
                raise ToolError(f"'{self.text}': an exponent must be a plain number.")
            return _power(base, float(exponent.values))
        return base

    def _atom(self) -> Quantity:
        import numpy as np

        kind, value = self._take()
        if kind == "num":
            return Quantity(np.asarray(float(value)), value)
        if kind == "name":
            if self._peek() == ("op", "(") and value in FUNCTIONS:
                self._take("(")
                inner = self._expr()
                self._take(")")
                return _function(value, inner)
            return self.column(value)
        if value == "(":
            inner = self._expr()
            self._take(")")
            return inner
        raise ToolError(f"'{self.text}' is not a valid expression: unexpected '{value}'.")


def _merged(a: Quantity, b: Quantity) -> dict[str, int]:
    return {**a.masked, **b.masked}


def _combine(op: str, a: Quantity, b: Quantity) -> Quantity:
    import numpy as np

    with np.errstate(all="ignore"):
        if op in "+-":
            unit = a.unit or b.unit
            scale = _conversion(a.unit, b.unit) if a.unit and b.unit else 1.0
            right = b.values * scale
            values = a.values + right if op == "+" else a.values - right
            return Quantity(values, "", unit, _merged(a, b))
        values = a.values * b.values if op == "*" else a.values / b.values
    return Quantity(values, "", _unit_product(a.unit, b.unit, op), _merged(a, b))


def _conversion(left: str, right: str) -> float:
    """The factor that turns values in `right` into `left` (mag and mag: 1; deg and arcsec: 1/3600)."""
    if left == right:
        return 1.0
    from astropy import units

    try:
        return float(units.Unit(right).to(units.Unit(left)))
    except (ValueError, TypeError, units.UnitsError):
        raise ToolError(f"Cannot add or subtract values in {right} and in {left}.") from None


def _unit_product(a: str | None, b: str | None, op: str) -> str | None:
    if not a and not b:
        return None
    from astropy import units

    try:
        left = units.Unit(a or "")
        right = units.Unit(b or "")
        product = left * right if op == "*" else left / right
    except (ValueError, TypeError):
        return None
    return product.to_string() or None


def _power(base: Quantity, exponent: float) -> Quantity:
    import numpy as np

    unit: str | None = None
    if base.unit:
        from astropy import units

        try:
            unit = (units.Unit(base.unit) ** exponent).to_string() or None
        except (ValueError, TypeError):
            unit = None
    with np.errstate(all="ignore"):
        return Quantity(np.power(base.values, exponent), "", unit, base.masked)


def _function(name: str, inner: Quantity) -> Quantity:
    import numpy as np

    with np.errstate(all="ignore"):
        if name == "log10":
            return Quantity(np.log10(inner.values), "", None, inner.masked)
        if name == "sqrt":
            return _power(inner, 0.5)
        return Quantity(np.abs(inner.values), "", inner.unit, inner.masked)


def describe_masked(quantities: list[Any]) -> str:
    """`Jmag 37 masked, Ksmag 25 masked` over every column the plot used."""
    counts: dict[str, int] = {}
    for item in quantities:
        counts.update(item.masked)
    return ", ".join(f"{name} {count:,} masked" for name, count in counts.items() if count)
