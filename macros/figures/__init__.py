"""Figures: a computed value with its provenance, its display, and the kinds that compute them."""
