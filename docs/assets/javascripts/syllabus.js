// Scale by the Numbers: the reader's progress per lesson, in the home page's syllabus.
//
// Loaded by the syllabus's page only, from its content, where Material's instant
// navigation runs it again on each visit (overrides/main.html). It reads, never
// writes, what course.js keeps: "sbn:<site path>:<id>" holding JSON with v: 1. It
// counts as the lesson page does, in the same words: a question once answered right
// (the verdict course.js stored with the answer, under the question's key of now; a free
// one marked "got it" beside an answer), a rep once ticked. Each lesson's ids come from the build (#sbn-syllabus);
// without this script the progress stays hidden.

(() => {
  "use strict";

  const data = document.getElementById("sbn-syllabus");
  if (!data) return;
  let lessons, site;
  try {
    lessons = JSON.parse(data.textContent);
    // The syllabus's page is the site's home, so its own address is the scope course.js uses.
    site = new URL(data.dataset.base, location.href).pathname;
  } catch {
    return;
  }

  // A stored state counts only if the lesson would keep it (course.js's reading, for the question the build
  // describes, or a rep for null): what its page drops, the home page does not count.
  const fits = window.sbnStored?.fits;
  if (!fits) return;

  function load(id, question) {
    try {
      const state = JSON.parse(localStorage.getItem(`sbn:${site}:${id}`));
      return state && typeof state === "object" && state.v === 1 && fits(question, state) ? state : null;
    } catch {
      return null; // storage disabled, or not JSON: nothing counted
    }
  }

  // A verdict counts under the key it was given under (course.js stores its digest): one stored before the key
  // changed waits for the lesson's page to judge the answer again.
  const done = (state, question) =>
    Boolean(
      state &&
      ((state.right === true && state.verdict === question.verdict) ||
        (state.mark === "got-it" && typeof state.text === "string" && state.text.trim())),
    );

  /** @type {NodeListOf<HTMLElement>} */
  const elements = document.querySelectorAll("[data-sbn-lesson]");
  for (const element of elements) {
    const items = lessons[element.dataset.sbnLesson];
    if (!items) continue;
    // The words of course.js's updateProgress, so that a lesson reads the same here and on its page.
    const answered = items.questions.filter((id) => {
      const question = items.answers[id] ?? { kind: "", options: [] };
      return done(load(id, question), question);
    });
    const questions = `Your progress: ${answered.length} of ${items.questions.length} questions`;
    const ticked = items.reps.filter((id) => load(id, null)?.done === true).length;
    element.textContent = items.reps.length
      ? `${questions} and ${ticked} of ${items.reps.length} reps done.`
      : `${questions} done.`;
    element.hidden = false;
  }
})();
