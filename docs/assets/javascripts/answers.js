// Scale by the Numbers: a numeric answer read as a person writes it, and judged against its key.
//
// The steps of macros/quiz/answers.py, with the units table the page carries (#sbn-units,
// from macros/quiz/units.yml); the tests hold both to tests/answers.yml. Numbers are exact,
// as Python's Fraction: [numerator, denominator] of BigInts, the denominator positive. The
// number's pattern is anchored and unambiguous, answers are short and exponents have at most
// three digits: no answer can stall. Only pages that ask a numeric question load this script,
// from their content (macros/quiz/), so Material's instant navigation runs it too: it sets
// itself up once, then tells course.js it is there, which checks answers with it.

(() => {
  "use strict";

  if (!window.sbnAnswers) {
    const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];
    const own = (object, key) => (Object.hasOwn(object, key) ? object[key] : undefined);
    const MAX_ANSWER = 100; // the fields' maxlength

    /** @typedef {[bigint, bigint]} Fraction An exact number: [numerator, denominator], the denominator positive. */

    /** @type {(a: bigint, b: bigint) => bigint} */
    const gcd = (a, b) => {
      for (a = a < 0n ? -a : a; b;) [a, b] = [b, a % b];
      return a || 1n;
    };
    /** @type {(n: bigint, d?: bigint) => Fraction} */
    const exact = (n, d = 1n) => (d < 0n ? exact(-n, -d) : [n / gcd(n, d), d / gcd(n, d)]);
    /** @type {(x: Fraction, y: Fraction) => Fraction} */
    const times = ([a, b], [c, d]) => exact(a * c, b * d);
    /** @type {(x: Fraction, y: Fraction) => Fraction} */
    const over = ([a, b], [c, d]) => exact(a * d, b * c);
    /** @type {(x: Fraction, y: Fraction) => -1 | 0 | 1} */
    const compare = ([a, b], [c, d]) => (a * d > c * b ? 1 : a * d < c * b ? -1 : 0);
    /** @type {(base: number | string, n: number) => Fraction} */
    const power = (base, n) => (n < 0 ? [1n, BigInt(base) ** BigInt(-n)] : [BigInt(base) ** BigInt(n), 1n]);
    /** @type {Fraction} */
    const ONE = [1n, 1n];
    /** @type {(n: number) => Fraction} */
    const integer = (n) => [BigInt(n), 1n];
    // How far `value` is from `key`, as a share of the key (for a key of 0: 1, or 0 for 0).
    /** @type {(value: Fraction, key: Fraction) => Fraction} */
    const offBy = ([a, b], [c, d]) =>
      c ? exact(a * d > c * b ? a * d - c * b : c * b - a * d, b * c) : [a ? 1n : 0n, 1n];
    /** @type {(value: Fraction, key: Fraction, share: Fraction) => boolean} */
    const within = (value, key, share) => compare(offBy(value, key), share) <= 0;

    /**
     * An exact value as the build writes it: digits, a decimal with an exponent, or "p/q".
     * @param {string} text
     * @returns {Fraction | null}
     */
    function parse(text) {
      const [top, bottom = "1"] = String(text).split("/");
      const [, whole, fraction = "", exponent = "0"] = /^([0-9]*)(?:\.([0-9]*))?(?:e([+-]?[0-9]+))?$/i.exec(top) ?? [];
      if (whole === undefined || !/^[0-9]+$/.test(bottom)) return null;
      return over(
        times([BigInt(whole + fraction || "0"), 10n ** BigInt(fraction.length)], power(10, Number(exponent))),
        [BigInt(bottom), 1n],
      );
    }

    /**
     * A positive number with `places` decimals at most, rounded half up, without trailing zeros: "5.4", "90".
     * @param {Fraction} value
     * @param {number} places
     */
    function rounded([n, d], places) {
      const digits = ((2n * n * 10n ** BigInt(places) + d) / (2n * d)).toString().padStart(places + 1, "0");
      return places ? `${digits.slice(0, -places)}.${digits.slice(-places)}`.replace(/\.?0+$/, "") : digits;
    }

    const grouped = (text) => text.replace(/^[0-9]+/, (digits) => digits.replace(/\B(?=([0-9]{3})+$)/g, ","));

    /**
     * A positive number to three significant digits, grouped by thousands: "14", "0.0014", "1,000,000".
     * @param {Fraction} value
     */
    function plain(value) {
      if (!value[0]) return "0";
      let tens = value[0].toString().length - value[1].toString().length;
      if (compare(value, power(10, tens)) < 0) tens -= 1;
      if (tens < 2) return grouped(rounded(value, 2 - tens));
      return grouped(`${rounded(over(value, power(10, tens - 2)), 0)}${"0".repeat(tens - 2)}`);
    }

    const SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹";
    const POWER = `(?:\\^|\\*\\*)([-−+]?[0-9]+)|(⁻?[${SUPERSCRIPTS}]+)`;
    const NUMBER = new RegExp(
      `^(?:(2|10)(?:${POWER})|([0-9]{1,3}(?:,[0-9]{3})+(?![0-9,])|[0-9]+(?:[ \\u00a0\\u2009\\u202f][0-9]{3}(?![0-9]))*|)(\\.[0-9]+)?(?:[eE]([+-]?[0-9]+))?(?:\\s*[×xX*·]\\s*(2|10)(?:${POWER}))?)`,
    );
    const DIVISOR = /^\/\s*([0-9]+(?:\.[0-9]+)?)/;
    const RANGE = /^([^0-9]*?)\s*(?:-|–|—|to(?=[\s.0-9]))\s*(?=\.?[0-9])/;
    const MAX_EXPONENT_DIGITS = 3;
    let table;

    // The table as written into the page, its sizes read exactly once.
    function loadTable() {
      const data = JSON.parse(document.getElementById("sbn-units").dataset.json);
      const sizes = (words) =>
        Object.fromEntries(Object.entries(words).map(([word, [size, bits]]) => [word, [parse(size), Boolean(bits)]]));
      for (const unit of Object.values(data.units)) {
        [unit.words, unit.exact] = [sizes(unit.words), sizes(unit.exact)];
        unit.names = unit.names.map(([size, name]) => [parse(size), name]);
      }
      // The characters a reader does not see, as runs of code points: one list, the build's (macros/data/invisible.py).
      const runs = data.invisible.map(([first, last]) => `\\u{${first.toString(16)}}-\\u{${last.toString(16)}}`);
      data.invisible = new RegExp(`[${runs.join("")}]`, "gu");
      data.multipliers = Object.entries(data.multipliers)
        .map(([word, size]) => [word, parse(size)])
        .sort(([a], [b]) => b.length - a.length || (a < b ? -1 : 1));
      return data;
    }

    const lookup = (unit, word) => own(unit.exact, word) || own(unit.words, word.toLowerCase());
    const multiplier = (word) => table.multipliers.find(([name]) => name === word.toLowerCase())?.[1];
    const sizeOne = ([size, bits]) => compare(bits ? times(size, [8n, 1n]) : size, ONE) === 0;

    // A unit as written: [size, counts bits] for a word, a multiplier, either before a word of size 1, or a
    // multiplier joined to a word of size 1 ("zettaFLOPs").
    function unitWord(written, unit) {
      const found = lookup(unit, written) || (multiplier(written) && [multiplier(written), false]);
      const cut = written.lastIndexOf(" ");
      if (found) return found;
      if (cut < 0) {
        const lower = written.toLowerCase();
        for (const [prefix, size] of table.multipliers) {
          const noun =
            lower.startsWith(prefix) && written.length > prefix.length && lookup(unit, written.slice(prefix.length));
          if (noun && sizeOne(noun)) return [times(size, noun[0]), noun[1]];
        }
        return null;
      }
      const [head, noun] = [written.slice(0, cut), lookup(unit, written.slice(cut + 1))];
      const [first, scale] = [lookup(unit, head), multiplier(head)];
      if (!noun || (!scale && (!first || compare(noun[0], ONE) !== 0))) return null;
      return [times(scale || first[0], noun[0]), noun[1]];
    }

    // The unit as compared: hyphens and spaces tidied, words that change nothing left out, "per second" as "/s".
    function normalized(rest) {
      let joined = rest
        .replace(/-/g, " ")
        .split(/\s+/)
        .filter(Boolean)
        .join(" ")
        .replace(/ ?\/ ?/g, "/");
      for (let round = 0; round < 2; round++) {
        const padded = ` ${joined}`;
        const tails = table.after.flatMap((words) =>
          words.startsWith("per ") ? [` ${words}`, `/${words.slice(4)}`] : [` ${words}`],
        );
        const tail = tails.find((end) => padded.toLowerCase().endsWith(end));
        if (!tail) break;
        joined = padded.slice(0, -tail.length).trim();
      }
      return joined.replace(/ per (second|sec|s)$/i, "/s");
    }

    // The answer without its working: asides in parentheses, and everything up to the last "=" or "≈".
    function withoutWorking(text) {
      const bare = text.replace(/\s*\([^()]*\)/g, "");
      const statements = (bare.trim() ? bare : text).split(/[=≈]/).filter((part) => part.trim());
      return statements.length ? statements[statements.length - 1].trim() : "";
    }

    function stripHedges(text) {
      for (let round = 0; round < 3; round++) {
        const hedge = table.hedges.find((h) => text.toLowerCase().startsWith(h));
        if (!hedge || (/[a-z]$/i.test(hedge) && /^[a-z]/i.test(text.slice(hedge.length)))) break;
        text = text.slice(hedge.length).trimStart();
      }
      return text;
    }

    const fromSuperscripts = (digits) => [...digits].map((c) => "0123456789-"[`${SUPERSCRIPTS}⁻`.indexOf(c)]).join("");
    const powerOf = (written, superscript) => (written ?? fromSuperscripts(superscript ?? "0")).replace("−", "-");
    const digitsOf = (exponent) => (exponent ?? "").replace(/^[+-]/, "").length;

    // The number at the start of `text`: { amount, number, word: the rest of the text }, or { problem }.
    function amountOf(text) {
      const [all, alone, written, superscript, whole, fraction = "", exponent, base, timesWritten, timesSuperscript] =
        NUMBER.exec(text);
      if (alone === undefined && !whole && !fraction) return { problem: "unreadable" };
      let rest = text.slice(all.length).trimStart();
      if (alone === undefined && /^,[0-9]/.test(rest)) {
        return { problem: "ambiguous", number: /^[0-9,.]*/.exec(text)[0] };
      }
      let number = all.trim();
      const ten = alone !== undefined ? powerOf(written, superscript) : powerOf(timesWritten, timesSuperscript);
      if (Math.max(digitsOf(ten), digitsOf(exponent)) > MAX_EXPONENT_DIGITS) return { problem: "out-of-range", number };
      const mantissa =
        alone !== undefined ? ONE : parse(`${whole.replace(/\D/g, "") || 0}${fraction}e${exponent ?? 0}`);
      let amount = times(mantissa, power(alone ?? base ?? 10, Number(ten)));
      const divisor = DIVISOR.exec(rest);
      if (divisor) {
        if (!parse(divisor[1])[0]) return { problem: "unreadable" };
        [amount, number, rest] = [
          over(amount, parse(divisor[1])),
          `${number}/${divisor[1]}`,
          rest.slice(divisor[0].length).trimStart(),
        ];
      }
      return { amount, number, word: rest };
    }

    // An amount in the key's base unit, with `written` as its unit.
    function inUnit(read, written, unitName, scale) {
      const word = normalized(written);
      const out = { ...read, word, bits: false };
      if (!word) return { ...out, value: times(read.amount, scale) };
      const size = unitWord(word, table.units[unitName]);
      if (size) return { ...out, value: times(read.amount, size[0]), bits: size[1] };
      const other = Object.keys(table.units).find((name) => name !== unitName && unitWord(word, table.units[name]));
      return { ...out, problem: other ? "wrong-unit" : "unknown-unit", other };
    }

    function readAnswer(typed, unitName, scale) {
      let text = typed.replace(table.invisible, "").trim();
      if (text.length > MAX_ANSWER) return { problem: "unreadable" };
      text = stripHedges(withoutWorking(text)).replace(/[\s.!]+$/, "");
      const negative = /^[-−–]/.test(text);
      text = text.replace(/^[-−–+]\s*/, "");
      const first = amountOf(text);
      if (first.problem) return first;
      if (negative && first.amount[0]) return { problem: "negative" };
      const span = RANGE.exec(first.word);
      if (!span) return inUnit(first, first.word, unitName, scale);
      const end = amountOf(first.word.slice(span[0].length));
      if (end.problem) return end;
      const high = inUnit(end, end.word, unitName, scale);
      const low = inUnit(first, span[1] || end.word, unitName, scale);
      const failed = [low, high].find((side) => side.problem);
      if (failed) return failed;
      const [bottom, top] = compare(low.value, high.value) <= 0 ? [low.value, high.value] : [high.value, low.value];
      return {
        ...high,
        value: bottom,
        high: top,
        number: `${first.number}–${end.number}`,
        bits: low.bits || high.bits,
        amount: null,
      };
    }

    // For a unit that counts bits or is another base unit's, the key's unit it is spelled like ("Gb" like GB).
    function meantUnit(read, unit) {
      if (!(read.bits || read.problem === "wrong-unit") || !read.amount) return null;
      const lower = read.word.toLowerCase();
      const entries = [...Object.entries(unit.exact), ...Object.entries(unit.words)].filter(([, [, bits]]) => !bits);
      const found = entries.find(([written]) => written.toLowerCase() === lower)?.[1];
      return found && [found[0], unit.names.find(([size]) => compare(size, found[0]) === 0)?.[1] ?? read.word];
    }

    // The steps of answers.judge: { kind, read, off, name, mistake }.
    function judge(answer, key, unitName, scale, share, mistakes) {
      const read = readAnswer(answer, unitName, scale);
      const meant = meantUnit(read, table.units[unitName]);
      if (
        meant &&
        within(times(read.amount, meant[0]), key, share) &&
        (read.problem || !within(read.value, key, share))
      ) {
        return { kind: "unit-meant", read, name: meant[1] };
      }
      if (read.problem) return { kind: read.problem, read };
      if (read.high) {
        const farther = [read.value, read.high].map((end) => offBy(end, key)).sort(compare)[1];
        const holds = compare(read.value, key) <= 0 && compare(key, read.high) <= 0;
        if (
          compare(farther, share) <= 0 ||
          (holds && compare(farther, times(share, integer(table.rangeSpread))) <= 0)
        ) {
          return { kind: "right", read, holds };
        }
        if (holds) return { kind: "range-wide", read };
        const above = compare(read.value, key) > 0;
        return { kind: above ? "too-high" : "too-low", read, nearer: above ? read.value : read.high };
      }
      if (within(read.value, key, share)) return { kind: "right", read };
      const bare =
        !read.word &&
        table.units[unitName].names.find(
          ([size]) => compare(size, scale) !== 0 && key[0] && within(times(read.amount, size), key, share),
        );
      if (bare) return { kind: "bare-other", read, name: bare[1] };
      const mistake = mistakes.findIndex((value) => within(read.value, value, share));
      if (mistake >= 0) return { kind: "mistake", read, mistake };
      return { kind: compare(read.value, key) > 0 ? "too-high" : "too-low", read, nearer: read.value };
    }

    // How far off, as the page says it: one decimal, more only where one would read as within the tolerance.
    function percentOff(off, share) {
      const limit = times(share, integer(100));
      for (let places = 1; places <= 3; places++) {
        const shown = rounded(times(off, integer(100)), places);
        if (compare(parse(shown), limit) > 0) return `${grouped(shown)}%`;
      }
      return `just over ${rounded(limit, 3)}%`;
    }

    // A verdict (answered) or a refusal to give one (not answered, nothing stored as tried).
    const refuse = (text) => ({ ok: false, answered: false, text });
    const wrong = (text) => ({ ok: false, answered: true, text: `✗ ${text}` });

    function checkNumeric(form, answer) {
      const { keyValue, keyUnit, keyScale, keySymbol, tolerance, tolerancePercent } = form.dataset;
      try {
        table ??= loadTable();
      } catch {
        return refuse("This page cannot check answers; open the answer to compare.");
      }
      const [key, scale, share, unit] = [parse(keyValue), parse(keyScale), parse(tolerance), table.units[keyUnit]];
      const slips = $$("[data-mistake-value]", form);
      const verdict = judge(
        answer,
        key,
        keyUnit,
        scale,
        share,
        slips.map((slip) => parse(slip.dataset.mistakeValue)),
      );
      const { read } = verdict;
      const other = table.units[read.other];
      const bits = read.bits
        ? ` (“${read.word}” ${table.bits}: ${read.number} ${read.word} is ${plain(over(read.value, scale))} ${keySymbol}.)`
        : "";
      switch (verdict.kind) {
        case "unreadable":
          return refuse(
            keyUnit === "1" && !keySymbol
              ? "Write a number, such as 1.5, 3/2 or 2^-8."
              : `Write a number, with its unit, such as 3 ${keySymbol || unit.example.split(" ")[0]}.`,
          );
        case "out-of-range":
          return refuse(
            `“${read.number}” is out of the range this page reads: write each exponent with three digits at most.`,
          );
        case "ambiguous":
          return refuse(
            `Is “${read.number}” a decimal? Write it with a point, as in ${read.number.replace(",", ".")}: a comma only groups thousands, by three.`,
          );
        case "negative":
          return refuse(
            `${unit.measures[0].toUpperCase()}${unit.measures.slice(1)} is never negative: write it without the minus sign.`,
          );
        case "unit-meant":
          return refuse(
            read.problem
              ? `Did you mean ${verdict.name}? “${read.word}” is ${other.measures}, and this answer is ${unit.measures}: write ${read.number} ${verdict.name}.`
              : `Did you mean ${verdict.name}? “${read.word}” ${table.bits}: ${read.number} ${read.word} is ${plain(over(read.value, scale))} ${keySymbol}. If you meant ${verdict.name}, write ${read.number} ${verdict.name}.`,
          );
        case "wrong-unit":
          return wrong(`Wrong unit: “${read.word}” is ${other.measures}, and this answer is ${unit.measures}.`);
        case "unknown-unit":
          return wrong(`Unknown unit “${read.word}”: try ${unit.example}.`);
        case "right":
          return {
            ok: true,
            answered: true,
            text: `✓ Correct: ${verdict.holds ? "the key lies in your range" : `within ${tolerancePercent}% of the key`}.${bits}`,
          };
        case "bare-other":
          return refuse(
            `Did you mean ${verdict.name}? A bare number counts as ${keySymbol} here; write the unit, as in ${read.number} ${verdict.name}.`,
          );
        case "range-wide":
          return refuse(
            `The key lies in your range, but the range is wide: give one number (within ${tolerancePercent}% counts), or a range whose ends are both within ${rounded(times(share, integer(100 * table.rangeSpread)), 3)}% of it.`,
          );
        case "mistake":
          return wrong(
            `Not quite: ${slips[verdict.mistake].textContent.replace(/\s+/g, " ").trim()} Try again, or open the answer.`,
          );
      }
      const ratio = over(verdict.nearer, key);
      const how =
        compare(ratio, integer(10)) >= 0
          ? `about ${plain(ratio)} times too high`
          : compare(ratio, [1n, 10n]) <= 0 && ratio[0]
            ? `about ${plain(over(ONE, ratio))} times too low`
            : `${verdict.kind === "too-high" ? "too high" : "too low"}, by ${percentOff(offBy(verdict.nearer, key), share)}`;
      return wrong(
        `Not quite: ${how}${read.high ? " at the range's nearer end" : ""}. Try again, or open the answer.${bits}`,
      );
    }

    window.sbnAnswers = { check: checkNumeric };
  }
  document.dispatchEvent(new Event("sbn:answers"));
})();
