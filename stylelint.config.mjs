// Stylelint for the course's own styles (docs/assets/stylesheets/), on top of Material's.
// stylelint-config-standard, less the rules that fight the course's deliberate style (each says why);
// Prettier owns the layout. `make lint` runs it.

// Material's names and the course's are BEM: block, __element, --modifier (.sbn-quiz__why, .sbn-chart__series--2,
// --md-default-fg-color--light); the standard's plain kebab-case refuses the double hyphen and underscore.
const BEM = "^[a-z][a-z0-9]*(-[a-z0-9]+)*(__[a-z0-9]+(-[a-z0-9]+)*)?(--[a-z0-9]+(-[a-z0-9]+)*)*$";

export default {
  extends: ["stylelint-config-standard"],
  rules: {
    "selector-class-pattern": [
      BEM,
      { message: (name) => `Expected class "${name}" to be BEM: block__element--modifier` },
    ],
    "custom-property-pattern": [
      BEM,
      { message: (name) => `Expected custom property "--${name}" to be BEM: block--modifier` },
    ],
    // The files are ordered by what they style (tooltips, quizzes, charts, print), not by specificity. Each of the
    // nine later, less specific selectors it flagged styles other elements or other properties than the rule before
    // it (`.sbn-tip a` after the running text's links; `.sbn-quiz__result`'s box after its `:empty` display: none).
    "no-descending-specificity": null,
    // Each section sets its own custom properties for both palettes, the dark one beside the light one, so
    // [data-md-color-scheme="slate"] comes back once per section (pictures.css: scroll shadows, then chart colours).
    "no-duplicate-selectors": null,
  },
};
