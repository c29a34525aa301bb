// One colour per channel category, the same on every chart (solar is always yellow, the grid
// always slate), so a person reads a series by its colour across the whole dashboard.

/** Channel category id → colour (ids as the service lists them: 1 Grid connect, 5 Solar generation…). */
export const CATEGORY_COLOURS: Readonly<Record<number, string>> = {
  1: '#5b6770', // Grid connect
  2: '#3b7dd8', // Lighting & Power
  3: '#17a2b8', // Pool pump
  4: '#20c997', // Air conditioning
  5: '#f2b701', // Solar generation
  6: '#e8590c', // Hot water
  7: '#8e44ad', // Electric vehicle
  8: '#2f9e44', // Battery
  9: '#a0522d', // Oven
  10: '#c0ca33', // Lighting
  11: '#1864ab', // Power
  12: '#f08c00', // Hybrid solar & battery system
};

/** For channels with no category (or phase groups): colours none of the categories use. */
const SPARE = ['#d63384', '#6f42c1', '#0ca678', '#868e96', '#fd7e14', '#495057', '#74c0fc', '#ffa8a8'];

/**
 * The colour of a series; `used` collects the chart's colours so far, and a second channel of the
 * same category gets a lighter shade rather than the same colour.
 */
export function colourFor(categoryId: number | undefined, index: number, used: string[]): string {
  const base = categoryId !== undefined ? CATEGORY_COLOURS[categoryId] : undefined;
  let colour = base ?? SPARE.find((c) => !used.includes(c)) ?? SPARE[index % SPARE.length];
  for (let step = 1; used.includes(colour) && step < 6; step += 1) colour = lighten(base ?? colour, step * 0.18);
  used.push(colour);
  return colour;
}

function lighten(hex: string, amount: number): string {
  const n = parseInt(hex.slice(1), 16);
  const mix = (c: number): number => Math.round(c + (255 - c) * amount);
  const rgb = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map(mix);
  return `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}
