import { EnergyApiError } from '../../api/index.js';
import { describeType, describeValue } from '../../domain/describe-value.js';

export { describeValue };

/**
 * Checks run on every input before a node reads, clones or serialises anything of it.
 * Node-RED itself deep-clones a msg (recursively) to hand it to Catch and Complete nodes and to
 * second wires, so a msg nested thousands of levels deep would overflow the stack there, after the
 * node is done with it. Such a property is replaced by a short note and the msg refused.
 */

/** Deeper than any real payload; far below what a recursive clone survives. */
export const MAX_MSG_DEPTH = 100;
/** Values looked at per msg: a bound on the cost of the check, not on the msg. */
const WALK_BUDGET = 200_000;

/** Throws (after replacing the offending property) when some msg property is nested too deep. */
export function guardMessage(msg: Record<string, unknown>): void {
  let budget = WALK_BUDGET;
  const tooDeep: string[] = [];
  for (const key of Object.keys(msg)) {
    if (key === 'req' || key === 'res') continue; // Node-RED's HTTP objects: never cloned deeply.
    // Per property: an object shared by two properties must be judged under each of them.
    const seen = new Set<object>();
    const stack: Array<[unknown, number]> = [[msg[key], 1]];
    while (stack.length > 0 && budget > 0) {
      const [value, depth] = stack.pop() as [unknown, number];
      budget -= 1;
      if (typeof value !== 'object' || value === null || seen.has(value) || ArrayBuffer.isView(value)) continue;
      if (depth > MAX_MSG_DEPTH) {
        tooDeep.push(key);
        break;
      }
      seen.add(value);
      const children = Array.isArray(value) ? value : Object.values(value);
      for (const child of children) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  if (tooDeep.length === 0) return;
  for (const key of tooDeep) msg[key] = `[removed: nested more than ${MAX_MSG_DEPTH} levels deep]`;
  const names = tooDeep.map((key) => `msg.${safeKey(key)}`).join(', ');
  throw EnergyApiError.invalid(`${names} ${tooDeep.length > 1 ? 'are' : 'is'} nested more than ${MAX_MSG_DEPTH} levels deep: send flatter data`);
}

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Far beyond any field of a device (6 channels, 3 switches, labels of tens of characters): a bound on checking cost. */
const MAX_DATA_ITEMS = 1000;
const MAX_DATA_TEXT = 10_000;

/**
 * A plain object the node sends on (a PATCH body, WiFi credentials): no cycles, BigInts, functions,
 * symbols or prototype keys anywhere in it, so that it serialises as the user wrote it.
 */
export function assertPlainData(value: unknown, name: string): void {
  const onPath = new Set<object>();
  const visit = (v: unknown, path: string, depth: number): void => {
    if (depth > MAX_MSG_DEPTH) throw EnergyApiError.invalid(`${name} is nested more than ${MAX_MSG_DEPTH} levels deep`);
    if (typeof v === 'bigint') throw EnergyApiError.invalid(`${path} is a BigInt: send a number or text`);
    if (typeof v === 'function' || typeof v === 'symbol') throw EnergyApiError.invalid(`${path} is a ${typeof v}: send JSON data`);
    if (typeof v === 'string' && v.length > MAX_DATA_TEXT) throw EnergyApiError.invalid(`${path} is ${v.length} characters long: no field of the API takes more than ${MAX_DATA_TEXT}`);
    if (typeof v !== 'object' || v === null) return;
    if (onPath.has(v)) throw EnergyApiError.invalid(`${path} refers to itself (a circular structure): send JSON data`);
    if (!Array.isArray(v) && !isPlainObject(v)) throw EnergyApiError.invalid(`${path} is not plain JSON data (${describeType(v)})`);
    const size = Array.isArray(v) ? v.length : Object.keys(v).length;
    if (size > MAX_DATA_ITEMS) throw EnergyApiError.invalid(`${path} has ${size} items: no field of the API takes more than ${MAX_DATA_ITEMS}`);
    onPath.add(v);
    for (const [key, child] of Object.entries(v)) {
      if (PROTOTYPE_KEYS.has(key)) throw EnergyApiError.invalid(`${path} has a "${key}" key, which is never a field of the API`);
      visit(child, Array.isArray(v) ? `${path}[${key}]` : `${path}.${safeKey(key)}`, depth + 1);
    }
    onPath.delete(v);
  };
  visit(value, name, 0);
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

function safeKey(key: string): string {
  return key.length > 40 ? `${key.slice(0, 40)}…` : key;
}
