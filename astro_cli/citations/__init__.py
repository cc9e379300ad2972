"""Citations you can check: each id an answer cites gets a status before the turn ends (docs/citations.md)."""
