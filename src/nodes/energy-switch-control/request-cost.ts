import { CONFIRMATION_POLLS, declareRequestCost } from '../shared/request-cost.js';

/** A PATCH and the reads until the device confirms. */
declareRequestCost('energy-switch-control', { perTrigger: () => 1 + CONFIRMATION_POLLS });
