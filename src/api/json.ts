/**
 * JSON bodies parsed without blocking the event loop: a page of a year read is about 1 MB of JSON
 * (15–20 ms in one JSON.parse), and several pages often arrive together. A large top-level array
 * is parsed a slice of elements at a time, with a turn of the event loop between slices.
 */

export type Parsed = { ok: true; value: unknown } | { ok: false };

/** Bodies shorter than this are parsed in one go (well under a millisecond). */
const BIG_TEXT = 64 * 1024;
/** Bytes of array elements parsed per turn: about a millisecond of JSON.parse. */
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

/** Large bodies waiting to be parsed: one at a time, so the young generation holds one partly built page, not several. */
let parsing: Promise<unknown> = Promise.resolve();

/**
 * As parseJson, for a body as text or as the bytes received (UTF-8): a large top-level array is
 * parsed a slice of elements at a time, with a turn of the event loop between slices. Bytes are
 * best: the body then never becomes one big string on the heap, only slices that die young.
 */
export function parseJsonInTurns(body: unknown): Promise<Parsed> {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body instanceof Uint8Array ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : undefined;
  if (!bytes) return Promise.resolve({ ok: false });
  if (bytes.length < BIG_TEXT) return Promise.resolve(parseJson(bytes.toString('utf8')));
  const parsed = parsing.then(() => parseInSlices(bytes));
  parsing = parsed.then(() => undefined, () => undefined);
  return parsed;
}

async function parseInSlices(bytes: Buffer): Promise<Parsed> {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const open = firstNonSpace(bytes, start);
  if (bytes[open] !== OPEN_BRACKET) return parseJson(bytes.toString('utf8', start));
  const values: unknown[] = [];
  const scan: ScanState = { at: open + 1, depth: 0, inString: false };
  for (let sliceStart = open + 1; ;) {
    const end = nextBoundary(bytes, scan, sliceStart + SLICE_CHARS);
    if (end < 0) return { ok: false };
    const last = bytes[end] === CLOSE_BRACKET;
    if (!parseSlice(bytes, sliceStart, end, values, sliceStart === open + 1 && last)) return { ok: false };
    if (last) return firstNonSpace(bytes, end + 1) === bytes.length ? { ok: true, value: values } : { ok: false };
    sliceStart = end + 1;
    await nextTurn();
  }
}

interface ScanState {
  at: number;
  depth: number;
  inString: boolean;
}

/**
 * From `state.at`, the index of the array's closing bracket or of the first top-level comma at or
 * after `minEnd` (-1 when the text ends first). UTF-8 never puts these ASCII bytes inside a
 * multi-byte character, so a byte scan is exact. A small synchronous loop, so it is compiled hot.
 */
function nextBoundary(bytes: Buffer, state: ScanState, minEnd: number): number {
  let { depth, inString } = state;
  for (let i = state.at; i < bytes.length; i++) {
    const c = bytes[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth === 0 && c === CLOSE_BRACKET) return stop(state, i, depth, inString);
      if (depth > 0) depth--;
    } else if (c === COMMA && depth === 0 && i >= minEnd) {
      return stop(state, i, depth, inString);
    }
  }
  return -1;
}

function stop(state: ScanState, at: number, depth: number, inString: boolean): number {
  state.at = at + 1;
  state.depth = depth;
  state.inString = inString;
  return at;
}

/**
 * Appends the elements between `from` and `to` (elements separated by commas) to `values`. The
 * separators around them become "[" and "]" for the moment of the parse, so the slice is decoded
 * once, as an array, with no copy to add brackets.
 */
function parseSlice(bytes: Buffer, from: number, to: number, values: unknown[], whole: boolean): boolean {
  let blank = true;
  for (let i = from; i < to && blank; i++) blank = bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d;
  // Only the whole array may be empty ("[ ]"); an empty slice after a comma is a trailing comma.
  if (blank) return whole;
  const before = bytes[from - 1];
  const after = bytes[to];
  bytes[from - 1] = OPEN_BRACKET;
  bytes[to] = CLOSE_BRACKET;
  try {
    const parsed = JSON.parse(bytes.toString('utf8', from - 1, to + 1)) as unknown[];
    for (const value of parsed) values.push(value);
    return true;
  } catch {
    return false;
  } finally {
    bytes[from - 1] = before;
    bytes[to] = after;
  }
}

/** JSON whitespace: space, tab, line feed, carriage return. */
function firstNonSpace(bytes: Buffer, from: number): number {
  let i = from;
  while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i += 1;
  return i;
}
