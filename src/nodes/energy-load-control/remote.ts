import type { EnergyApiClient } from '../../api/index.js';
import { loadControlRegistry, type LoadControlReport, type OverrideChoice } from '../shared/load-control-registry.js';
import type { LoadCommand } from './command.js';
import type { Evaluation, LoadMemory } from '../../domain/site/types.js';

export interface LoadIdentity {
  nodeId: string;
  name: string;
  mode: string;
  deviceId: string;
  switchDeviceId: string;
  switchId: string;
}

export interface RemoteHandle {
  /** After each evaluation the node carried out. */
  evaluated(evaluation: Evaluation): void;
  /** The override changed outside an evaluation. */
  changed(): void;
  remove(): void;
}

/**
 * Shows the node to the other nodes of its key (energy-mqtt's override select and reason sensor), and
 * lets them set its override through the same command path as a msg.
 */
export function shareLoadControl(client: EnergyApiClient, ids: LoadIdentity, memory: () => LoadMemory, run: (command: LoadCommand) => Promise<void>): RemoteHandle {
  let last: LoadControlReport | undefined;
  const registration = loadControlRegistry(client).add({
    ...ids,
    override: (): OverrideChoice => memory().override?.state ?? 'auto',
    report: () => last,
    setOverride: (choice) => run(choice === 'auto' ? { kind: 'auto' } : { kind: 'override', override: { state: choice } }),
  });
  return {
    evaluated(evaluation) {
      const m = memory();
      last = {
        reason: evaluation.reason,
        state: m.pending?.target ?? m.state ?? null,
        pending: Boolean(m.pending) || evaluation.pending,
        signal: evaluation.signal,
        onAt: evaluation.onAt,
        offAt: evaluation.offAt,
        holdLeftS: evaluation.holdLeftS,
        at: evaluation.at,
      };
      registration.changed();
    },
    changed: registration.changed,
    remove: registration.remove,
  };
}
