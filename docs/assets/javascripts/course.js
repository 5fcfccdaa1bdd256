// Scale by the Numbers: quizzes that answer back, and progress kept in this browser.
//
// The quizzes are plain HTML forms rendered at build time (macros/quiz.py),
// readable without this script. It adds: checking answers, feedback in an
// aria-live region, self-marks for free answers, ticked reps, a progress line
// per lesson, and storage of all of it. One delegated listener per event type
// serves every page, including those reached by Material's instant navigation.

(() => {
  "use strict";

  // ---------------------------------------------------------------- storage
  // One key per question, scoped by the site's base path, so that a preview of
  // the site on the same host keeps its progress apart. Storage may be
  // disabled, full or hold anything: every access is guarded, and a failure
  // only means this visit's answers are not remembered.

  const VERSION = 1;
  const MAX_LENGTH = 8000;

  function scope() {
    let base = ".";
    try {
      base = JSON.parse(document.getElementById("__config").textContent).base;
    } catch (error) {
      // No Material config: the page's own folder is the best scope left.
    }
    return `sbn:${new URL(base, location.href).pathname}:`;
  }

  // Resolved once, on the page this script was loaded with: #__config's base is
  // relative to that page, and instant navigation changes the address, not it.
  const SCOPE = scope();

  function load(id) {
    try {
      const state = JSON.parse(localStorage.getItem(SCOPE + id));
      return state && typeof state === "object" && state.v === VERSION ? state : null;
    } catch (error) {
      return null;
    }
  }

  function save(id, state) {
    try {
      const text = JSON.stringify({ ...state, v: VERSION });
      if (text.length <= MAX_LENGTH) localStorage.setItem(SCOPE + id, text);
    } catch (error) {
      // Full or disabled: keep going without remembering.
    }
  }

  function forget(id) {
    try {
      localStorage.removeItem(SCOPE + id);
    } catch (error) {
      // Nothing to forget.
    }
  }

  // ---------------------------------------------------------- numeric answers
  // What a reader may type after the number, for each base unit of a key, and
  // its factor. A bare number is read in the unit the key is shown in.

  const UNITS = {
    B: {
      b: 1, byte: 1, bytes: 1, kb: 1e3, mb: 1e6, gb: 1e9, tb: 1e12, pb: 1e15,
      kilobytes: 1e3, megabytes: 1e6, gigabytes: 1e9, terabytes: 1e12,
      kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40,
    },
    "B/s": { "b/s": 1, "kb/s": 1e3, "mb/s": 1e6, "gb/s": 1e9, "tb/s": 1e12 },
    s: {
      s: 1, sec: 1, second: 1, seconds: 1, ms: 1e-3, millisecond: 1e-3, milliseconds: 1e-3,
      "µs": 1e-6, us: 1e-6, ns: 1e-9, min: 60, minute: 60, minutes: 60, h: 3600, hour: 3600, hours: 3600,
    },
    param: { k: 1e3, thousand: 1e3, m: 1e6, million: 1e6, b: 1e9, billion: 1e9, t: 1e12, trillion: 1e12 },
    FLOP: { flop: 1, gflop: 1e9, tflop: 1e12, pflop: 1e15 },
    1: {},
  };
  const KIND_OF = {
    B: "an amount of memory", "B/s": "a rate", s: "a time", param: "a parameter count",
    FLOP: "an amount of computation", 1: "a plain number",
  };
  const EXAMPLE = { B: "GB or bytes", "B/s": "GB/s", s: "s or ms", param: "billion", FLOP: "TFLOP", 1: "no unit" };
  const NUMBER = /^\s*([+-]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)\s*(.*?)\s*$/i;

  function readNumber(text, unit, scale) {
    const match = NUMBER.exec(text);
    if (!match) return { problem: "unreadable" };
    const number = Number(match[1].replace(/,/g, ""));
    let suffix = match[2].toLowerCase().replace(/\s+/g, " ");
    if (unit === "param") suffix = suffix.replace(/[- ]?(parameters?|params?)$/, "").trim();
    if (!Number.isFinite(number)) return { problem: "unreadable" };
    if (suffix === "") return { value: number * scale };
    if (suffix in UNITS[unit]) return { value: number * UNITS[unit][suffix] };
    const other = Object.keys(UNITS).find((name) => name !== unit && suffix in UNITS[name]);
    return { problem: other ? "wrong-unit" : "unknown-unit", suffix, other };
  }

  function checkNumeric(form, state) {
    const { keyValue, keyUnit, keyScale, tolerance, tolerancePercent } = form.dataset;
    const key = Number(keyValue);
    const read = readNumber(state.answer, keyUnit, Number(keyScale));
    if (read.problem === "unreadable") {
      const example = EXAMPLE[keyUnit].split(" ")[0];
      return { ok: false, answered: false, text: `Write a number, with its unit, such as 3 ${example}.` };
    }
    if (read.problem === "wrong-unit") {
      return {
        ok: false,
        answered: true,
        text: `✗ Wrong unit: “${read.suffix}” is ${KIND_OF[read.other]}, and this answer is ${KIND_OF[keyUnit]}.`,
      };
    }
    if (read.problem === "unknown-unit") {
      return { ok: false, answered: true, text: `✗ Unknown unit “${read.suffix}”: try ${EXAMPLE[keyUnit]}.` };
    }
    const off = Math.abs(read.value - key) / key;
    if (off <= Number(tolerance)) {
      return { ok: true, answered: true, text: `✓ Correct: within ${tolerancePercent}% of the key.` };
    }
    const direction = read.value > key ? "too high" : "too low";
    const text = `✗ Not quite: ${direction}, by ${Math.round(off * 100)}%. Try again, or open the answer.`;
    return { ok: false, answered: true, text };
  }

  // ----------------------------------------------------------- choice answers

  function checkChoice(form, state) {
    if (!state.chosen.length) return { ok: false, answered: false, text: "Pick an option first." };
    const right = [...form.querySelectorAll('[data-option][data-correct="true"]')].map((li) => li.dataset.option);
    const ok = state.chosen.length === right.length && state.chosen.every((letter) => right.includes(letter));
    // Each chosen option's feedback: the part of its answer entry after the verdict.
    const entries = [...form.querySelectorAll("[data-option]")];
    const feedback = state.chosen.map((letter) => {
      const why = entries.find((entry) => entry.dataset.option === letter)?.querySelector(".sbn-quiz__why");
      return why ? `${letter}) ${why.textContent.trim()}` : "";
    });
    const verdict = ok ? "✓ Right." : "✗ Not quite.";
    return { ok, answered: true, text: [verdict, ...feedback].join(" ") };
  }

  // --------------------------------------------------------------- rendering

  function showResult(form, result) {
    const region = form.querySelector(".sbn-quiz__result");
    region.textContent = result ? result.text : "";
    form.dataset.result = result?.answered ? (result.ok ? "right" : "wrong") : "";
  }

  function readForm(form) {
    const kind = form.dataset.quizKind;
    if (kind === "numeric") return { answer: form.elements.answer.value };
    return { chosen: [...form.querySelectorAll("input:checked")].map((input) => input.value) };
  }

  function check(form, state) {
    return form.dataset.quizKind === "numeric" ? checkNumeric(form, state) : checkChoice(form, state);
  }

  function setMark(form, mark) {
    for (const button of form.querySelectorAll("[data-mark]")) {
      button.setAttribute("aria-pressed", String(button.dataset.mark === mark));
    }
    form.dataset.result = mark ? (mark === "got-it" ? "right" : "wrong") : "";
  }

  function restore(form) {
    const state = load(form.dataset.quizId);
    const kind = form.dataset.quizKind;
    form.querySelector(".sbn-quiz__actions")?.removeAttribute("hidden");
    if (!state) return;
    if (kind === "free") {
      form.elements.answer.value = typeof state.text === "string" ? state.text : "";
      if (state.mark) {
        setMark(form, state.mark);
        form.querySelector(".sbn-quiz__marks").hidden = false;
      }
    } else if (kind === "numeric" && typeof state.answer === "string") {
      form.elements.answer.value = state.answer;
      showResult(form, check(form, state));
    } else if (Array.isArray(state.chosen)) {
      for (const input of form.querySelectorAll("input")) input.checked = state.chosen.includes(input.value);
      showResult(form, check(form, { chosen: state.chosen.map(String) }));
    }
  }

  // How far the reader is on this page: questions answered, reps done.
  function updateProgress() {
    const header = document.querySelector("[data-sbn-progress]");
    if (!header) return;
    const quizzes = [...document.querySelectorAll("form[data-quiz-id]")];
    const reps = [...document.querySelectorAll("input[data-rep-id]")];
    const answered = quizzes.filter((form) => form.dataset.result).length;
    const done = reps.filter((input) => input.checked).length;
    const parts = [`${answered} of ${quizzes.length} questions answered`];
    if (reps.length) parts.push(`${done} of ${reps.length} reps done`);
    header.querySelector(".sbn-progress__text").textContent = `Your progress: ${parts.join(", ")}.`;
    header.hidden = false;
  }

  function mount() {
    for (const form of document.querySelectorAll("form[data-quiz-id]")) restore(form);
    for (const input of document.querySelectorAll("input[data-rep-id]")) {
      input.checked = Boolean(load(input.dataset.repId)?.done);
    }
    updateProgress();
  }

  function reset() {
    if (!window.confirm("Clear your answers and ticked reps on this page?")) return;
    for (const form of document.querySelectorAll("form[data-quiz-id]")) {
      forget(form.dataset.quizId);
      form.reset();
      showResult(form, null);
      setMark(form, null);
      const marks = form.querySelector(".sbn-quiz__marks");
      if (marks) marks.hidden = true;
    }
    for (const input of document.querySelectorAll("input[data-rep-id]")) {
      forget(input.dataset.repId);
      input.checked = false;
    }
    updateProgress();
  }

  // ---------------------------------------------------------------- events

  document.addEventListener("submit", (event) => {
    const form = event.target.closest("form[data-quiz-id]");
    if (!form) return;
    event.preventDefault();
    const state = readForm(form);
    const result = check(form, state);
    showResult(form, result);
    if (result.answered) save(form.dataset.quizId, state);
    updateProgress();
  });

  document.addEventListener("input", (event) => {
    const form = event.target.closest('form[data-quiz-kind="free"]');
    if (!form) return;
    save(form.dataset.quizId, { ...load(form.dataset.quizId), text: event.target.value });
  });

  document.addEventListener("change", (event) => {
    const rep = event.target.closest("input[data-rep-id]");
    if (!rep) return;
    save(rep.dataset.repId, { done: rep.checked });
    updateProgress();
  });

  document.addEventListener("click", (event) => {
    if (event.target.closest("[data-sbn-reset]")) {
      reset();
      return;
    }
    const button = event.target.closest("[data-mark]");
    if (!button) return;
    const form = button.closest("form[data-quiz-id]");
    setMark(form, button.dataset.mark);
    save(form.dataset.quizId, { text: form.elements.answer.value, mark: button.dataset.mark });
    updateProgress();
  });

  // Reading the model answer of a free question offers the self-marks.
  // `toggle` does not bubble, so listen in the capture phase.
  document.addEventListener(
    "toggle",
    (event) => {
      if (!event.target.matches?.("details.sbn-quiz__answer") || !event.target.open) return;
      const marks = event.target.closest("form[data-quiz-id]").querySelector(".sbn-quiz__marks");
      if (marks) marks.hidden = false;
    },
    true,
  );

  // Material's document$ replays the current page, then each instant navigation.
  if (window.document$) window.document$.subscribe(mount);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount);
  else mount();
})();
