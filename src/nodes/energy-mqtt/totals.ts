// The totals' arithmetic lives in the domain floor (the history import uses it too).
export * from '../../domain/site/energy-totals.js';
