/**
 * A Shelly Gen2 relay double (Shelly Plus 1PM class) driving a water heater, from Shelly's public Gen2 API docs
 * (shelly-api-docs.shelly.cloud, Switch component): GET /rpc/Switch.Set?id=0&on=true|false answers {"was_on"};
 * GET /rpc/Switch.GetStatus?id=0 answers {id, source, output, apower, voltage, current, aenergy: {total},
 * temperature: {tC, tF}}; POST /rpc takes a JSON-RPC frame {id, method, params} and answers {id, src, result}. A
 * double built from public documentation, not a real device: it answers as the docs say, on the simulator's clock.
 */
import { SlotLoad } from './slot-load.js';
import type { Reply } from './goe.js';
import { between, noise } from '../site/random.js';

export interface ShellyOptions {
  deviceId: string;
  /** 0-based channel of the site that measures the heater. */
  channel: number;
  now: () => number;
  seed: number;
  /** The heater's power (W). */
  watts?: number;
  /** Seconds from a command to the relay switching. */
  delayS?: number;
  /** The tank holds this much heat (Wh) when hot. */
  tankWh?: number;
  /** Shelly id (src of RPC answers). */
  name?: string;
  /** Heat the tank takes at the start (Wh); default 4000 (cooled overnight). */
  startColdWh?: number;
}

const HOUR = 3600;

export class ShellyRelay extends SlotLoad {
  private output = false;
  private lastSource = 'init';
  /** Heat the tank still takes (Wh): it cools and hot water is drawn every hour; the thermostat stops the heater at 0. */
  private coldWh: number;
  private totalWh = 0;
  private drawingW = 0;
  /** Test hook: every RPC answers this HTTP status. */
  refuseWith?: number;

  constructor(private readonly options: ShellyOptions) {
    super(options.deviceId, options.channel, options.now);
    this.coldWh = options.startColdWh ?? 4000;
  }

  protected powerAt(t: number): number {
    if (t % HOUR === 0) {
      // Hot water drawn this hour (morning and evening showers the most), seeded per hour.
      const hourOfDay = Math.floor((t % 86400) / HOUR);
      const peak = hourOfDay === 21 || hourOfDay === 22 || hourOfDay === 8 || hourOfDay === 9 ? 1200 : 120;
      this.coldWh = Math.min(this.options.tankWh ?? 12000, this.coldWh + between(noise(this.options.seed, 0x5e11, t / HOUR), 0.5, 1.5) * peak);
    }
    this.drawingW = this.output && this.coldWh > 0 ? (this.options.watts ?? 3000) : 0;
    return this.drawingW;
  }

  protected took(joules: number): void {
    this.coldWh = Math.max(0, this.coldWh - joules / 3600);
    this.totalWh += joules / 3600;
  }

  protected restart(): void {
    this.output = false;
    this.lastSource = 'init';
    this.coldWh = this.options.startColdWh ?? 4000;
    this.totalWh = 0;
    this.drawingW = 0;
    this.refuseWith = undefined;
  }

  status(): Record<string, unknown> {
    this.advance();
    const current = Math.round((this.drawingW / 230) * 1000) / 1000;
    return {
      id: 0, source: this.lastSource, output: this.output, apower: this.drawingW, voltage: 230, freq: 50, current,
      aenergy: { total: Math.round(this.totalWh * 1000) / 1000 }, temperature: { tC: 41.5, tF: 106.7 },
    };
  }

  private call(method: string, params: Record<string, unknown>, source: string): Reply {
    if (this.refuseWith !== undefined) return { status: this.refuseWith, body: { code: -1, message: 'refused (simulated fault)' } };
    if (method === 'Shelly.GetDeviceInfo') return { status: 200, body: { name: null, id: this.name, model: 'SNPM-001PCEU16', gen: 2, fw_id: 'double', app: 'Plus1PM' } };
    if (method !== 'Switch.Set' && method !== 'Switch.GetStatus') return { status: 404, body: { code: 404, message: `No handler for ${method}` } };
    if (Number(params.id ?? NaN) !== 0) return { status: 500, body: { code: -105, message: `Argument 'id', value ${String(params.id)} not found!` } };
    if (method === 'Switch.GetStatus') return { status: 200, body: this.status() };
    const on = params.on === true || params.on === 'true';
    if (!on && params.on !== false && params.on !== 'false') return { status: 500, body: { code: -103, message: "Invalid argument 'on'!" } };
    this.advance();
    const wasOn = this.output;
    this.command(this.options.delayS ?? 1, () => {
      this.output = on;
      this.lastSource = source;
    });
    return { status: 200, body: { was_on: wasOn } };
  }

  private get name(): string {
    return this.options.name ?? 'shellyplus1pm-double';
  }

  handle(method: string, url: URL, body: string): Reply {
    const rpc = /^\/rpc\/([A-Za-z]+\.[A-Za-z]+)$/.exec(url.pathname);
    if (method === 'GET' && rpc) return this.call(rpc[1], Object.fromEntries(url.searchParams), 'HTTP_in');
    if (method === 'POST' && url.pathname === '/rpc') {
      let frame: { id?: unknown; method?: unknown; params?: Record<string, unknown> };
      try {
        frame = JSON.parse(body) as typeof frame;
      } catch {
        return { status: 400, body: { code: -32700, message: 'Parse error' } };
      }
      const answer = this.call(String(frame.method), frame.params ?? {}, 'HTTP_in');
      const result = answer.status === 200 ? { result: answer.body } : { error: answer.body };
      return { status: answer.status, body: { id: frame.id ?? null, src: this.name, ...result } };
    }
    return { status: 404, body: { code: 404, message: 'Not Found' } };
  }
}
