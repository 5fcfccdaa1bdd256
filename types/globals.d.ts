// The globals the course's scripts (docs/assets/javascripts/) share beyond the browser's, for `tsc` only:
// the one Material for MkDocs provides and the ones the scripts set for each other. The scripts are plain
// scripts, so this file is global too (no import or export). ESLint's globals (eslint.config.mjs) name the same.

/** The part of an RxJS observable the scripts use. */
interface MaterialObservable<T> {
  subscribe(next: (value: T) => void): unknown;
}

/** Material's document, emitted on load and after each instant navigation; absent without Material. */
declare var document$: MaterialObservable<Document> | undefined;

/** What course.js shows after a check: a verdict (`answered`) or a refusal to give one. */
interface SbnResult {
  ok: boolean;
  answered: boolean;
  text: string;
}

interface Window {
  /** answers.js's checker of numeric answers, which course.js calls once it is there. */
  sbnAnswers?: { check(form: HTMLFormElement, answer: string): SbnResult };
  /** calculator.js's arithmetic, which the browser tests compare with macros/pictures/calculator.py. */
  sbnCalculator?: { compute(config: any, inputs: Record<string, unknown>): unknown };
  /** planner.js's arithmetic, which the browser tests compare with macros/model/planner.py. */
  sbnPlanner?: {
    compute(config: any, inputs: Record<string, unknown>): unknown;
    read(config: any, inputs: Record<string, unknown>): unknown;
    evaluateLayout(config: any, request: any, layout: any): unknown;
  };
  /** course.js's reading of a stored answer, which syllabus.js counts with (a question's kind and options). */
  sbnStored?: { fits(question: { kind: string; options: string[] } | null, state: any): boolean };
  /** Set once frames.js has set itself up. */
  sbnFrames?: boolean;
}
