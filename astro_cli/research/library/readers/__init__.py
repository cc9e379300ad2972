"""The text readers of the library: each module is one kind of paper file behind the `TextReader`
protocol (astro_cli/extensions.py), registered by the library feature's install like a plugin's would be."""
