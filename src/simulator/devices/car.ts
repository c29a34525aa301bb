/**
 * A car that comes home in the evening and leaves in the morning, on a seeded timetable (one visit a night), and with
 * `homeDays` stays home some days (weekends, a day working from home) from the evening before to the next workday.
 */
import { IANAZone } from 'luxon';
import { between, noise } from '../site/random.js';

export interface CarOptions {
  seed: number;
  /** The site's time zone: the timetable is in local time. */
  zone: string;
  /** Battery (Wh). */
  capacityWh?: number;
  /** On-board charger's limit per number of phases (W). */
  maxW1?: number;
  maxW3?: number;
  /** The car stays home all day (a second car, a day off): a visit of `needWh` from local midnight to midnight. */
  alwaysHome?: { needWh: number };
  /**
   * Days the car does not leave in the morning and stays home in daylight: Saturdays and Sundays with `weekends`, and
   * a seeded share of the other days (`workFromHome`, 0–1). Absent: it leaves every morning.
   */
  homeDays?: { weekends?: boolean; workFromHome?: number };
}

export interface Visit {
  /** Unix s. */
  arrive: number;
  leave: number;
  /** Energy it needs to be full (Wh), 15 to 40 kWh. */
  needWh: number;
}

const DAY = 86400;

/** The car stays home all of local day `day` (days since 1970 in the zone; day 0 was a Thursday). */
export function homeDay(options: CarOptions, day: number): boolean {
  const home = options.homeDays;
  if (!home) return false;
  const weekday = ((day + 3) % 7) + 1; // 1 = Monday … 7 = Sunday
  if (home.weekends && weekday >= 6) return true;
  return noise(options.seed, 0xca4, day) < (home.workFromHome ?? 0);
}

/** The longest run of home days looked back over (a visit is at most this long). */
const MAX_HOME_RUN = 14;

/**
 * The visit the car is home for on the night of local day `day` (days since 1970 in the zone): it arrives about 18:00
 * (17:15–18:45) on a day it left in the morning, leaves about 07:30 (07:00–08:00) on the next morning that is not a
 * home day, and needs 15–40 kWh. The same seed always gives the same timetable.
 */
export function visitOf(options: CarOptions, day: number): Visit {
  const zone = IANAZone.create(options.zone);
  // The instant of a local time: the offset is taken at the instant itself (the second pass), not at the wall time read
  // as UTC, which lies on the other side of a DST change in the hours before one.
  const local = (d: number, hours: number): number => {
    const wall = d * DAY + hours * 3600;
    const first = wall - zone.offset(wall * 1000) * 60;
    return Math.round(wall - zone.offset(first * 1000) * 60);
  };
  let arriveDay = day;
  while (arriveDay > day - MAX_HOME_RUN && homeDay(options, arriveDay)) arriveDay -= 1;
  let leaveDay = day + 1;
  while (leaveDay < arriveDay + MAX_HOME_RUN && homeDay(options, leaveDay)) leaveDay += 1;
  const arrive = local(arriveDay, 18 + between(noise(options.seed, 0xca1, arriveDay), -0.75, 0.75));
  const leave = local(leaveDay, 7.5 + between(noise(options.seed, 0xca2, leaveDay - 1), -0.5, 0.5));
  return { arrive, leave, needWh: Math.round(between(noise(options.seed, 0xca3, arriveDay), 15000, 40000)) };
}

/** The visit going on at t, if the car is home. */
export function visitAt(options: CarOptions, t: number): Visit | undefined {
  const zone = IANAZone.create(options.zone);
  const day = Math.floor((t + zone.offset(t * 1000) * 60) / DAY);
  if (options.alwaysHome) {
    const start = day * DAY - zone.offset(day * DAY * 1000) * 60;
    return { arrive: start, leave: start + DAY, needWh: options.alwaysHome.needWh };
  }
  for (const d of [day, day - 1]) {
    const v = visitOf(options, d);
    if (t >= v.arrive && t < v.leave) return v;
  }
  return undefined;
}

/**
 * What the car takes (W) at most, by its on-board charger and its state of charge: the full limit up to 80 %, then
 * tapering to a tenth of it at 100 %.
 */
export function carLimitW(options: CarOptions, visit: Visit, takenWh: number, phases: 1 | 3): number {
  const capacity = options.capacityWh ?? 60000;
  if (takenWh >= visit.needWh) return 0;
  const soc = (capacity - visit.needWh + takenWh) / capacity;
  const max = phases === 3 ? (options.maxW3 ?? 11000) : (options.maxW1 ?? 7400);
  return soc < 0.8 ? max : max * Math.max(0.1, (1 - soc) / 0.2);
}
