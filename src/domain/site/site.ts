import { clientScoped, isEnergyApiError, PENDING_POLL_MIN_MS, SHORT_MAX_SPAN_S, type Device, type EnergyApiClient } from '../../api/index.js';
import { evaluateGroup, type MemberInput, type SiteReading } from './group.js';
import type { HistoryEntry } from '../planning/forecast.js';
import { newestTimestamp } from './signal.js';
import type { Evaluation, ShortEntry } from './types.js';

/** Switch states are read at least this often, so a change made elsewhere is noticed (spec's budget: status every 5 min). */
export const STATUS_EVERY_MS = 300_000;
/** Lets every node of one deploy join before the first shared read. */
const FIRST_READ_DELAY_MS = 200;
/** The surplus forecast of run targets reads the last week of 5-minute long energy once a day. */
export const HISTORY_EVERY_MS = 86_400_000;
/** A week (the API's longest 5-minute span): yesterday's sun, and the house on the same weekday. */
const HISTORY_SPAN_S = 7 * 86_400;
/** After a failed history read, the next try. */
const HISTORY_RETRY_MS = 600_000;

/**
 * How often, at most, the follow-up's timer looks at the nodes' clock again: that clock may be a
 * simulation's (Node-RED setting `energyApi.now`), which timers do not follow.
 */
const FOLLOW_CHECK_MS = 1000;

/**
 * A node that reads through the site group: an energy-load-control node (a load, decided with the others),
 * or a node that only watches the shared reads (energy-mqtt: its `input` returns undefined and it is never
 * asked to `apply`).
 */
export interface SiteMember {
  readonly id: string;
  /** The device whose relay it reads; undefined when its load is switched by the flow (no switch reads). */
  readonly switchDeviceId?: string;
  /** 0 = evaluated only when asked (msg.payload "evaluate", an override). */
  readonly intervalS: number;
  readonly windowS: number;
  /** The switch state must be read now: unknown, or a change is pending. */
  needsSwitchRead(): boolean;
  /** A run target in surplus mode: it plans on a forecast of the sun from the device's last day. */
  needsHistory?(): boolean;
  /** Node-clock ms when its own change, not yet confirmed by the device, was sent; undefined when there is none. */
  pendingSince(): number | undefined;
  /**
   * Its input to the group, given the devices as last read and the short energy the group holds;
   * undefined when it cannot take part (it says why itself) or only watches.
   */
  input(measuring: Device | undefined, switchDevice: Device | undefined, site: SiteReading): MemberInput | undefined;
  /** Carries out the evaluation (switch, outputs, status, persistence); returns the device if a PATCH answered with it. */
  apply(evaluation: Evaluation, switchDevice: Device | undefined): Promise<Device | undefined>;
  /** A shared read failed. */
  readFailed(err: unknown): void;
}

type Round = Array<{ member: SiteMember; evaluation: Evaluation; device?: Device }>;

/**
 * Every energy-load-control node that measures one device, on one key: one short-energy read per
 * evaluation for all of them, one status read per switch device, and the loads decided together.
 * While a member waits on a change of its own, the group follows its switch device at the pending-poll
 * pace whatever the interval, and holds an evaluation round (without an energy read) once the device
 * has confirmed it. Evaluations run one at a time; a trigger during one is served by a single follow-up.
 */
export class SiteGroup {
  private readonly members = new Set<SiteMember>();
  private readonly aborter = new AbortController();
  private readonly devices = new Map<string, { device: Device; at: number }>();
  /** Devices whose copy came after the last round that was carried out: news to the members. */
  private readonly unseen = new Set<string>();
  private entries: ShortEntry[] = [];
  private newestS?: number;
  private energyAt?: number;
  private history?: HistoryEntry[];
  private historyDueAt = 0;
  private readonly startedAt: number;
  private timer?: NodeJS.Timeout;
  private followTimer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private queued?: Promise<void>;

  constructor(
    private readonly client: EnergyApiClient,
    readonly deviceId: string,
    private readonly now: () => number,
    private readonly onEmpty: () => void,
  ) {
    this.startedAt = now();
  }

  join(member: SiteMember): void {
    this.members.add(member);
    this.schedule(FIRST_READ_DELAY_MS);
  }

