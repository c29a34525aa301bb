/**
 * JSON bodies parsed without blocking the event loop: a page of a year read is about 1 MB of JSON
 * (15–20 ms in one JSON.parse), and several pages often arrive together. A large top-level array
 * is parsed a slice of elements at a time, with a turn of the event loop between slices.
 */

export type Parsed = { ok: true; value: unknown } | { ok: false };

/** Texts shorter than this are parsed in one go (well under a millisecond). */
const BIG_TEXT = 64 * 1024;
/** Characters of array elements parsed per turn: about a millisecond of JSON.parse. */
const SLICE_CHARS = 48 * 1024;

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export function parseJson(text: unknown): Parsed {
  if (typeof text !== 'string' || text.trim() === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Large texts waiting to be parsed: one at a time, so the young generation holds one partly built page, not several. */
let parsing: Promise<unknown> = Promise.resolve();

/** As parseJson, giving the event loop a turn between slices of a large top-level array. */
export function parseJsonInTurns(text: unknown): Promise<Parsed> {
  if (typeof text !== 'string' || text.length < BIG_TEXT) return Promise.resolve(parseJson(text));
  const parsed = parsing.then(() => parseInSlices(text));
  parsing = parsed.then(() => undefined, () => undefined);
  return parsed;
}

async function parseInSlices(text: string): Promise<Parsed> {
  const open = firstNonSpace(text, 0);
  if (text.charCodeAt(open) !== OPEN_BRACKET) return parseJson(text);
  const values: unknown[] = [];
  let depth = 0;
  let inString = false;
  let sliceStart = open + 1;
  for (let i = open + 1; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
      continue;
    }
    if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth += 1;
    else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > 0) depth -= 1;
    else if (depth === 0 && ((c === COMMA && i - sliceStart >= SLICE_CHARS) || c === CLOSE_BRACKET)) {
      if (!parseSlice(text.slice(sliceStart, i), values, sliceStart === open + 1 && c === CLOSE_BRACKET)) return { ok: false };
      if (c === CLOSE_BRACKET) return firstNonSpace(text, i + 1) === text.length ? { ok: true, value: values } : { ok: false };
      sliceStart = i + 1;
      await nextTurn();
    }
  }
  return { ok: false };
}

/** Appends the elements of `slice` (elements separated by commas, no brackets) to `values`. */
function parseSlice(slice: string, values: unknown[], whole: boolean): boolean {
  // Only the whole array may be empty ("[ ]"); an empty slice after a comma is a trailing comma.
  if (slice.trim() === '') return whole;
  try {
    const parsed = JSON.parse(`[${slice}]`) as unknown[];
    for (const value of parsed) values.push(value);
    return true;
  } catch {
    return false;
  }
}

function firstNonSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i])) i += 1;
  return i;
}
