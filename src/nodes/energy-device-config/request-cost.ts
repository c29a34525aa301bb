import { CONFIRMATION_POLLS, declareRequestCost } from '../shared/request-cost.js';

/** A PATCH, and the reads until the device confirms when the node waits for it. */
declareRequestCost('energy-device-config', { perTrigger: (node) => 1 + (node.waitForPending === true ? CONFIRMATION_POLLS : 0) });
