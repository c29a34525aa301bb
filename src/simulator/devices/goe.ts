/**
 * A go-eCharger double: the local HTTP API v2 as go-e documents it (github.com/goecharger/go-eCharger-API-v2,
 * apikeys-en.md): GET /api/status (optionally ?filter=car,amp,…) and GET /api/set?key=value. Keys served:
 * car (Idle=1, Charging=2, WaitCar=3, Complete=4), amp (requested A, R/W), frc (forceState Neutral=0, Off=1, On=2,
 * R/W), psm (phaseSwitchMode Auto=0, Force_1=1, Force_3=2, R/W), alw, acu, ama, nrg (U L1–L3 N, I L1–L3, P L1–L3
 * N Total, pf L1–L3 N), wh (Wh since the car connected), eto (Wh in all), err, fwv. A double built from public
 * documentation, not a real device: it answers as the docs say, on the simulator's clock.
 */
import { CarCharger, type ChargerOptions } from './car-charger.js';

export interface GoeOptions extends ChargerOptions {
  /** Phases wired to the charger (1 or 3); Auto (psm 0) uses them all. */
  phases?: 1 | 3;
  /** ama: the charger's own maximum (A). */
  maxAmps?: number;
  /** Seconds from a set to the car drawing the new current. */
  delayS?: number;
}

export interface Reply {
  status: number;
  body: unknown;
}

const SETTABLE = new Set(['amp', 'frc', 'psm']);

export class GoeCharger extends CarCharger<GoeOptions> {
  private amp = 16;
  private frc = 0;
  private psm = 0;

  private phasesNow(): 1 | 3 {
    const wired = this.options.phases ?? 1;
    if (this.psm === 1) return 1;
    return wired;
  }

  protected offeredW(): { watts: number; phases: 1 | 3 } {
    const phases = this.phasesNow();
    return { watts: this.frc === 1 || this.amp < 6 ? 0 : this.amp * phases * this.volts, phases };
  }

  protected restartSettings(): void {
    this.amp = 16;
    this.frc = 0;
    this.psm = 0;
  }

  /** The charger's state now, as /api/status gives it. */
  status(): Record<string, unknown> {
    this.advance();
    const visit = this.carAt(this.now());
    const phases = this.phasesNow();
    const full = visit !== undefined && this.takenWh >= visit.needWh - 1;
    const car = !visit ? 1 : this.drawingW > 0 ? 2 : full ? 4 : 3;
    const amps = this.drawingW / phases / this.volts;
    const perPhase = (on: boolean, v: number): number => (on ? v : 0);
    const round = (v: number, d = 2): number => Math.round(v * 10 ** d) / 10 ** d;
    return {
      car, amp: this.amp, frc: this.frc, psm: this.psm, alw: this.frc !== 1, acu: this.drawingW > 0 ? this.amp : null, ama: this.options.maxAmps ?? 32,
      nrg: [
        this.volts, phases === 3 ? this.volts : 0, phases === 3 ? this.volts : 0, 0,
        round(amps), round(perPhase(phases === 3, amps)), round(perPhase(phases === 3, amps)),
        round(this.drawingW / phases), round(perPhase(phases === 3, this.drawingW / 3)), round(perPhase(phases === 3, this.drawingW / 3)), 0, round(this.drawingW),
        100, phases === 3 ? 100 : 0, phases === 3 ? 100 : 0, 0,
      ],
      wh: visit ? round(this.takenWh) : 0,
      eto: Math.round(this.totalWh),
      err: 0,
      fwv: '0.0-double',
    };
  }

  /** GET /api/set?amp=10&frc=2: each key checked, then all applied after the device's delay. */
  set(query: URLSearchParams): Reply {
    if (this.refuseWith !== undefined) return { status: this.refuseWith, body: { error: 'refused (simulated fault)' } };
    const changes: Array<[string, number]> = [];
    const answer: Record<string, unknown> = {};
    for (const [key, raw] of query) {
      if (!SETTABLE.has(key)) return { status: 400, body: { [key]: 'unknown or read-only key' } };
      const value = Number(raw);
      const max = key === 'amp' ? (this.options.maxAmps ?? 32) : 2;
      const min = key === 'amp' ? 6 : 0;
      if (!Number.isInteger(value) || value < min || value > max) return { status: 400, body: { [key]: `value ${raw} out of range ${min}..${max}` } };
      changes.push([key, value]);
      answer[key] = true;
    }
    if (changes.length === 0) return { status: 400, body: { error: 'no key to set' } };
    this.command(this.options.delayS ?? 10, () => {
      for (const [key, value] of changes) {
        if (key === 'amp') this.amp = value;
        else if (key === 'frc') this.frc = value;
        else this.psm = value;
      }
    });
    return { status: 200, body: answer };
  }

  handle(method: string, url: URL): Reply {
    if (method !== 'GET') return { status: 405, body: { error: 'GET only' } };
    if (url.pathname === '/api/status') {
      const all = this.status();
      const filter = url.searchParams.get('filter');
      if (!filter) return { status: 200, body: all };
      return { status: 200, body: Object.fromEntries(filter.split(',').filter((k) => k in all).map((k) => [k, all[k]])) };
    }
    if (url.pathname === '/api/set') return this.set(url.searchParams);
    return { status: 404, body: { error: 'not found' } };
  }
}
