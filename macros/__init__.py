"""Scale by the Numbers: the course's engine, as mkdocs-macros loads it (`module_name: macros`).

The layers, each a folder that imports only the ones before it (tests/unit/test_layout.py):
`model` (the arithmetic), `data` (the course's files read and checked), `figures` (a value
with its provenance, and the kinds that compute them), `pictures` and `pages` (what figures
and data become on a page), `quiz` (the quiz blocks), and `build` (one build's state and the
hosts' glue: the only folder that knows MkDocs). ARCHITECTURE.md tells the whole story.
"""

from .build.mkdocs import define_env, on_post_build, on_pre_page_macros

__all__ = ["define_env", "on_post_build", "on_pre_page_macros"]
