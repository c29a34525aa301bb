/**
 * What every charger double shares: a car on the seeded timetable (car.ts), the energy it took this visit and in
 * all, the power it draws now, the test hooks, and the draw as the lower of what the charger offers and what the car
 * takes. Each charger adds its own API and settings.
 */
import { SlotLoad } from './slot-load.js';
import { carLimitW, visitAt, type CarOptions, type Visit } from './car.js';

export interface ChargerOptions extends CarOptions {
  deviceId: string;
  /** 0-based channel of the site that measures the charger. */
  channel: number;
  now: () => number;
  volts?: number;
}

export abstract class CarCharger<O extends ChargerOptions> extends SlotLoad {
  protected visit?: Visit;
  protected takenWh = 0;
  protected totalWh = 0;
  protected drawingW = 0;
  /** Test hooks: the car is away whatever the timetable; every command answers this HTTP status. */
  unplugged = false;
  refuseWith?: number;

  constructor(protected readonly options: O) {
    super(options.deviceId, options.channel, options.now);
  }

  protected get volts(): number {
    return this.options.volts ?? 230;
  }

  /** W the charger offers the car on `phases` now (0 when stopped). */
  protected abstract offeredW(): { watts: number; phases: 1 | 3 };
  /** The car left (by the timetable). */
  protected carLeft(): void {}
  /** The charger's own settings back to how it started. */
  protected abstract restartSettings(): void;

  /** The car at the charger at t (a new visit starts its energy at 0). */
  protected carAt(t: number): Visit | undefined {
    if (this.unplugged) return undefined;
    const visit = visitAt(this.options, t);
    if (visit && visit.arrive !== this.visit?.arrive) {
      this.visit = visit;
      this.takenWh = 0;
    }
    if (!visit && this.visit) {
      this.carLeft();
      this.visit = undefined;
    }
    return visit;
  }

  protected powerAt(t: number): number {
    const visit = this.carAt(t);
    this.drawingW = 0;
    if (!visit) return 0;
    const { watts, phases } = this.offeredW();
    if (watts <= 0) return 0;
    this.drawingW = Math.min(watts, carLimitW(this.options, visit, this.takenWh, phases));
    return this.drawingW;
  }

  protected took(joules: number): void {
    this.takenWh += joules / 3600;
    this.totalWh += joules / 3600;
  }

  protected restart(): void {
    this.restartSettings();
    this.visit = undefined;
    this.takenWh = 0;
    this.totalWh = 0;
    this.drawingW = 0;
    this.unplugged = false;
    this.refuseWith = undefined;
  }
}
