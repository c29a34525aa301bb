import type { NodeAPI } from 'node-red';

import type { Now } from '../../domain/clock.js';

export type { Now };

/**
 * The clock of the package's nodes: the wall clock, unless Node-RED's settings give
 * `energyApi: { now: () => ms }`. Tests and accelerated simulations use it to put the nodes on the
 * simulator's clock, so that what a node decides never depends on the day the test runs.
 */
export function nodeClock(RED: NodeAPI): Now {
  const settings = RED.settings as unknown as { energyApi?: { now?: unknown } };
  const configured = settings.energyApi?.now;
  if (typeof configured !== 'function') return Date.now;
  return () => Number((configured as () => unknown)());
}
