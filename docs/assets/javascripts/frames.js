// Scale by the Numbers: step through a diagram's frames (macros/pictures/diagrams/frames.py).
//
// The frames are SVG drawn at build time, all in a row, each with its
// description. This script shows one at a time, with Previous and Next
// buttons, the arrow keys, Home and End, and says which step is shown in a
// status region. Only pages with a diagram load it, from their content, so
// Material's instant navigation runs it too; it sets itself up once.

(() => {
  "use strict";
  if (window.sbnFrames) return;
  window.sbnFrames = true;

  function show(root, index) {
    const frames = [...root.querySelectorAll(".sbn-frames__frame")];
    const current = Math.max(0, Math.min(frames.length - 1, index));
    frames.forEach((frame, i) => {
      frame.hidden = i !== current;
    });
    root.dataset.sbnFrame = String(current);
    const title = frames[current].querySelector("strong")?.textContent ?? "";
    root.querySelector(".sbn-frames__status").textContent = `Step ${current + 1} of ${frames.length}: ${title}`;
    const [previous, next] = root.querySelectorAll("[data-sbn-frames-step]");
    const focused = /** @type {HTMLButtonElement | null} */ (document.activeElement);
    previous.disabled = current === 0;
    next.disabled = current === frames.length - 1;
    // A button that has just become disabled loses the focus: give it to the other one.
    if (focused?.disabled && root.contains(focused)) {
      (previous.disabled ? next : previous).focus();
    }
  }

  function mount() {
    /** @type {NodeListOf<HTMLElement>} */
    const roots = document.querySelectorAll("[data-sbn-frames]:not(.sbn-frames--stepping)");
    for (const root of roots) {
      root.classList.add("sbn-frames--stepping");
      const list = root.querySelector(".sbn-frames__list");
      list.removeAttribute("tabindex"); // no longer a region to scroll: the buttons move through it
      /** @type {HTMLElement} */ (root.querySelector(".sbn-frames__controls")).hidden = false;
      show(root, 0);
    }
  }

  document.addEventListener("click", (event) => {
    /** @type {HTMLElement | null} */
    const button = /** @type {Element} */ (event.target).closest("[data-sbn-frames-step]");
    if (!button) return;
    /** @type {HTMLElement} */
    const root = button.closest("[data-sbn-frames]");
    show(root, Number(root.dataset.sbnFrame) + Number(button.dataset.sbnFramesStep));
  });

  const KEYS = { ArrowLeft: -1, ArrowRight: 1 };
  document.addEventListener("keydown", (event) => {
    /** @type {HTMLElement | null} */
    const root = /** @type {Element} */ (event.target).closest?.(".sbn-frames--stepping");
    if (!root || event.altKey || event.ctrlKey || event.metaKey) return;
    const last = root.querySelectorAll(".sbn-frames__frame").length - 1;
    const at = Number(root.dataset.sbnFrame);
    const to = event.key in KEYS ? at + KEYS[event.key] : event.key === "Home" ? 0 : event.key === "End" ? last : null;
    if (to === null) return;
    event.preventDefault();
    show(root, to);
  });

  if (window.document$) window.document$.subscribe(mount);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount);
  else mount();
})();