  leave(member: SiteMember): void {
    this.members.delete(member);
    if (this.members.size > 0) return;
    clearTimeout(this.timer);
    clearTimeout(this.followTimer);
    this.timer = undefined;
    this.followTimer = undefined;
    this.aborter.abort();
    this.onEmpty();
  }

  /** Reads and decides now (or right after the evaluation in progress). Never rejects. */
  evaluate(): Promise<void> {
    if (!this.running) return this.start(() => this.cycle());
    this.queued ??= this.running.then(() => {
      this.queued = undefined;
      return this.start(() => this.cycle());
    });
    return this.queued;
  }

  private start(task: () => Promise<void>): Promise<void> {
    const run = task().finally(() => {
      if (this.running === run) this.running = undefined;
      this.scheduleFollowUp();
    });
    this.running = run;
    return run;
  }

  /** The shortest interval of the members, 0 when all wait to be asked. */
  private intervalMs(): number {
    const intervals = [...this.members].map((m) => m.intervalS).filter((s) => s > 0);
    return intervals.length ? Math.min(...intervals) * 1000 : 0;
  }

  private schedule(delayMs?: number): void {
    if (this.aborter.signal.aborted) return;
    const interval = this.intervalMs();
    clearTimeout(this.timer);
    this.timer = undefined;
    if (interval === 0) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.evaluate().then(() => this.schedule());
    }, delayMs ?? interval);
  }

  /** Each switch device a member waits on, with when the earliest of those changes was sent. */
  private awaited(): Map<string, number> {
    const since = new Map<string, number>();
    for (const m of this.members) {
      const at = m.pendingSince();
      if (at !== undefined && m.switchDeviceId !== undefined) since.set(m.switchDeviceId, Math.min(since.get(m.switchDeviceId) ?? at, at));
    }
    return since;
  }

  /**
   * While a member waits on a change of its own: the next follow-up, when its switch device may be read
   * again (5 s after the change, and after any read of the device on this key: spec 3.1).
   */
  private scheduleFollowUp(): void {
    clearTimeout(this.followTimer);
    this.followTimer = undefined;
    if (this.aborter.signal.aborted) return;
    const now = this.now();
    const waits = [...this.awaited()].map(([id, since]) => Math.max(this.client.nextPollInMs(id), since + PENDING_POLL_MIN_MS - now));
    if (waits.length === 0) return;
    this.followTimer = setTimeout(() => {
      this.followTimer = undefined;
      if (!this.running) void this.start(() => this.followUp());
    }, Math.min(...waits, FOLLOW_CHECK_MS));
  }

  /** The awaited devices as polled now (no energy read); a round only when a change was confirmed, timed out or made elsewhere. */
  private async followUp(): Promise<void> {
    const now = this.now();
    const members = [...this.members];
    try {
      for (const [id, since] of this.awaited()) {
        if (now - since >= PENDING_POLL_MIN_MS) await this.readDevice(id, members);
      }
      if (this.aborter.signal.aborted) return;
      const round = this.round(now, members);
      if (round.some(({ evaluation }) => evaluation.outcomes.length > 0)) await this.carryOut(round);
    } catch (err) {
      // Started by a timer, so nobody awaits it: a failure goes to the members' status, never unhandled.
      if (!this.aborter.signal.aborted) for (const m of members) m.readFailed(err);
    }
  }

  private async cycle(): Promise<void> {
    const signal = this.aborter.signal;
    if (signal.aborted) return;
    const now = this.now();
    const members = [...this.members];
    const toRead = new Set<string>();
    if (!this.devices.has(this.deviceId)) toRead.add(this.deviceId);
    for (const m of members) {
      if (m.switchDeviceId === undefined) continue;
      const known = this.devices.get(m.switchDeviceId);
      if (!known || m.needsSwitchRead() || now - known.at >= STATUS_EVERY_MS) toRead.add(m.switchDeviceId);
    }
    for (const id of toRead) await this.readDevice(id, members);
    if (signal.aborted) return;
    if (this.energyAt === undefined || now - this.energyAt >= PENDING_POLL_MIN_MS) await this.readEnergy(now, members);
    if (members.some((m) => m.needsHistory?.()) && now >= this.historyDueAt) await this.readHistory(now, members);
    if (signal.aborted) return;
    await this.carryOut(this.round(now, members));
  }

  /** The device as polled through the client, which reads it at most once per 5 s for every node on the key. */
  private async readDevice(id: string, members: SiteMember[]): Promise<void> {
    const signal = this.aborter.signal;
    try {
      const polled = await this.client.pollDevice(id, { signal, priority: 'interactive' });
      const known = this.devices.get(id);
      if (known && polled.at <= known.at) return;
      this.devices.set(id, polled);
      this.unseen.add(id);
    } catch (err) {
      if (signal.aborted) return;
      for (const m of members) if (m.switchDeviceId === id || id === this.deviceId) m.readFailed(err);
    }
  }

  /** Every member's evaluation on the devices and entries as last read (pure but for the members' own checks). */
  private round(now: number, members: SiteMember[]): Round {
    const measuring = this.devices.get(this.deviceId)?.device;
    const site: SiteReading = { entries: this.entries, newestS: this.newestS, startedAt: this.startedAt, history: this.history };
    const inputs: Array<{ member: SiteMember; input: MemberInput; device?: Device }> = [];
    for (const member of members) {
      const device = member.switchDeviceId === undefined ? undefined : this.devices.get(member.switchDeviceId)?.device;
      const input = member.input(measuring, member.switchDeviceId !== undefined && this.unseen.has(member.switchDeviceId) ? device : undefined, site);
      if (input) inputs.push({ member, input, device });
    }
    const evaluations = evaluateGroup(inputs.map((i) => i.input), site, now);
    return inputs.map(({ member, input, device }) => ({ member, device, evaluation: evaluations.get(input.id) as Evaluation }));
  }

  private async carryOut(round: Round): Promise<void> {
    this.unseen.clear();
    for (const { member, evaluation, device } of round) {
      if (this.aborter.signal.aborted || !this.members.has(member)) continue;
      const patched = await member.apply(evaluation, device);
      // A PATCH's answer is the newest copy but not a read: the 5-minute status reads keep their pace.
      if (patched) this.devices.set(patched.id, { device: patched, at: this.devices.get(patched.id)?.at ?? evaluation.at });
    }
  }

  private async readEnergy(now: number, members: SiteMember[]): Promise<void> {
    const nowS = Math.floor(now / 1000);
    const spanS = Math.min(SHORT_MAX_SPAN_S, Math.max(...members.map((m) => m.windowS), 60));
    this.energyAt = now;
    try {
      const entries = await this.client.getShortEnergy(this.deviceId, { fromTs: nowS - spanS + 1, toTs: nowS + 1 }, { signal: this.aborter.signal, priority: 'normal' });
      this.entries = entries;
      const newest = newestTimestamp(entries);
      if (newest !== null) this.newestS = Math.max(this.newestS ?? newest, newest);
    } catch (err) {
      if (this.aborter.signal.aborted || (isEnergyApiError(err) && err.code === 'ABORTED')) return;
      for (const m of members) m.readFailed(err);
    }
  }

  /** The last week of 5-minute long energy (one request a day), for the surplus and house forecasts of run targets. */
  private async readHistory(now: number, members: SiteMember[]): Promise<void> {
    const toTs = Math.floor(now / 1000 / 300) * 300;
    this.historyDueAt = now + HISTORY_RETRY_MS;
    try {
      this.history = await this.client.getLongEnergy(this.deviceId, { fromTs: toTs - HISTORY_SPAN_S, toTs, granularity: '5m' }, { signal: this.aborter.signal, priority: 'normal' });
      this.historyDueAt = now + HISTORY_EVERY_MS;
    } catch (err) {
      if (this.aborter.signal.aborted || (isEnergyApiError(err) && err.code === 'ABORTED')) return;
      for (const m of members) if (m.needsHistory?.()) m.readFailed(err);
    }
  }
}

const GROUPS = Symbol('site groups');

/** The group of the measuring device on this key, created with its first member. */
export function siteGroup(client: EnergyApiClient, deviceId: string, now: () => number): SiteGroup {
  const byDevice = clientScoped(client, GROUPS, () => new Map<string, SiteGroup>());
  const existing = byDevice.get(deviceId);
  if (existing) return existing;
  const map = byDevice;
  const group = new SiteGroup(client, deviceId, now, () => {
    if (map.get(deviceId) === group) map.delete(deviceId);
  });
  map.set(deviceId, group);
  return group;
}
