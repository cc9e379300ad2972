"""`astro doctor`: a health check, one ✓/✗ line per check and the fix for each ✗ (checks.py)."""
