/** Stateless seeded noise: the same inputs always give the same number, in any order of calls. */

function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform number in [0, 1) from a seed and up to three integers. */
export function noise(seed: number, a: number, b = 0, c = 0): number {
  let h = mix(seed ^ 0x9e3779b9);
  h = mix(h ^ (a | 0) ^ Math.imul((a / 4294967296) | 0, 0x27d4eb2d));
  h = mix(h ^ Math.imul(b | 0, 0x165667b1));
  h = mix(h ^ Math.imul(c | 0, 0x61c88647));
  return h / 4294967296;
}

/** A stable 32-bit number for a string (device ids). */
export function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix(h);
}

export const between = (u: number, lo: number, hi: number): number => lo + u * (hi - lo);
