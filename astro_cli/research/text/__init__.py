"""PDF and LaTeX read into text that keeps the paper's structure and values, in a bounded child."""
