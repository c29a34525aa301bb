import { planModbusRanges } from '../../api/index.js';
import { declareRequestCost, spanRequests } from '../shared/request-cost.js';

declareRequestCost('energy-modbus-read', {
  perTrigger: (node, { nowMs }) =>
    node.query === 'first' || node.query === 'latest' ? 1 : spanRequests(node, nowMs, '-24h', (f, t, n) => planModbusRanges(f, t, n).length),
});
