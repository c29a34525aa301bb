import type { Device, SwitchState } from '../../api/index.js';
import { heading, isConfirmed, opposite, type SwitchCommand } from './switch-command.js';

/** How one command ended. `superseded`: a newer command for the same switch replaced it before it was sent. */
export type JobOutcome =
  | { kind: 'confirmed'; device: Device; target: SwitchState; elapsedMs: number }
  | { kind: 'notConfirmed'; device: Device; target: SwitchState; elapsedMs: number }
  | { kind: 'superseded'; target: SwitchState };

export interface LaneDeps {
  /** PATCHes the switch state; returns the device as the service answered. */
  write(deviceId: string, switchId: string, target: SwitchState): Promise<Device>;
  /** Polls until the switch shows `target` with nothing pending, or the timeout. */
  waitFor(deviceId: string, switchId: string, target: SwitchState, timeoutMs: number): Promise<{ device: Device; done: boolean }>;
  /** Called when a command starts going to the device. */
  onSending(target: SwitchState): void;
  timeoutMs: number;
  /** The nodes' clock in ms. */
  now(): number;
}

interface Job {
  target: SwitchState;
  arrivedAt: number;
  finish(outcome: JobOutcome): void;
  fail(err: unknown): void;
}

/**
 * The commands of one switch. One change is in flight at a time; commands that arrive meanwhile
 * are coalesced: only the latest waits, older waiting ones end as `superseded`. When the change
 * in flight ends, the latest is sent only if it differs from the state the switch then has.
 */
export class SwitchLane {
  private running = false;
  private waiting?: Job;
  /** Target of the most recent command: what `toggle` flips while commands are in flight. */
  private lastTarget?: SwitchState;
  private device?: Device;

  constructor(
    readonly deviceId: string,
    readonly switchId: string,
    private readonly deps: LaneDeps,
  ) {}

  get idle(): boolean {
    return !this.running;
  }

  /** `device` is the device as just read; used when the lane is idle. */
  submit(command: SwitchCommand, device: Device): Promise<JobOutcome> {
    if (!this.running) {
      this.device = device;
      this.lastTarget = undefined;
    }
    const sw = (this.device ?? device).switches.find((s) => s.id === this.switchId);
    const base = this.lastTarget ?? (sw ? heading(sw) : 'open');
    const target = command === 'toggle' ? opposite(base) : command;
    this.lastTarget = target;
    return new Promise<JobOutcome>((resolve, reject) => {
      const job: Job = { target, arrivedAt: this.deps.now(), finish: resolve, fail: reject };
      if (this.running) {
        this.waiting?.finish({ kind: 'superseded', target: this.waiting.target });
        this.waiting = job;
        return;
      }
      this.running = true;
      void this.drain(job);
    });
  }

  /** Ends the waiting command (node closing); the one in flight ends through its aborted wait. */
  abandon(err: unknown): void {
    this.waiting?.fail(err);
    this.waiting = undefined;
  }

  private async drain(first: Job): Promise<void> {
    let job: Job | undefined = first;
    let immediate = true;
    while (job) {
      try {
        job.finish(await this.execute(job, immediate));
      } catch (err) {
        job.fail(err);
      }
      job = this.waiting;
      this.waiting = undefined;
      immediate = false;
    }
    this.running = false;
  }

  private async execute(job: Job, immediate: boolean): Promise<JobOutcome> {
    const device = this.device as Device;
    const sw = device.switches.find((s) => s.id === this.switchId);
    const since = (): number => this.deps.now() - job.arrivedAt;
    if (isConfirmed(device, this.switchId, job.target)) {
      return { kind: 'confirmed', device, target: job.target, elapsedMs: immediate ? 0 : since() };
    }
    this.deps.onSending(job.target);
    let current = device;
    // Already on its way (requested earlier, perhaps elsewhere): waiting is enough, another write would queue behind it.
    if (sw?.pending?.state !== job.target) {
      current = await this.deps.write(this.deviceId, this.switchId, job.target);
      this.device = current;
    }
    if (isConfirmed(current, this.switchId, job.target)) return { kind: 'confirmed', device: current, target: job.target, elapsedMs: since() };
    const result = await this.deps.waitFor(this.deviceId, this.switchId, job.target, this.deps.timeoutMs);
    this.device = result.device;
    return { kind: result.done ? 'confirmed' : 'notConfirmed', device: result.device, target: job.target, elapsedMs: since() };
  }
}
