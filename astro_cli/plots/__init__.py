"""Plots of workspace tables (issue 33): the plot_table tool, its figures/ folder and the Figures section.

columns.py reads a table and turns a column name or a small arithmetic expression into numbers with
a unit; draw.py draws with matplotlib's Agg backend (imported only when a plot is made); feature.py
is the tool. Showing a figure in the terminal belongs to the renderers (ui/terminal_images.py).
"""
