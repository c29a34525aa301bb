// Money as integers: prices and costs in micro-units of the currency (1 AUD = 1 000 000), so sums
// never drift the way 0.1 + 0.2 does in floating point.
import { PriceError } from '../../api/index.js';

export const MICROS_PER_UNIT = 1_000_000;
const JOULES_PER_KWH = 3_600_000n;

/** A decimal price ("0.2875", 0.2875, "-0.05" for negative spot prices) to integer micro-units; at most 6 decimals. */
export function parseMicros(value: unknown): number {
  const text = typeof value === 'number' ? numberText(value) : String(value ?? '').trim();
  const m = /^(-)?(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m || (m[2] === '' && !m[3])) throw new PriceError(`"${text.slice(0, 20)}" is not a price (use a number such as 0.2875)`);
  const decimals = m[3] ?? '';
  if (decimals.length > 6) throw new PriceError(`"${text.slice(0, 20)}" has more than 6 decimals`);
  const micros = Number(m[2] || '0') * MICROS_PER_UNIT + Number(decimals.padEnd(6, '0'));
  if (!Number.isSafeInteger(micros)) throw new PriceError(`"${text.slice(0, 20)}" is too large`);
  return m[1] && micros !== 0 ? -micros : micros;
}

function numberText(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  // 6 decimals are the precision kept; toFixed avoids exponent notation of small numbers.
  return value.toFixed(6).replace(/\.?0+$/, '') || '0';
}

/** Micro-units to currency units as a number (exact to 6 decimals as printed). */
export function fromMicros(micros: number | bigint): number {
  return Number(micros) / MICROS_PER_UNIT;
}

/** Joules × (micro-units per kWh): the exact cost numerator in micro-units × 3.6e6. */
export function costNumerator(joules: number, microsPerKwh: number): bigint {
  return BigInt(joules) * BigInt(microsPerKwh);
}

/** The cost numerator rounded to whole micro-units (half away from zero). */
export function roundCost(numerator: bigint): number {
  return Number(divRound(numerator, JOULES_PER_KWH));
}

/** a / b rounded half away from zero, b > 0. */
export function divRound(a: bigint, b: bigint): bigint {
  const q = a / b;
  const r = a % b;
  if (2n * (r < 0n ? -r : r) >= b) return a < 0n ? q - 1n : q + 1n;
  return q;
}
