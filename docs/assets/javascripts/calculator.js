// Scale by the Numbers: the memory calculator (macros/pictures/calculator.py).
//
// Bytes per device of a data-parallel run under ZeRO's stages, by role. Every
// coefficient, catalog entry, limit and message comes from the JSON the build
// wrote into the form's data-sbn-config from the Python model: nothing of the
// arithmetic is typed here. `compute` mirrors macros/pictures/calculator.py's
// `evaluate`, and the browser tests hold the two equal on many inputs. Only
// pages with a calculator load this script, from their content, so Material's
// instant navigation runs it too; it sets itself up once.

(() => {
  "use strict";
  if (window.sbnCalculator) return;

  const FIELDS = ["model", "parameters", "recipe", "gpu", "devices", "stage", "batch", "sequence", "recompute"];

  // -------------------------------------------------------------- arithmetic

  function count(config, text, field, problems) {
    if (!new RegExp(config.patterns.whole).test(text)) {
      problems[field] = config.messages[text ? "whole" : "empty_whole"];
      return null;
    }
    const value = Number(text);
    if (value < 1) problems[field] = config.messages.below_one;
    else if (value > config.limits[field]) problems[field] = config.messages[`too_many_${field}`];
    return field in problems ? null : value;
  }

  // A count of billions with at most 9 decimals, its thousands grouped by commas or not, read exactly: whole
  // part and decimals apart. Any other comma is a decimal comma the reader is asked about.
  function parameters(config, text, problems) {
    if (!text) problems.parameters = config.messages.empty_billions;
    else if (!new RegExp(config.patterns.billions).test(text) || text === ".") {
      problems.parameters = config.messages[text.includes(",") ? "comma" : "billions"];
    }
    if ("parameters" in problems) return null;
    const [whole, decimals = ""] = text.replace(/,/g, "").split(".");
    const value = Number(whole || "0") * 1e9 + Number(decimals.padEnd(9, "0"));
    if (value < config.fewest_parameters) problems.parameters = config.messages.no_parameters;
    else if (value > config.limits.parameters) problems.parameters = config.messages.too_many_parameters;
    return "parameters" in problems ? null : value;
  }

  function compute(config, inputs) {
    const problems = {};
    const space = config.patterns.space;
    const trim = new RegExp(`^${space}+|${space}+$`, "g");
    const text = Object.fromEntries(FIELDS.map((name) => [name, String(inputs[name] ?? "").replace(trim, "")]));
    const chosen = config.models.find((m) => m.id === text.model) ?? null;
    if (!chosen && text.model !== config.custom) problems.model = config.messages.pick;
    const count_ = chosen ? chosen.parameters : parameters(config, text.parameters, problems);
    for (const [field, known] of [
      ["recipe", config.recipes],
      ["gpu", config.gpus],
      ["stage", config.stages],
    ]) {
      if (!known.some((item) => String(item.id) === text[field])) problems[field] = config.messages.pick;
    }
    const devices = count(config, text.devices, "devices", problems);
    let batch = null;
    let sequence = null;
    if (text.batch || text.sequence) {
      if (!(text.batch && text.sequence)) {
        problems[text.batch ? "sequence" : "batch"] = config.messages.both;
      } else {
        batch = count(config, text.batch, "batch", problems);
        sequence = count(config, text.sequence, "sequence", problems);
        if (batch !== null && sequence !== null && batch * sequence > config.limits.tokens) {
          problems.batch = config.messages.too_many_tokens;
        }
        if (!chosen || [chosen.hidden, chosen.layers, chosen.heads].includes(null)) {
          problems.batch = config.messages.no_shape;
        }
        if (!config.recompute.some((r) => r.id === text.recompute)) problems.recompute = config.messages.pick;
      }
    }
    if (Object.keys(problems).length || count_ === null || devices === null) return { problems };
    const recipe = config.recipes.find((r) => r.id === text.recipe);
    const stage = config.stages.find((s) => String(s.id) === text.stage);
    const bytes = {};
    for (const role of config.roles) {
      bytes[role] = (recipe.roles[role] * count_) / (stage.sharded.includes(role) ? devices : 1);
    }
    // Korthikanti et al.'s count: values scale with the bytes per value of the recipe's passes, masks do not.
    const kept = config.recompute.find((r) => r.id === text.recompute);
    const scale = recipe.activation_bytes / config.paper_bytes_per_value;
    const perLayer = (h, a) =>
      sequence * batch * h * (kept.linear_values * scale + kept.linear_masks) +
      a * sequence * sequence * batch * (kept.score_values * scale + kept.score_masks);
    bytes.activations =
      batch !== null && sequence !== null ? chosen.layers * perLayer(chosen.hidden, chosen.heads) : null;
    const total = config.roles.reduce((sum, role) => sum + bytes[role], bytes.activations ?? 0);
    const capacity = config.gpus.find((g) => g.id === text.gpu).memory;
    return { problems, bytes, total, capacity, fits: total <= capacity };
  }

  // ----------------------------------------------------------------- storage
  // Keys scoped by the site's base path, as course.js keeps quizzes; every
  // access guarded; a size cap; a stored value that is not what we wrote is dropped.

  const VERSION = 1;
  const MAX_LENGTH = 2000;

  function key(form) {
    let base = ".";
    try {
      base = JSON.parse(document.getElementById("__config").textContent).base;
    } catch {
      // No Material config: the page's own folder is the best scope left.
    }
    return `sbn:${new URL(base, location.href).pathname}:${form.dataset.sbnCalculator}`;
  }

  // Whether `value` is one the form's field `name` could have written: text within the cap, and for a list one of
  // its options (an unknown id, or "__proto__", is none of them).
  function offered(form, name, value) {
    const input = form.elements[name];
    if (typeof value !== "string" || value.length > 40) return false;
    return input?.tagName !== "SELECT" || [...input.options].some((o) => o.value === value);
  }

  // The stored inputs that fit, once the form's lists are filled; a value dropped is removed from storage too.
  function load(form) {
    let stored;
    try {
      stored = localStorage.getItem(key(form));
      const state = JSON.parse(stored);
      const inputs = state && state.v === VERSION && typeof state.inputs === "object" && state.inputs;
      const kept = inputs ? FIELDS.filter((f) => Object.hasOwn(inputs, f) && offered(form, f, inputs[f])) : [];
      const fitting = Object.fromEntries(kept.map((f) => [f, inputs[f]]));
      if (!inputs || kept.length !== Object.keys(inputs).length) {
        if (kept.length) save(form, fitting);
        else localStorage.removeItem(key(form));
      }
      return fitting;
    } catch {
      try {
        if (stored != null) localStorage.removeItem(key(form));
      } catch {
        // Disabled: nothing stored to forget.
      }
      return {};
    }
  }

  function save(form, inputs) {
    try {
      const text = JSON.stringify({ v: VERSION, inputs });
      if (text.length <= MAX_LENGTH) localStorage.setItem(key(form), text);
    } catch {
      // Full or disabled: keep going without remembering.
    }
  }

  // ----------------------------------------------------------------- display

  /** @type {[number, string][]} */
  const SCALES = [
    [1e18, "EB"],
    [1e15, "PB"],
    [1e12, "TB"],
    [1e9, "GB"],
    [1e6, "MB"],
    [1e3, "kB"],
  ];

  function bytesText(value) {
    const [factor, unit] = SCALES.find(([f]) => value >= f) ?? [1, "bytes"];
    return `${Number((value / factor).toPrecision(3)).toLocaleString("en")} ${unit}`;
  }

  function element(tag, attributes = {}, text = "") {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
    if (text) node.textContent = text;
    return node;
  }

  function option(select, value, text) {
    select.append(element("option", { value }, text));
  }

  function fill(form, config) {
    const field = (name) => form.elements[name];
    for (const m of config.models) option(field("model"), m.id, m.name);
    option(field("model"), config.custom, "Another model (type its parameters)");
    for (const r of config.recipes) option(field("recipe"), r.id, r.short);
    for (const g of config.gpus) option(field("gpu"), g.id, g.name);
    for (const s of config.stages) option(field("stage"), String(s.id), `${s.id}: ${s.name}`);
    for (const r of config.recompute) option(field("recompute"), r.id, r.name);
  }

  function readInputs(form) {
    return Object.fromEntries(FIELDS.map((name) => [name, form.elements[name].value]));
  }

  function setInputs(form, config, inputs) {
    for (const [name, value] of Object.entries(inputs)) {
      const input = form.elements[name];
      if (!input) continue;
      // A remembered choice that the lists no longer offer is dropped, not forced.
      if (input.tagName === "SELECT" && ![...input.options].some((o) => o.value === value)) continue;
      input.value = value;
    }
    showModelCount(form, config);
  }

  // A short name in a list is described in full under it: a recipe by its name, a stage by what it shards.
  function describe(form, config) {
    const recipe = config.recipes.find((r) => r.id === form.elements.recipe.value);
    const stage = config.stages.find((s) => String(s.id) === form.elements.stage.value);
    form.querySelector(`#${CSS.escape(form.elements.recipe.id)}-hint`).textContent = recipe?.name ?? "";
    form.querySelector(`#${CSS.escape(form.elements.stage.id)}-hint`).textContent = stage?.words ?? "";
  }

  // A model from the list fills in its parameter count, in billions.
  function showModelCount(form, config) {
    const chosen = config.models.find((m) => m.id === form.elements.model.value);
    if (chosen) form.elements.parameters.value = String(chosen.parameters / 1e9);
  }

  const ROLE_NAMES = {
    parameters: "Parameters",
    gradients: "Gradients",
    optimizer_states: "Optimizer states",
    activations: "Activations",
  };

  function render(form, config, result) {
    for (const name of FIELDS) {
      const input = form.elements[name];
      const problem = result.problems[name] ?? "";
      form.querySelector(`#${CSS.escape(input.id)}-problem`).textContent = problem;
      if (problem) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    }
    const region = form.querySelector(".sbn-calculator__result");
    region.replaceChildren();
    const problems = Object.keys(result.problems);
    if (problems.length) {
      const names = problems.map(
        (name) => form.querySelector(`label[for="${CSS.escape(form.elements[name].id)}"]`).textContent,
      );
      region.append(element("p", {}, `Not computed: check ${names.join("; ")}.`));
      return;
    }
    const roles = [...config.roles, ...(result.bytes.activations === null ? [] : ["activations"])];
    const table = element("table");
    const head = table.createTHead().insertRow();
    head.append(element("th", { scope: "col" }, "Per device"), element("th", { scope: "col" }, "Bytes"));
    const body = table.createTBody();
    roles.forEach((role, index) => {
      const row = body.insertRow();
      const name = element("th", { scope: "row" });
      name.append(
        element("span", { class: `sbn-calculator__swatch sbn-calculator__role--${index + 1}`, "aria-hidden": "true" }),
      );
      name.append(ROLE_NAMES[role]);
      row.append(name, element("td", {}, bytesText(result.bytes[role])));
    });
    const total = body.insertRow();
    total.append(element("th", { scope: "row" }, "Total"), element("td", {}, bytesText(result.total)));
    const gpu = config.gpus.find((g) => g.id === form.elements.gpu.value);
    // What CUDA gives programs is rarely whole GiB: three digits, as the lessons show it.
    const gib = Number((result.capacity / 2 ** 30).toPrecision(3));
    const verdict = result.fits
      ? `Fits: ${bytesText(result.total)} of the ${gib} GiB (${bytesText(result.capacity)}) that one ${gpu.name} gives programs, leaving ${bytesText(result.capacity - result.total)}.`
      : `Does not fit: ${bytesText(result.total)} is more than the ${gib} GiB (${bytesText(result.capacity)}) that one ${gpu.name} gives programs, by ${bytesText(result.total - result.capacity)}.`;
    const bar = element("div", { class: "sbn-calculator__bar", "aria-hidden": "true" });
    const whole = Math.max(result.total, result.capacity);
    roles.forEach((role, index) => {
      const share = (100 * result.bytes[role]) / whole;
      bar.append(element("span", { class: `sbn-calculator__role--${index + 1}`, style: `width: ${share}%` }));
    });
    region.append(element("p", {}, verdict), bar, table);
    if (result.bytes.activations === null) {
      region.append(element("p", {}, "Activations not counted: give a batch and a sequence length to estimate them."));
    } else {
      const recipe = config.recipes.find((r) => r.id === form.elements.recipe.value);
      region.append(
        element(
          "p",
          {},
          `Activations: Korthikanti et al.'s count, each layer keeping ${form.elements.recompute.selectedOptions[0].textContent}, at ${recipe.activation_bytes} bytes a value as the recipe's passes run.`,
        ),
      );
    }
  }

  function update(form, save_ = true) {
    const config = JSON.parse(form.dataset.sbnConfig);
    const inputs = readInputs(form);
    describe(form, config);
    render(form, config, compute(config, inputs));
    if (save_) save(form, inputs);
  }

  function mount() {
    /** @type {NodeListOf<HTMLFormElement>} */
    const forms = document.querySelectorAll("form[data-sbn-calculator]:not([data-sbn-mounted])");
    for (const form of forms) {
      const config = JSON.parse(form.dataset.sbnConfig);
      form.dataset.sbnMounted = "";
      fill(form, config);
      setInputs(form, config, { ...JSON.parse(form.dataset.sbnDefaults), ...load(form) });
      /** @type {HTMLElement} */ (form.querySelector(".sbn-calculator__actions")).hidden = false;
      /** @type {HTMLElement} */ (form.querySelector(".sbn-calculator__noscript")).hidden = true;
      update(form, false);
    }
  }

  // Each listener's event comes from a form or one of its fields, in a calculator or not.
  /** @type {(event: Event) => HTMLInputElement} */
  const targetOf = (event) => /** @type {HTMLInputElement} */ (event.target);
  /** @type {(event: Event) => HTMLFormElement | null} */
  const formOf = (event) => targetOf(event).closest("form[data-sbn-mounted]");

  document.addEventListener("submit", (event) => {
    const form = formOf(event);
    if (!form) return;
    event.preventDefault();
    update(form);
  });

  document.addEventListener("change", (event) => {
    const form = formOf(event);
    if (!form) return;
    const config = JSON.parse(form.dataset.sbnConfig);
    if (targetOf(event).name === "model") showModelCount(form, config);
    update(form);
  });

  // Typing a count makes it the reader's own model.
  document.addEventListener("input", (event) => {
    const form = formOf(event);
    if (form && targetOf(event).name === "parameters") {
      const model = /** @type {HTMLSelectElement} */ (form.elements.namedItem("model"));
      model.value = JSON.parse(form.dataset.sbnConfig).custom;
    }
  });

  window.sbnCalculator = { compute };

  if (window.document$) window.document$.subscribe(mount);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount);
  else mount();
})();
