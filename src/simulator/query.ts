/** Query-string parsing that keeps '+' literal (a client may send `fields[energy]=+pf` unencoded). */
import { badRequest, unprocessable } from './errors.js';

/** Parameter name → every value sent for it (names are case-sensitive). */
export type QueryParams = ReadonlyMap<string, string[]>;

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function parseQuery(search: string): Map<string, string[]> {
  const params = new Map<string, string[]>();
  const raw = search.startsWith('?') ? search.slice(1) : search;
  if (raw === '') return params;
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? '' : decode(part.slice(eq + 1));
    const values = params.get(name) ?? [];
    values.push(value);
    params.set(name, values);
  }
  return params;
}

/** The single value of a parameter; a repeated parameter is a malformed request. */
export function single(params: QueryParams, name: string): string | undefined {
  const values = params.get(name);
  if (values === undefined) return undefined;
  if (values.length > 1) throw badRequest(`The ${name} value must be specified only once`);
  return values[0];
}

/** An optional integer timestamp parameter (unix seconds). */
export function timestampParam(params: QueryParams, name: 'fromTs' | 'toTs'): number | undefined {
  const value = single(params, name);
  if (value === undefined) return undefined;
  if (value.trim() === '') throw badRequest(`The ${name} value must be specified`);
  if (!/^-?\d+$/.test(value)) throw badRequest(`The ${name} value must be an integer number of seconds`);
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw badRequest(`The ${name} value must be an integer number of seconds`);
  return n;
}

/** Checks fromTs/toTs after defaults were applied. */
export function checkRange(fromTs: number, toTs: number): void {
  if (fromTs < 0 || toTs < 0 || fromTs >= toTs) throw unprocessable('The provided fromTs or toTs value was invalid');
}
