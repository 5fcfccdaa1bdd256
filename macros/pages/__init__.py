"""Markdown the course writes for its own pages: the front door, reading times, issue links."""
