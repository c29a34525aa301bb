import { declareRequestCost } from '../shared/request-cost.js';

/** On the energy API's budget: one 5-minute long-energy read a day when it calibrates (its source has its own limit). */
declareRequestCost('energy-forecast', { perDay: (node) => (node.calibrate === true ? 1 : 0) });
