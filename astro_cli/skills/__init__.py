"""Skills: SKILL.md files the model lists (tier 1) and loads on demand (tier 2); see docs/skills.md."""
