"""MCP servers as tools: configuration (servers.py), the SDK connection (connection.py, the only module that
imports `mcp`), the manager that runs them in the background (manager.py), and the astro tools they become."""
