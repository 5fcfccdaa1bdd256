// ESLint for the course's own browser scripts (docs/assets/javascripts/): plain scripts, loaded by
// <script> tags without a bundler or modules, so each is a "script" whose globals are the browser's
// and the few that Material for MkDocs defines. `make lint` runs it; Prettier owns the layout.
import js from "@eslint/js";
import globals from "globals";

export default [
  // Not the course's code: the built site (Material's bundle among it), installed packages, the venvs.
  { ignores: ["site/", "node_modules/", ".venv/", ".venv-engine/", ".cache/"] },
  js.configs.recommended,
  {
    files: ["docs/assets/javascripts/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "script",
      globals: {
        ...globals.browser,
        // Material's observable of the page, replayed on each instant navigation (types/material.d.ts).
        document$: "readonly",
      },
    },
    rules: {
      // Prettier moves a one-line `if`'s statement to a line of its own when it grows: it then takes braces,
      // so that a second statement added under it cannot fall outside it.
      curly: ["error", "multi-line"],
    },
  },
  {
    files: ["*.mjs"],
    languageOptions: { sourceType: "module", globals: globals.node },
  },
];
