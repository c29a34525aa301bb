import { fillMissing, numbersFromText, steps, type Migration } from '../shared/migrations.js';

/**
 * Saved-config upgrades of `energy-load-control`, oldest first (see src/nodes/shared/migrations.ts).
 * Version 1: the first release's shape, with what an early flow may lack filled in with its defaults and numbers saved as numbers.
 * Version 2: the run target's properties (runFor 0: no target).
 * Version 3: the actuator (a saved node drives the device's relay, as before).
 * Version 4: modulating loads (a saved node switches its load on and off, as before).
 */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    up: steps(
      fillMissing({ switchDeviceId: '', mode: 'surplus', channels: '', loadChannel: '', loadPower: 0, margin: 200, window: 300, minOn: 300, minOff: 300, maxOff: 0, priority: 1, staleAfter: 600, failSafe: 'hold', dryRun: false, interval: 30 }),
      numbersFromText(['loadPower', 'onAbove', 'offBelow', 'margin', 'limit', 'window', 'minOn', 'minOff', 'maxOff', 'priority', 'staleAfter', 'interval']),
    ),
  },
  // Version 2: run targets planned on price and sun (issue 17); a saved node has none and decides as before.
  {
    version: 2,
    up: steps(
      fillMissing({ runFor: 0, by: '', minBlock: 1800, maxPrice: '', cheapBelow: '', tariff: '' }),
      numbersFromText(['runFor', 'minBlock']),
    ),
  },
  // Version 3: loads switched by the flow; a saved node keeps its relay.
  {
    version: 3,
    up: steps(
      fillMissing({ actuator: 'device', commandForm: 'onoff', confirmBy: 'feedback', confirmAfter: 30 }),
      numbersFromText(['confirmAfter']),
    ),
  },
  // Version 4: modulating loads (control power, a setpoint on output 1); a saved node switches on and off.
  {
    version: 4,
    up: steps(
      fillMissing({ control: 'onoff', minCurrent: 6, maxCurrent: 16, phases: 1, voltage: 230, minPower: '', maxPower: '', step: '', enableDelay: 60, disableDelay: 180, gridAllowance: 0, minInterval: 60, energyTarget: 0 }),
      numbersFromText(['minCurrent', 'maxCurrent', 'phases', 'voltage', 'enableDelay', 'disableDelay', 'gridAllowance', 'minInterval', 'energyTarget']),
    ),
  },
];
