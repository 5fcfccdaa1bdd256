"""Maintainers' tools that run outside the MkDocs build: the figure diff and the preview comment."""
