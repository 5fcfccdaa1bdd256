// Scale by the Numbers: the reader's progress per lesson, in the home page's syllabus.
//
// Loaded by the syllabus's page only, from its content, where Material's instant
// navigation runs it again on each visit (overrides/main.html). It reads, never
// writes, what course.js keeps: "sbn:<site path>:<id>" holding JSON with v: 1. A
// question counts once course.js would show it answered (a checked answer, a
// choice, a self-mark), a rep once ticked. Each lesson's ids come from the build
// (#sbn-syllabus); without this script the progress stays hidden.

(() => {
  "use strict";

  const data = document.getElementById("sbn-syllabus");
  if (!data) return;
  let lessons, site;
  try {
    lessons = JSON.parse(data.textContent);
    // The syllabus's page is the site's home, so its own address is the scope course.js uses.
    site = new URL(data.dataset.base, location.href).pathname;
  } catch (error) {
    return;
  }

  function load(id) {
    try {
      const state = JSON.parse(localStorage.getItem(`sbn:${site}:${id}`));
      return state && typeof state === "object" && state.v === 1 ? state : null;
    } catch (error) {
      return null; // storage disabled, or not JSON: nothing counted
    }
  }

  const answered = (state) =>
    Boolean(state && (typeof state.answer === "string" || (Array.isArray(state.chosen) && state.chosen.length) || state.mark));

  for (const element of document.querySelectorAll("[data-sbn-lesson]")) {
    const items = lessons[element.dataset.sbnLesson];
    if (!items) continue;
    const questions = items.questions.filter((id) => answered(load(id))).length;
    const parts = [`${questions} of ${items.questions.length} answered`];
    if (items.reps.length) {
      parts.push(`${items.reps.filter((id) => load(id)?.done === true).length} of ${items.reps.length} reps done`);
    }
    element.textContent = `Your progress: ${parts.join(", ")}`;
    element.hidden = false;
  }
})();
