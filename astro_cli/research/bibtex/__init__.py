"""BibTeX entries as NASA ADS writes them."""
