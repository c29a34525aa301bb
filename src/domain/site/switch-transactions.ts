import { EnergyApiError, isEnergyApiError, type Device, type EnergyApiClient, type SwitchState, type CallOptions } from '../../api/index.js';
import type { Now } from '../clock.js';
import { abortError, DevicePoller, timerSleep } from './device-poller.js';
import { isConfirmed, type SwitchCommand } from './switch-command.js';
import { SwitchLane, type JobOutcome } from './switch-lane.js';

/** What a node lends its switch transactions: its client, call options (aborted on close), clock and timers. */
export interface TransactionHost {
  client(): EnergyApiClient;
  call: CallOptions & { signal: AbortSignal };
  now: Now;
  setTimer(fn: () => void, ms: number): NodeJS.Timeout;
  clearTimer(timer: NodeJS.Timeout): void;
  /** A command starts going to the device. */
  onSending(switchId: string, target: SwitchState): void;
  /** A write whose answer was lost may or may not have been applied: the poll that follows tells. */
  warnUncertain(reason: string): void;
}

/**
 * The switch transactions of one node: a fresh read before each command (shared by concurrent
 * commands, never closer than the poll spacing), one lane per switch (one change in flight, newer
 * commands coalesced), and one poller per device until the device confirms or the timeout passes.
 * energy-switch-control and energy-mqtt both switch through it.
 */
export class SwitchTransactions {
  private readonly poller: DevicePoller;
  private readonly lanes = new Map<string, SwitchLane>();

  constructor(
    private readonly host: TransactionHost,
    private readonly timeoutMs: number,
  ) {
    const sleep = timerSleep((fn, ms) => host.setTimer(fn, ms), (t) => host.clearTimer(t));
    this.poller = new DevicePoller(() => host.client(), sleep, host.call, host.now);
  }

  /**
   * A fresh read, unless the device was read within the poll spacing by any node on the key or is being
   * polled: then the client's copy (refreshed by every poll and write) is that fresh. Concurrent msgs share one read.
   */
  async readDevice(client: EnergyApiClient, deviceId: string): Promise<Device> {
    const laneBusy = [...this.lanes.values()].some((l) => l.deviceId === deviceId && !l.idle);
    if (this.poller.busy(deviceId) || laneBusy) return client.knownDevice(deviceId, { ...this.host.call, priority: 'interactive' });
    return (await client.pollDevice(deviceId, { ...this.host.call, priority: 'interactive' })).device;
  }

  /** Sends `command` for the switch of `device` (as just read) through its lane. */
  submit(client: EnergyApiClient, deviceId: string, switchId: string, command: SwitchCommand, device: Device): Promise<JobOutcome> {
    return this.laneFor(client, deviceId, switchId).submit(command, device);
  }

  /** True while a command for this switch is in flight. */
  busy(switchId: string): boolean {
    return this.lanes.get(switchId)?.idle === false;
  }

  /** The node closes: waiting commands end with ABORTED; the ones in flight end through their aborted waits. */
  abandon(): void {
    for (const lane of this.lanes.values()) lane.abandon(abortError());
    this.lanes.clear();
  }

  private laneFor(client: EnergyApiClient, deviceId: string, switchId: string): SwitchLane {
    const existing = this.lanes.get(switchId);
    if (existing) return existing;
    const lane = new SwitchLane(deviceId, switchId, {
      timeoutMs: this.timeoutMs,
      now: this.host.now,
      onSending: (target) => this.host.onSending(switchId, target),
      write: async (id, swId, target) => {
        try {
          const outcome = await client.updateDevice(id, { switches: [{ id: swId, state: target }] }, { ...this.host.call, priority: 'interactive' });
          return outcome.device;
        } catch (err) {
          if (isEnergyApiError(err) && err.status === 403) throw notPermitted(err, client.key);
          // A server error or a lost answer may come after the service took the change: the poll that
          // follows tells, and the command ends confirmed or not confirmed, never unknown.
          if (mayHaveApplied(err)) {
            this.host.warnUncertain(isEnergyApiError(err) ? err.code : String(err));
            return client.knownDevice(id, { signal: this.host.call.signal, priority: 'interactive' });
          }
          throw err;
        }
      },
      waitFor: (id, swId, target, ms) => this.poller.wait(id, (d) => isConfirmed(d, swId, target), ms),
    });
    this.lanes.set(switchId, lane);
    return lane;
  }
}

/** 5xx, or sent without an answer (reset, timeout, malformed body): the write may have been applied. */
function mayHaveApplied(err: unknown): boolean {
  if (!isEnergyApiError(err) || !err.sent || err.code === 'ABORTED') return false;
  return err.status >= 500 || err.status === 0;
}

/** A 403 on a switch write means the key lacks the switching permission (spec 4.3 rule 2, 5.4). */
function notPermitted(err: EnergyApiError, keyHint: string): EnergyApiError {
  return new EnergyApiError({
    status: err.status,
    code: err.code,
    message: `switching is not permitted for the API key ${keyHint} (403 ${err.code}): ask the service operator to enable switching for this key`,
    apiMessage: err.apiMessage,
    errors: err.errors,
    method: err.method,
    path: err.path,
    sent: true,
  });
}
