import { CONFIRMATION_POLLS, declareRequestCost } from '../shared/request-cost.js';

/** A PATCH and the reads until the device confirms. */
declareRequestCost('energy-wifi-config', { perTrigger: () => 1 + CONFIRMATION_POLLS });
