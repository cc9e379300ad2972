"""Safety rules that hold whatever the workspace, the papers or the model contain (docs/security.md)."""
