import { DAY_S, declareRequestCost } from '../shared/request-cost.js';

/** A status read: 1 request, or the device list and one read per device ("every device"); its own polling besides. */
declareRequestCost('energy-device-status', {
  perTrigger: (node, options) => (node.mode === 'devices' ? 1 + Math.max(1, options.deviceCount ?? 1) : 1),
  ownPollsPerDay: (node) => {
    const interval = Number(node.interval);
    return Number.isFinite(interval) && interval > 0 ? DAY_S / Math.max(interval, 5) : 0;
  },
  // Its own polling reads its own device; "every device" reads them all in one trigger already.
  devicesPerTrigger: (node) => (node.mode === 'devices' ? 1 : undefined),
});
