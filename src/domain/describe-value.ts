/** What a value is, for an error message: short, and never a call into the value's own code. */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value.length > 40 ? `"${value.slice(0, 40)}…" (${value.length} characters)` : JSON.stringify(value);
    case 'number':
    case 'boolean':
    case 'undefined':
      return String(value);
    case 'bigint':
      return `${value}n (a BigInt)`;
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    default:
      return value === null ? 'null' : describeType(value as object);
  }
}

export function describeType(value: object): string {
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'an invalid Date' : 'a Date';
  const proto = Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null;
  const name = proto && typeof proto.constructor?.name === 'string' ? proto.constructor.name : '';
  return name && name !== 'Object' ? `a ${name}` : 'an object';
}
