import type { Device, EnergyApiClient } from '../../api/index.js';
import type { Now } from '../shared/clock.js';
import type { NodeCallOptions } from '../shared/flow-node.js';
import type { TotalsStore } from './totals-store.js';
import { channelTotal, countRecords, energyLayout, freshTotals, hasNews, kwh, readRange, SITE_TOTALS, type EnergyLayout, type TotalsState } from './totals.js';
import type { DeviceTopics } from './topics.js';

export interface EnergyHost {
  client(): EnergyApiClient;
  call: NodeCallOptions;
  now: Now;
  store: TotalsStore;
  publish(topic: string, payload: string): void;
  /** A read failed (status and one warning per distinct problem). */
  failed(err: unknown): void;
}

/**
 * One device's energy totals: long energy read every energyInterval from the oldest record not counted,
 * each whole 5-minute record counted once (late ones too), persisted before they are published. Nothing
 * is published before the first read has gone through, so a restart never shows an older total.
 */
export class DeviceEnergy {
  private state: TotalsState;
  private layout: EnergyLayout;
  private readAt?: number;
  private reading?: Promise<void>;
  private published = false;

  constructor(private readonly host: EnergyHost, private device: Device, private readonly topics: DeviceTopics, private readonly intervalMs: number) {
    this.state = host.store.get(device.id) ?? freshTotals(Math.floor(host.now() / 1000));
    this.layout = energyLayout(device);
  }

  /** The device as read again (a channel's category may have changed). */
  update(device: Device): void {
    this.device = device;
    this.layout = energyLayout(device);
  }

  due(): boolean {
    return this.readAt === undefined || this.host.now() - this.readAt >= this.intervalMs;
  }

  /** Reads what is new now (one read at a time: a call during one joins it). Never rejects. */
  read(): Promise<void> {
    this.reading ??= this.readNew().finally(() => { this.reading = undefined; });
    return this.reading;
  }

  settled(): Promise<void> {
    return this.reading ?? Promise.resolve();
  }

  /** The totals as counted and published (undefined until the first read went through). */
  counted(): TotalsState | undefined {
    return this.published ? this.state : undefined;
  }

  /** Every total and its attributes, as last counted (only once the first read went through). */
  publish(): void {
    if (!this.published) return;
    const { joules, through, gaps } = this.state;
    for (const { number } of this.layout.channels) {
      this.host.publish(this.topics.imported(number), kwh(joules[channelTotal(number, 'imported')]));
      this.host.publish(this.topics.exported(number), kwh(joules[channelTotal(number, 'exported')]));
    }
    if (this.layout.grid.length > 0) SITE_TOTALS.slice(0, 2).forEach((t) => this.host.publish(this.topics.site(t), kwh(joules[t])));
    if (this.layout.solar.length > 0) this.host.publish(this.topics.site('solar_produced'), kwh(joules.solar_produced));
    this.host.publish(this.topics.energyAttributes, JSON.stringify({
      counted_through: new Date(through * 1000).toISOString(), counted_through_ts: through, late_records_awaited: gaps.length,
    }));
  }

  private async readNew(): Promise<void> {
    const now = this.host.now();
    this.readAt = now;
    const nowS = Math.floor(now / 1000);
    try {
      if (hasNews(this.state, nowS)) {
        const pages = this.host.client().readPages('long', this.device.id, { ...readRange(this.state, nowS), granularity: '5m' }, { ...this.host.call, priority: 'normal' });
        for await (const page of pages) {
          const { state } = countRecords(this.state, page, this.layout, nowS);
          // Persisted before anything is published from it: a restart resumes from what HA has seen, or before it.
          if (JSON.stringify(state) !== JSON.stringify(this.state)) await this.host.store.set(this.device.id, state);
          this.state = state;
        }
      }
      this.published = true;
      this.publish();
    } catch (err) {
      if (!this.host.call.signal.aborted) this.host.failed(err);
    }
  }
}
