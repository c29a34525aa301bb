/**
 * An OpenEVSE double: the WiFi module's HTTP API as OpenEVSE documents it (openevse_esp32_firmware, api.yml and its
 * models; the MQTT guide's table of states): GET /status (amp in mA, voltage, power W, pilot A, max_current A, state
 * 1 not connected, 2 vehicle connected, 3 charging, 254 sleeping, 255 disabled; status `active`/`disabled`, vehicle
 * 1/0, manual_override 1/0, session_energy Wh, total_energy kWh, elapsed s) and the manual override: POST /override
 * {state: active|disabled, charge_current A, max_current A, auto_release} answers {msg}, GET /override its properties
 * (404 {msg: "Not found"} without one), DELETE /override clears it. Without an override it charges a car at its
 * maximum. A charge current under 6 A is taken as 6 A (no pilot below 6 A); 0 or none is the maximum. A double built
 * from public documentation, not a real device: it answers as the docs say, on the simulator's clock.
 */
import { CarCharger, type ChargerOptions } from './car-charger.js';
import type { Reply } from './goe.js';

export interface OpenEvseOptions extends ChargerOptions {
  /** The charger's configured maximum (A). */
  maxAmps?: number;
  /** Seconds from an override to the car drawing the new current. */
  delayS?: number;
}

interface Override {
  state: 'active' | 'disabled';
  charge_current?: number;
  max_current?: number;
  auto_release?: boolean;
}

const MIN_AMPS = 6;

export class OpenEvseCharger extends CarCharger<OpenEvseOptions> {
  private override?: Override;

  private get maxAmps(): number {
    return this.options.maxAmps ?? 32;
  }

  /** The pilot (A) the override leaves: the lower of charge_current and max_current (0 or none = the maximum). */
  private pilot(): number {
    const limit = (v: number | undefined): number => (v === undefined || v === 0 ? this.maxAmps : Math.max(MIN_AMPS, Math.min(this.maxAmps, v)));
    return Math.min(limit(this.override?.charge_current), limit(this.override?.max_current));
  }

  protected offeredW(): { watts: number; phases: 1 | 3 } {
    return { watts: this.override?.state === 'disabled' ? 0 : this.pilot() * this.volts, phases: 1 };
  }

  /** auto_release: the override ends when the car leaves. */
  protected override carLeft(): void {
    if (this.override?.auto_release) this.override = undefined;
  }

  protected restartSettings(): void {
    this.override = undefined;
  }

  /** The charger's state now, as GET /status gives it. */
  status(): Record<string, unknown> {
    this.advance();
    const visit = this.carAt(this.now());
    const disabled = this.override?.state === 'disabled';
    const state = disabled ? 254 : !visit ? 1 : this.drawingW > 0 ? 3 : 2;
    return {
      amp: Math.round((this.drawingW / this.volts) * 1000),
      voltage: this.volts,
      power: Math.round(this.drawingW),
      pilot: this.pilot(),
      max_current: this.pilot(),
      state,
      status: disabled ? 'disabled' : 'active',
      vehicle: visit ? 1 : 0,
      manual_override: this.override ? 1 : 0,
      session_energy: visit ? Math.round(this.takenWh) : 0,
      total_energy: Math.round(this.totalWh / 10) / 100,
      elapsed: visit ? Math.max(0, Math.floor(this.now() - visit.arrive)) : 0,
    };
  }

  private setOverride(body: string): Reply {
    if (this.refuseWith !== undefined) return { status: this.refuseWith, body: { msg: 'refused (simulated fault)' } };
    let value: unknown;
    try { value = JSON.parse(body); } catch { return { status: 400, body: { msg: 'Could not parse JSON' } }; }
    const o = value as Partial<Record<keyof Override, unknown>>;
    const amps = (v: unknown): boolean => v === undefined || (Number.isInteger(v) && (v as number) >= 0);
    if (typeof value !== 'object' || value === null || (o.state !== 'active' && o.state !== 'disabled') || !amps(o.charge_current) || !amps(o.max_current)
      || (o.auto_release !== undefined && typeof o.auto_release !== 'boolean')) {
      return { status: 400, body: { msg: 'Could not parse JSON' } };
    }
    const next: Override = { state: o.state };
    if (o.charge_current !== undefined) next.charge_current = o.charge_current as number;
    if (o.max_current !== undefined) next.max_current = o.max_current as number;
    if (o.auto_release !== undefined) next.auto_release = o.auto_release as boolean;
    this.command(this.options.delayS ?? 10, () => { this.override = next; });
    return { status: 200, body: { msg: 'Created' } };
  }

  handle(method: string, url: URL, body = ''): Reply {
    if (url.pathname === '/status' && method === 'GET') return { status: 200, body: this.status() };
    if (url.pathname === '/override') {
      this.advance();
      if (method === 'POST') return this.setOverride(body);
      if (method === 'GET') return this.override ? { status: 200, body: { ...this.override } } : { status: 404, body: { msg: 'Not found' } };
      if (method === 'DELETE') {
        this.command(this.options.delayS ?? 10, () => { this.override = undefined; });
        return { status: 200, body: { msg: 'Deleted' } };
      }
      return { status: 405, body: { msg: 'Method not allowed' } };
    }
    return { status: 404, body: { msg: 'Not found' } };
  }
}
