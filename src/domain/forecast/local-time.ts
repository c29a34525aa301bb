/** Local days and hours of a zone, with the zone's offset cached per hour (asking luxon every time is slow). */
import { IANAZone } from 'luxon';

const DAY_S = 86400;

export class LocalTime {
  private readonly zone: IANAZone;
  private readonly offsets = new Map<number, number>();

  constructor(zone: string) {
    this.zone = IANAZone.create(zone);
  }

  /** Offset from UTC at t, in seconds. */
  offset(t: number): number {
    const hour = Math.floor(t / 3600);
    let minutes = this.offsets.get(hour);
    if (minutes === undefined) {
      minutes = this.zone.offset(hour * 3600 * 1000);
      this.offsets.set(hour, minutes);
    }
    return minutes * 60;
  }

  /** Local day number (days since 1970 in local time) of t. */
  day(t: number): number {
    return Math.floor((t + this.offset(t)) / DAY_S);
  }

  /** Local hour 0..23 of t. */
  hour(t: number): number {
    const local = t + this.offset(t);
    return Math.floor((((local % DAY_S) + DAY_S) % DAY_S) / 3600);
  }

  /** Unix s of the local midnight that starts t's day. */
  dayStart(t: number): number {
    const day = this.day(t);
    // The offset at midnight may differ from t's on a DST day: settle it from a guess.
    let guess = day * DAY_S - this.offset(t);
    guess = day * DAY_S - this.offset(guess);
    return guess;
  }
}
