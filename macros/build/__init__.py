"""The build: one build's state, the macro adapters, the Markdown processors, and the hosts' glue."""
