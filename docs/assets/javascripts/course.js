// Scale by the Numbers: quizzes that answer back, progress kept in this browser, and
// the tooltips of figures and terms. The quizzes are HTML forms (macros/quiz/), readable
// without this script. One delegated listener per event type serves every page, also
// after Material's instant navigation. Stored, page and typed text is set as text only.

(() => {
  "use strict";

  const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];
  const own = (object, key) => (Object.hasOwn(object, key) ? object[key] : undefined);
  const encode = encodeURIComponent;

  // ---------------------------------------------------------------- storage
  // One key per question or rep, under the site's base path. Storage may be off, full,
  // shared with another tab or planted: a value that does not fit is dropped.

  const MAX_ANSWER = 100; // the fields' maxlength
  const MAX_TEXT = 4000;
  const MAX_VERDICT = 12; // the digest of a question's key, macros/quiz/verdicts.py
  let warned = false;

  // Resolved once, on the page this script was loaded with: #__config's base is
  // relative to that page, and instant navigation changes the address, not it.
  const BASE = (() => {
    let base = ".";
    try {
      base = JSON.parse(document.getElementById("__config").textContent).base;
    } catch {
      // No Material config: the page's own folder is the scope.
    }
    return new URL(base, location.href);
  })();
  const SCOPE = `sbn:${BASE.pathname}:`;

  function storageKey(item) {
    return SCOPE + (item ? (item.dataset.quizId ?? item.dataset.repId) : "");
  }

  const isText = (value, max) => typeof value === "string" && value.length <= max;

  // Whether a stored state has the shape of a question's answers (`question`: its kind and its options' values;
  // null for a rep), and nothing else. A checked answer keeps the verdict it got (`right`), which the home page
  // counts (syllabus.js, which reads each question from the build's data where this page reads it off its form,
  // and calls this through window.sbnStored, so that both count the same); a choice is kept by its option's
  // value, which the build derives from the option's text (macros/quiz/choices.py), so reordering the options
  // keeps it and rewording one drops it. A verdict comes with the digest of the key it was given under
  // (`verdict`, macros/quiz/verdicts.py), which the home page compares with the key's now.
  function fitsQuestion(question, state) {
    const keys = Object.keys(state)
      .filter((name) => name !== "v" && name !== "right" && name !== "verdict")
      .sort()
      .join();
    if (!question) return keys === "done" && typeof state.done === "boolean" && !("right" in state);
    const { kind, options } = question;
    if ("right" in state && (kind === "free" || typeof state.right !== "boolean")) return false;
    if ("verdict" in state && !("right" in state && isText(state.verdict, MAX_VERDICT))) return false;
    if (kind === "numeric") return keys === "answer" && isText(state.answer, MAX_ANSWER);
    if (kind === "free") {
      return (
        /^(mark)?,?(text)?$/.test(keys) &&
        (!("text" in state) || isText(state.text, MAX_TEXT)) &&
        (!state.mark || /^(got-it|not-yet)$/.test(state.mark))
      );
    }
    // A single choice is stored with one option, a multiple one with one or more, each once.
    const chosen = state.chosen;
    const most = kind === "single" ? 1 : options.length;
    return (
      keys === "chosen" &&
      Array.isArray(chosen) &&
      chosen.length >= 1 &&
      chosen.length <= most &&
      chosen.every((c, i) => options.includes(c) && chosen.indexOf(c) === i)
    );
  }
  window.sbnStored = { fits: fitsQuestion };

  /** A question as its form on the page gives it (null for a rep): its kind and its options' values. */
  function questionOf(item) {
    const kind = item.dataset.quizKind;
    if (!kind) return null;
    const options = $$("input", item)
      .filter((input) => input.type === "radio" || input.type === "checkbox")
      .map((input) => input.value);
    return { kind, options };
  }

  function load(item) {
    try {
      const text = localStorage.getItem(storageKey(item));
      if (text === null) return null;
      let state;
      try {
        state = text.length < 7 * MAX_TEXT && JSON.parse(text); // JSON escapes at most 6 to 1
      } catch {
        // Not JSON: removed below, as any value that does not fit.
      }
      if (state && typeof state === "object" && state.v === 1 && fitsQuestion(questionOf(item), state)) return state;
      localStorage.removeItem(storageKey(item));
    } catch {
      // Storage off: nothing stored to show.
    }
    return null;
  }

  function save(item, state) {
    try {
      localStorage.setItem(storageKey(item), JSON.stringify({ ...state, v: 1 }));
    } catch {
      if (!warned) {
        note(
          "This browser is not keeping your answers (its storage is full or turned off): they will be gone when you leave.",
        );
      }
      warned = true;
    }
  }

  function forget(item) {
    try {
      localStorage.removeItem(storageKey(item));
    } catch {
      // Storage off: nothing stored to forget.
    }
  }

  function note(text) {
    /** @type {HTMLElement | null} */
    const element = document.querySelector(".sbn-progress__note");
    if (element) [element.textContent, element.hidden] = [text, false];
  }

  // ---------------------------------------------------------- numeric answers
  // Read by answers.js, which only the pages that ask a numeric question load, from their
  // content: until it has run, a stored answer waits without a verdict, and it says when it
  // is there ("sbn:answers"), also on each instant navigation to such a page.

  const refuse = (text) => ({ ok: false, answered: false, text });
  const checkNumeric = (form, answer) => window.sbnAnswers?.check(form, answer) ?? null;

  // ------------------------------------------------------ choices, rendering

  function checkChoice(form, chosen) {
    if (!chosen.length) return refuse("Pick an option first.");
    const entries = $$("[data-option]", form);
    const right = entries.filter((entry) => entry.dataset.correct === "true").map((entry) => entry.dataset.option);
    const ok = chosen.length === right.length && chosen.every((value) => right.includes(value));
    // Each chosen option's feedback, in the options' order: its answer entry's text after the verdict.
    const feedback = entries
      .filter((entry) => chosen.includes(entry.dataset.option))
      .map((entry) => {
        const why = entry.querySelector(".sbn-quiz__why");
        return why ? `${entry.dataset.letter}) ${why.textContent.trim()}` : "";
      });
    return { ok, answered: true, text: [ok ? "✓ Right." : "✗ Not quite.", ...feedback].join(" ") };
  }

  function showResult(form, result) {
    form.querySelector(".sbn-quiz__result").textContent = result ? result.text : "";
    form.dataset.result = result?.answered ? (result.ok ? "right" : "wrong") : "";
  }

  const check = (form, state) =>
    form.dataset.quizKind === "numeric" ? checkNumeric(form, state.answer) : checkChoice(form, state.chosen);

  function setMark(form, mark) {
    for (const button of $$("[data-mark]", form)) {
      button.setAttribute("aria-pressed", String(button.dataset.mark === mark));
    }
    form.dataset.result = mark ? (mark === "got-it" ? "right" : "wrong") : "";
  }

  // Show what is stored for a question or rep, or its empty state.
  function restore(item) {
    const state = load(item);
    const kind = item.dataset.quizKind;
    if (!kind) return void (item.checked = Boolean(state?.done));
    item.querySelector(".sbn-quiz__actions")?.removeAttribute("hidden");
    if (kind === "free") {
      item.elements.answer.value = state?.text ?? "";
      setMark(item, state?.mark);
      item.querySelector(".sbn-quiz__marks").hidden = !state?.mark && !item.querySelector("details").open;
      return;
    }
    if (kind === "numeric") item.elements.answer.value = state?.answer ?? "";
    else for (const input of $$("input", item)) input.checked = Boolean(state?.chosen.includes(input.value));
    const result = state && check(item, state);
    showResult(item, result);
    // A verdict stored before the key or the checker changed is brought up to date, for the home page's count.
    if (result && (state.right !== result.ok || state.verdict !== item.dataset.quizVerdict)) {
      save(item, { ...state, right: result.ok, verdict: item.dataset.quizVerdict });
    }
  }

  const items = () => $$("form[data-quiz-id], input[data-rep-id]");

  // Questions answered right (or a free one marked "got it" beside an answer), and reps done: the home page
  // counts the same from what is stored, in the same words (syllabus.js).
  function updateProgress() {
    /** @type {HTMLElement | null} */
    const line = document.querySelector("[data-sbn-progress]");
    if (!line) return;
    const quizzes = $$("form[data-quiz-id]");
    const reps = $$("input[data-rep-id]");
    const typed = (form) => form.elements.answer?.value.trim();
    const done = quizzes.filter(
      (form) => form.dataset.result === "right" && (form.dataset.quizKind !== "free" || typed(form)),
    ).length;
    const ticked = reps.filter((input) => input.checked).length;
    const questions = `Your progress: ${done} of ${quizzes.length} questions`;
    line.firstElementChild.textContent = reps.length
      ? `${questions} and ${ticked} of ${reps.length} reps done.`
      : `${questions} done.`;
    /** @type {HTMLElement} */ (line.querySelector("[data-sbn-reset]")).hidden = !(
      ticked || quizzes.some((form) => form.dataset.result || typed(form))
    );
    line.dataset.ready = "";
  }

  function mount() {
    hideTip();
    items().forEach(restore);
    updateProgress();
  }

  // --------------------------------------------------------------- reports
  // Followed, a question's report link also carries the reader's answer and what the page said.

  function reportUrl(link) {
    const form = link.closest("form");
    const mark = form.querySelector("[aria-pressed=true]");
    const answer =
      form.elements.answer?.value ??
      $$("input:checked", form)
        .map((input) => input.closest("label").textContent.trim())
        .join("\n");
    const said = form.querySelector(".sbn-quiz__result").textContent || "(nothing yet)";
    const text = `My answer: ${answer.slice(0, 1500) || "(none)"}${mark ? `\n(I marked it “${mark.textContent}”.)` : ""}\nThe page said: ${said}\n\nWhat is wrong:\n`;
    link.href = `${(link.dataset.base ??= link.href)}&description=${encode(text)}`;
  }

  // --------------------------------------------------------------- tooltips
  // Made on a figure's or term's first hover, focus or tap: one element at the end of the body
  // (inserted beside a figure in a table, it would make the browser lay the whole table out
  // again: 50 ms on Lesson 16), fixed to the viewport, so that no scroller clips it: below its
  // trigger where it fits, else above, else on the roomier side, scrolling within itself; never
  // under Material's header, never past an edge. Its links are no stops of the page's Tab order
  // (a figure costs a keyboard reader one stop): Enter on the figure goes to them, Tab past
  // them goes on from the figure, Escape comes back to it. The title moves into data, so the
  // browser's own tooltip does not repeat it.

  const GAP = 6;
  let tip, owner, hiding, pointer, ownerAtTap, figuresElement, figures, quiet;
  const web = (url) => (/^https?:\/\//.test(url) ? url : null);

  function add(parent, tag, text, className = "", href = null) {
    const element = parent.appendChild(document.createElement(tag));
    [element.textContent, element.className] = [text, className];
    if (href) [element.href, element.tabIndex] = [href, -1];
    return element;
  }

  function fillTip(trigger) {
    trigger.dataset.title ??= trigger.title;
    trigger.removeAttribute("title");
    tip.replaceChildren();
    tip.style.maxHeight = "";
    const text = (words) => (add(tip, "span", words, "sbn-tip__text").id = "sbn-tip-text");
    if (trigger.matches("a")) {
      text(trigger.dataset.title);
      return add(tip, "a", `Glossary: ${trigger.textContent}`, "sbn-tip__more", trigger.href);
    }
    const tips = figureData();
    const { dataset: data, textContent: shown } = trigger;
    const figure = own(tips.figures ?? {}, data.figId);
    if (figure?.formula) add(tip, "span", figure.formula, "sbn-tip__formula");
    text((figure?.formula ? "= " : "") + (figure?.words ?? data.title));
    for (const [label, cite, where, url] of figure?.sources ?? []) {
      const source = add(tip, "span", `${label}: `, "sbn-tip__source");
      add(source, web(url) ? "a" : "span", cite, "", web(url));
      source.append(`, ${where}`);
    }
    // What running the software gave for it (the engine tier's measured.yml, macros/figures/figure.py).
    for (const [software, differs, value] of figure?.measured ?? []) {
      const result = differs ? `${value}, which differs: ${differs}` : `${value}, the same`;
      add(tip, "span", `Measured: ${software}: ${result}.`, "sbn-tip__source");
    }
    if (web(tips.report)) {
      const description = `The page shows ${shown} (exact value: ${data.value} ${data.unit}).\n\nWhat is wrong, and your source or arithmetic:\n`;
      add(
        tip,
        "a",
        "Report this figure",
        "sbn-tip__more",
        `${tips.report}&title=${encode(`Figure: ${data.figId}`)}&figure-id=${encode(data.figId)}&description=${encode(description)}`,
      );
    }
    if (trigger.matches(":focus-visible") && tip.querySelector("a")) {
      add(tip, "span", "Enter: go to its links. Escape: close.", "sbn-tip__keys");
    }
  }

  // The page's figures' tooltip data (macros/build/tooltips.py), fetched when its reader first opens
  // a figure's tooltip, not with the page: until it comes, the tip shows the figure's title, then
  // it fills in. Kept by the element that names it, which instant navigation replaces.
  function figureData() {
    const element = document.getElementById("sbn-figures");
    if (element === figuresElement) return figures;
    [figuresElement, figures] = [element, {}];
    const address = element?.dataset.src;
    if (!address) return figures;
    fetch(new URL(address, location.href))
      .then((response) => (response.ok ? response.json() : {}))
      .catch(() => ({}))
      .then((loaded) => {
        if (figuresElement !== element) return; // the reader has gone on to another page
        figures = loaded !== null && typeof loaded === "object" ? loaded : {};
        if (owner?.matches(".fig") && tip.isConnected && !tip.contains(document.activeElement)) {
          fillTip(owner);
          place();
        }
      });
    return figures;
  }

  // Where the tip goes: the visible area is from the header's foot to the viewport's.
  function place() {
    if (!owner || !tip?.isConnected) return;
    const box = owner.getBoundingClientRect();
    const top = Math.max(0, document.querySelector(".md-header")?.getBoundingClientRect().bottom ?? 0) + GAP;
    const bottom = innerHeight - GAP;
    if (box.bottom < top || box.top > bottom) return hideTip(); // scrolled out of sight
    tip.style.maxHeight = "";
    const height = tip.offsetHeight;
    const [below, above] = [bottom - box.bottom - GAP, box.top - GAP - top];
    const under = height <= below || (height > above && below >= above);
    const room = Math.max(0, under ? below : above);
    if (height > room) tip.style.maxHeight = `${room}px`;
    tip.style.top = `${under ? box.bottom + GAP : box.top - GAP - Math.min(height, room)}px`;
    const width = document.documentElement.clientWidth;
    tip.style.left = `${Math.max(GAP, Math.min(box.left, width - tip.offsetWidth - GAP))}px`;
  }

  function showTip(trigger) {
    clearTimeout(hiding);
    if (owner === trigger && tip.isConnected) return;
    hideTip();
    tip ??= Object.assign(document.createElement("span"), { className: "sbn-tip", id: "sbn-tip" });
    owner = trigger;
    fillTip(trigger);
    document.body.append(tip);
    trigger.setAttribute("aria-describedby", "sbn-tip-text");
    place();
  }

  function hideTip() {
    clearTimeout(hiding);
    owner?.removeAttribute("aria-describedby");
    tip?.remove();
    owner = null;
  }

  // Enter on a figure whose tip is open: its links join the Tab order, from the first.
  function enterTip() {
    const links = $$("a", tip);
    for (const link of links) link.removeAttribute("tabindex");
    links[0]?.focus();
  }

  const inTip = (node) => Boolean(node && (owner?.contains(node) || tip?.contains(node)));
  const TRIGGER = ".fig, a.sbn-term";

  // ---------------------------------------------------------------- events

  /** @type {(type: string, listener: (event: any) => unknown, target?: EventTarget, capture?: boolean) => void} */
  const on = (type, listener, target = document, capture = type === "toggle") =>
    target.addEventListener(type, listener, capture);

  on("submit", (event) => {
    const form = event.target.closest("form[data-quiz-id]");
    if (!form) return;
    event.preventDefault();
    const state =
      form.dataset.quizKind === "numeric"
        ? { answer: form.elements.answer.value.slice(0, MAX_ANSWER) }
        : { chosen: $$("input:checked", form).map((input) => input.value) };
    const result =
      check(form, state) ??
      refuse("This page's answer checker has not loaded yet: try again in a moment, or open the answer.");
    showResult(form, result);
    if (result.answered || state.answer) save(form, { ...state, right: result.ok, verdict: form.dataset.quizVerdict });
    else if (state.answer === "") forget(form);
    updateProgress();
  });

  on("sbn:answers", () => {
    $$('form[data-quiz-kind="numeric"]').forEach(restore);
    updateProgress();
  });

  on("input", (event) => {
    const form = event.target.closest('form[data-quiz-kind="free"]');
    if (!form) return;
    save(form, { ...load(form), text: event.target.value.slice(0, MAX_TEXT) });
    updateProgress();
  });

  on("change", (event) => {
    if (event.target.id === "__search") openSearch();
    const rep = event.target.closest("input[data-rep-id]");
    if (!rep) return;
    save(rep, { done: rep.checked });
    updateProgress();
  });

  on("pointerdown", (event) => {
    [pointer, ownerAtTap] = [event.pointerType, owner];
  });

  // A tap on a term shows its definition first; a second tap follows the link. In the capture
  // phase: Material's instant navigation takes a link's click on the body, before the document.
  on(
    "click",
    (event) => {
      const term = event.target.closest?.("a.sbn-term");
      if (!term || pointer !== "touch" || ownerAtTap === term) return;
      event.preventDefault();
      event.stopPropagation();
      showTip(term);
    },
    document,
    true,
  );

  on("click", (event) => {
    const target = event.target;
    if (tip?.contains(target) && !target.closest("a")) event.preventDefault(); // a tip in a label ticks nothing
    if (!inTip(target)) hideTip();
    if (target.closest("[data-sbn-reset]") && confirm("Clear your answers and ticked reps on this page?")) {
      for (const item of items()) {
        forget(item);
        restore(item);
      }
      updateProgress();
    }
    const report = target.closest("form a[data-report]");
    if (report) reportUrl(report);
    const button = target.closest("[data-mark]");
    if (!button) return;
    const form = button.closest("form");
    setMark(form, button.dataset.mark);
    save(form, { text: form.elements.answer.value.slice(0, MAX_TEXT), mark: button.dataset.mark });
    updateProgress();
  });

  on("mouseover", (event) => {
    const trigger = event.target.closest?.(TRIGGER);
    if (trigger) showTip(trigger);
    else if (inTip(event.target)) clearTimeout(hiding);
  });

  on("mouseout", (event) => {
    if (inTip(event.target) && !inTip(event.relatedTarget) && !inTip(document.activeElement)) {
      clearTimeout(hiding);
      hiding = setTimeout(hideTip, 300);
    }
  });

  on("focusin", (event) => {
    const trigger = event.target.closest?.(TRIGGER);
    if (trigger && trigger === quiet) quiet = null;
    else if (trigger) showTip(trigger);
    else if (!inTip(event.target)) hideTip();
  });

  on("keydown", (event) => {
    if (event.key === "Escape" && owner) {
      const back = inTip(document.activeElement) && document.activeElement !== owner && owner;
      hideTip();
      if (back) {
        quiet = back; // back to the figure, its tip left closed
        back.focus();
      }
    } else if (
      event.key === "Enter" &&
      owner &&
      event.target === owner &&
      owner.matches(".fig") &&
      tip.querySelector("a")
    ) {
      event.preventDefault();
      enterTip();
    } else if (event.key === "Tab" && owner && tip.contains(event.target)) {
      // Past its first or last link, the tip hands the focus back to its figure, from which Tab goes on.
      const links = $$("a", tip);
      if (event.target !== (event.shiftKey ? links[0] : links.at(-1))) return;
      quiet = owner;
      owner.focus();
      if (event.shiftKey) event.preventDefault();
    }
  });

  // A tip follows its trigger while the page or a scroller moves (scroll does not bubble: captured).
  on("scroll", (event) => tip?.contains(event.target) || place(), document, true);
  on("resize", place, window);

  // Reading a free question's model answer offers the self-marks (toggle does not bubble: captured).
  on("toggle", (event) => {
    const marks = event.target.open && event.target.closest("form")?.querySelector(".sbn-quiz__marks");
    if (marks && event.target.matches("details.sbn-quiz__answer")) marks.hidden = false;
  });

  // Another tab changed or reset answers of this site: show what is stored now.
  on(
    "storage",
    (event) => {
      const changed = items().filter((item) => event.key === null || event.key === storageKey(item));
      changed.forEach(restore);
      if (changed.length && event.newValue === null) note("Answers on this page were reset in another tab.");
      updateProgress();
    },
    window,
  );

  // The search index comes without its pages (macros/build/search.py): Material's set-up message
  // to its worker (type 0) waits here until the reader first opens search, then takes them.
  // In a query (type 2), a word's hyphen is escaped for lunr's query lexer, which splits at
  // hyphens whatever mkdocs.yml's separator. The worker lexes a query twice (Material's
  // transform, then lunr's search), each taking one level off: "all\\\-reduce" is searched
  // as the word "all-reduce", and results do not call it missing.
  // A private API of Material (checked against Material for MkDocs 9.8.2): its worker messages are
  // numbered at compile time (SearchMessageType: 0 set-up, 2 query). tests/browser/test_pages.py's
  // search tests fail if they change: no result would come back.
  const post = Worker.prototype.postMessage;
  let setup;
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message?.type === 0 && !message.data.docs.length) return void ((setup = [this, message.data]), openSearch());
    if (message?.type === 2 && typeof message.data === "string") {
      message = { ...message, data: message.data.replace(/(\w)-(?=\w)/g, "$1\\\\\\-") };
    }
    return post.call(this, message, ...rest);
  };

  function openSearch() {
    const search = /** @type {HTMLInputElement | null} */ (document.getElementById("__search"));
    if (!setup || !search?.checked) return;
    const [worker, data] = setup;
    setup = null;
    fetch(new URL("search/search_docs.json", BASE))
      .then((response) => response.json())
      .then((docs) => post.call(worker, { type: 0, data: { ...data, docs } }))
      .catch(() => (setup = [worker, data])); // offline, say: opening search again tries again
  }

  // ------------------------------------------------------------------ print
  // On paper, an answer field is only worth its room with the reader's answer in it: an empty
  // one is marked for course.css's print styles to leave out, while the page prints.
  const blank = (field) => !field.querySelector("input, textarea")?.value.trim();
  on(
    "beforeprint",
    () => $$(".sbn-quiz__field").forEach((field) => field.toggleAttribute("data-sbn-empty", blank(field))),
    window,
  );
  on("afterprint", () => $$("[data-sbn-empty]").forEach((field) => field.removeAttribute("data-sbn-empty")), window);

  // Material's document$ replays the current page, then each instant navigation.
  if (window.document$) window.document$.subscribe(mount);
  else if (document.readyState === "loading") on("DOMContentLoaded", mount);
  else mount();
})();
