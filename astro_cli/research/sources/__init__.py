"""NASA ADS, arXiv, Crossref and SIMBAD: the services papers and objects come from."""
