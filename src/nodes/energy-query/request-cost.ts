import { GRANULARITIES, planLongRanges, planShortRanges, type Granularity } from '../../api/index.js';
import { declareRequestCost, spanRequests } from '../shared/request-cost.js';

declareRequestCost('energy-query', {
  perTrigger: (node, { nowMs }) => {
    if (node.query === 'first' || node.query === 'latest') return 1;
    const granularity = (GRANULARITIES as readonly string[]).includes(String(node.granularity)) ? (node.granularity as Granularity) : '5m';
    // Follow re-reads only the catch-up window before its cursor.
    const hours = node.catchUp === undefined || node.catchUp === '' ? 6 : Number(node.catchUp) || 0;
    const read = node.follow === true ? { ...node, fromTs: `-${Math.max(1, Math.ceil(hours)) * 60 + 5}m`, toTs: 'now' } : node;
    return node.kind === 'long'
      ? spanRequests(read, nowMs, '-1h', (f, t, n) => planLongRanges(f, t, granularity, 'UTC', n).length)
      : spanRequests(read, nowMs, '-1h', (f, t, n) => planShortRanges(f, t, n).length);
  },
  // One message per entry: as many as the data has, not a schedule (a threshold decides what follows).
  unscheduledOutput: (node) => node.output === 'split' || node.follow === true,
});
