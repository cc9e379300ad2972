"""One stated number with its uncertainty, range, unit and where it was written (read by quantities.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Quantity:
    """One stated number: `value` (the low end of a range), its decimals (precision, exponent applied)."""

    value: float
    decimals: int
    unit: str | None = None
    percent: bool = False
    plus: float | None = None
    minus: float | None = None
    error_decimals: int = 0
    high: float | None = None
    high_decimals: int = 0
    approx: bool = False
    year: bool = False
    signed: bool = False
    start: int = 0
    end: int = 0
    text: str = ""
    bare: str = ""  # the number without its unit
    worded: bool = False  # written in words (`twelve`): checked, but not enough to make a sentence a claim

    @property
    def label(self) -> str:
        """The quantity as the claim wrote it (for the researcher)."""
        return self.text
