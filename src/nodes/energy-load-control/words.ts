// What every output names and the words of the status: types shared by the node's reports.
import type { SunBasis } from '../../domain/planning/sun.js';
import type { Reason } from '../../domain/site/types.js';

/** Fields every output message carries, so a flow knows which load spoke. */
export interface LoadIds {
  topic: string;
  deviceId: string;
  switchDeviceId: string;
  switchId: string;
  mode: string;
}

/** Words of the status, from the node's message catalogue: a reason, or override/hold/dryRun. */
export type StatusWords = (key: Reason | SignalWord | 'override' | 'hold' | 'dryRun' | 'short' | 'next' | 'waitingForSlots' | 'pricesRefused' | 'unconfirmedShort' | 'confirmBy_feedback' | 'confirmBy_draw' | 'confirmBy_time' | 'saved' | `sun_${SunBasis}`, values?: Record<string, string>) => string;
export type SignalWord = 'signalSurplus' | 'signalDeficit' | 'signalImport' | 'signalExport';

