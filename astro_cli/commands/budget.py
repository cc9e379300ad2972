"""`--max-budget-usd N`: stop a run once its model requests have cost N dollars (as `claude -p` does).

A loop extension checks the turn's cost before each request: at or past the budget the turn stops
(no further request is sent), what was stored stays, and `astro run` ends with exit code 4 and
`"subtype": "error_max_budget_usd"`. A model litellm has no price for cannot be held to a budget:
one warning says so and the run goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from astro_cli.agent import events as ev
from astro_cli.agent.extensions import LoopExtension

if TYPE_CHECKING:
    from astro_cli.agent.extensions import TurnView


class BudgetExtension(LoopExtension):
    def __init__(self, limit: float) -> None:
        self.limit = limit
        self.active = False
        self.spent: float | None = None  # the cost when the budget stopped the turn
        self.warned = False

    def on_turn_start(self, state: TurnView) -> None:
        self.active = state.session.agent == "main"

    def before_request(self, state: TurnView) -> None:
        from astro_cli.agent.model import Cancelled

        if not self.active or state.step <= 1:
            return
        cost = state.usage.cost_usd
        if cost is None:
            if not self.warned:
                self.warned = True
                state.session.bus.emit(ev.Notice(level="warning", text="litellm has no price for this model, so "
                                                 "--max-budget-usd cannot hold it to a budget."))
            return
        if cost >= self.limit:
            self.spent = cost
            raise Cancelled()

    def sentence(self) -> str:
        return (f"The cost budget (${self.limit:g}) was reached (${self.spent or 0:.6g} spent); raise it with "
                "--max-budget-usd.")
