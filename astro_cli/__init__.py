"""astro: a terminal research assistant for astrophysicists."""

__version__ = "0.1.0"
