"""Ranked passages from the library: keywords, vectors and their fusion."""
