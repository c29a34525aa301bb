import type { Device, SwitchState } from '../../api/index.js';
import type { HistoryDevice } from '../../domain/site/ha-history-import.js';
import type { SiteMember } from '../../domain/site/site.js';
import type { LoadControlRegistry } from '../shared/load-control-registry.js';
import type { BrokerLink } from './broker-link.js';
import { runSwitchCommand, type CommandHost } from './commands.js';
import { DeviceEnergy, type EnergyHost } from './device-energy.js';
import { LoadControls } from './load-controls.js';
import { devicePayload, type BridgeInfo } from './discovery.js';
import type { MqttSettings } from './settings.js';
import { availability, powerReadings, switchAttributes, switchState } from './states.js';
import { discoveryTopic, DeviceTopics, memberNumber } from './topics.js';
import { energyLayout } from './totals.js';

/**
 * A switch changed elsewhere (on the device, from an app, by another node) shows in Home Assistant within a
 * minute: a device with switches is read this often (at every power read at the default 60 s), others every 5 minutes.
 */
export const SWITCH_SYNC_MS = 55_000;
/** The key's requests left today are published at most this often. */
const BUDGET_EVERY_MS = 60_000;

export interface BridgeHost extends Omit<CommandHost, 'lastKnown' | 'seen'>, Omit<EnergyHost, 'publish'> {
  settings: MqttSettings;
  link: BrokerLink;
  registry: LoadControlRegistry;
  /** The key's requests left today, and where they are published (one topic for the key). */
  budget(): number;
  budgetTopic: string;
  /** The bridge device the devices hang from, and its availability topic. */
  bridge: BridgeInfo;
  /** A shared read went through (clears a read problem from the status). */
  readOk(): void;
  /** Timers cleared when the node closes. */
  setTimer(fn: () => void, ms: number): NodeJS.Timeout;
  clearTimer(timer: NodeJS.Timeout): void;
}

/**
 * One device in Home Assistant: its discovery payload, and every state published from the reads it
 * shares with the key's load-control nodes (power and the device every interval and 5 minutes), its own
 * long-energy reads, and the commands that come back (switches, load-control overrides).
 */
export class DeviceBridge {
  readonly topics: DeviceTopics;
  readonly member: SiteMember;
  private readonly energy: DeviceEnergy;
  private readonly loads: LoadControls;
  private readonly subscribed = new Set<string>();
  private newestShortS?: number;
  private deviceReadAt?: number;
  private budgetAt?: number;
  /** A shared read failed in the cycle now being watched: the problem stands (its status and one warning). */
  private readFailed = false;
  private closed = false;

  constructor(private readonly host: BridgeHost, private device: Device) {
    this.topics = new DeviceTopics(host.settings.baseTopic, device.id);
    const publish = (topic: string, payload: string): void => host.link.publish(topic, payload);
    this.energy = new DeviceEnergy({ ...host, publish }, device, this.topics, host.settings.energyIntervalS * 1000);
    this.loads = new LoadControls({ ...host, publish, listen: (topic, handler) => this.listen(topic, handler) }, this.topics, () => this.device);
    this.member = {
      id: `energy-mqtt:${device.id}`,
      switchDeviceId: device.id,
      intervalS: host.settings.intervalS,
      // The newest entry is all the power readings need; a device may report as seldom as every 295 s.
      windowS: 600,
      needsSwitchRead: () => this.device.switches.length > 0 && (this.deviceReadAt === undefined || host.now() - this.deviceReadAt >= SWITCH_SYNC_MS),
      pendingSince: () => undefined,
      input: (_measuring, fresh, site) => {
        this.watch(fresh, site.entries);
        return undefined;
      },
      apply: async () => undefined,
      readFailed: (err) => {
        this.readFailed = true;
        host.failed(err);
      },
    };
  }

  get deviceId(): string {
    return this.device.id;
  }

  start(): void {
    this.publishDiscovery();
    this.publishDevice();
    this.loads.publishAll();
    this.publishBudget();
    // A load-control node joined or left: its select and reason come or go with the device's discovery.
    this.loads.follow(() => this.publishDiscovery());
    void this.energy.read();
  }

