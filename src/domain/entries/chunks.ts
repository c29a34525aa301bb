/**
 * Big results are handled a slice at a time with a turn of the event loop between slices, so a year
 * of 5-minute entries (105,120) never blocks Node-RED in one synchronous pass.
 */

/** Entries per slice: a few milliseconds of work each. */
export const SLICE = 500;

export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Calls `work` on consecutive slices of `items`; stops early (returns false) once `stopped()` says so. */
export async function inSlices<T>(items: readonly T[], work: (slice: readonly T[]) => void, stopped: () => boolean, size = SLICE): Promise<boolean> {
  for (let start = 0; start < items.length; start += size) {
    if (start > 0) await nextTurn();
    if (stopped()) return false;
    work(items.slice(start, start + size));
  }
  return true;
}
