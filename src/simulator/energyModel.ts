/** Small shared helpers of the energy endpoints: rounding and the mains frequency. */

export const round = (x: number, decimals: number): number => {
  const f = 10 ** decimals;
  return Math.round(x * f) / f;
};

export function frequencyAt(t: number): number {
  return round(50 + 0.04 * Math.sin((2 * Math.PI * (t % 917)) / 917) + 0.02 * Math.sin((2 * Math.PI * (t % 131)) / 131), 3);
}