  /** The device's energy sensors for the history import: each total, the unique id HA knows it by, and the live count. */
  history(): HistoryDevice {
    const payload = devicePayload(this.device, this.topics, [], this.host.bridge);
    const sensors = Object.entries(payload.cmps).filter(([, c]) => c.device_class === 'energy').map(([total, c]) => ({ total, uniqueId: c.unique_id }));
    return { device: this.device, sensors, totals: () => this.energy.counted() };
  }

  /** Resolves once the energy read in progress (if any) has ended. */
  settled(): Promise<void> {
    return this.energy.settled();
  }

  /** A command for one of its switches starts going to the device: HA's attributes show it pending until the outcome. */
  showPending(switchId: string, target: SwitchState): void {
    const index = this.device.switches.findIndex((s) => s.id === switchId);
    if (index < 0 || this.closed) return;
    const sw = this.device.switches[index];
    this.host.link.publish(this.topics.switchAttributes(memberNumber(sw.id, index)), switchAttributes({ ...sw, pending: { state: target } }, null, target));
  }

  owns(switchId: string): boolean {
    return this.device.switches.some((s) => s.id === switchId);
  }

  close(): void {
    this.closed = true;
    this.loads.stop();
    for (const topic of this.subscribed) this.host.link.unsubscribe(topic);
    this.subscribed.clear();
  }

  /** Everything a shared read brought: the device (every 5 minutes), the power, availability, budget; energy when due. */
  private watch(fresh: Device | undefined, entries: Parameters<typeof powerReadings>[0]): void {
    if (this.closed) return;
    if (fresh) {
      this.deviceReadAt = this.host.now();
      this.device = fresh;
      this.energy.update(fresh);
      this.publishDiscovery();
      this.publishDevice();
    }
    const power = powerReadings(entries, energyLayout(this.device));
    if (power) {
      this.newestShortS = Math.max(this.newestShortS ?? power.at, power.at);
      for (const [n, watts] of power.watts) this.host.link.publish(this.topics.power(n), watts);
    }
    const now = this.host.now();
    this.host.link.publish(this.topics.availability, availability(this.device, this.newestShortS, now));
    // It changes with every request on the key: once a minute is news enough.
    if (this.budgetAt === undefined || now - this.budgetAt >= BUDGET_EVERY_MS) this.publishBudget();
    // The group hands on what it holds even when a read failed: only a cycle whose reads went through ends a problem.
    if (!this.readFailed) this.host.readOk();
    this.readFailed = false;
    if (this.energy.due()) void this.energy.read();
  }

  private publishBudget(): void {
    this.budgetAt = this.host.now();
    this.host.link.publish(this.host.budgetTopic, String(this.host.budget()));
  }

  private publishDiscovery(): void {
    if (!this.host.settings.discovery) return;
    const payload = devicePayload(this.device, this.topics, this.host.registry.driving(this.device.id), this.host.bridge);
    const topic = discoveryTopic(this.host.settings.discoveryPrefix, this.device.id);
    this.host.link.publish(topic, JSON.stringify(payload));
  }

  /** Availability and every switch as the device last reported it (a switch with a command in flight waits for its outcome). */
  private publishDevice(): void {
    this.host.link.publish(this.topics.availability, availability(this.device, this.newestShortS, this.host.now()));
    this.device.switches.forEach((sw, index) => {
      const n = memberNumber(sw.id, index);
      this.listen(this.topics.switchCommand(n), (payload) => runSwitchCommand(this.commandHost(), this.topics, n, sw.id, payload));
      if (this.host.transactions.busy(sw.id)) return;
      this.host.link.publish(this.topics.switchState(n), switchState(sw));
      this.host.link.publish(this.topics.switchAttributes(n), switchAttributes(sw));
    });
  }

  private listen(topic: string, handler: (payload: string) => Promise<unknown>): void {
    if (this.subscribed.has(topic)) return;
    this.subscribed.add(topic);
    this.host.link.subscribe(topic, (payload, packet) => {
      // A retained command is an old one (HA never retains them unless told to): acting on it at every reconnect would switch again.
      if (!packet.retain && !this.closed) void handler(payload);
    });
  }

  private commandHost(): CommandHost {
    return { ...this.host, lastKnown: () => this.device, seen: (d) => { this.device = d; } };
  }
}
