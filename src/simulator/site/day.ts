/**
 * One UTC day of a site as the device stores it: 288 five-minute records per channel, in whole
 * Joules, built so that the Grid channel is exactly the loads minus the solar in every record and
 * every 30-second slot. Switched and thermostat loads are stepped slot by slot from the switch
 * history, so a change picked up at time t changes only the slots after t.
 * Days are cached per device and dropped when a switch change could alter them.
 */
import { IANAZone } from 'luxon';
import type { SimDevice, SimSwitch } from '../types.js';
import { between, noise } from './random.js';
import { historicSchedule, isLoad, REACTIVE_RATIO, solarClearSky, statelessPower, type ChannelRole, type Moment } from './roles.js';
import { locationOf, sunSine, type Location } from './sun.js';
import { cloudFactor, weatherOf, type DayWeather } from './weather.js';

export const DAY = 86400;
export const RECORD = 300;
export const SLOT = 30;
export const RECORDS_PER_DAY = DAY / RECORD;
export const SLOTS_PER_RECORD = RECORD / SLOT;
const SLOTS_PER_DAY = DAY / SLOT;

export interface DayData {
  /** UTC day number since 1970. */
  day: number;
  /** Length of the device's switch-change list when built. */
  version: number;
  zone: string | undefined;
  /** Per channel: 288 records of real and reactive energy (J). */
  real: Float64Array[];
  reactive: Float64Array[];
  /** Per channel stepped slot by slot (2880 slots of real energy), else undefined. */
  slots: Array<Int32Array | undefined>;
}

export interface SiteContext {
  dev: SimDevice;
  site: number;
  loc: Location;
  offset: number;
  weather: Map<number, DayWeather>;
}

const zones = new Map<string, IANAZone | null>();

function offsetSeconds(zone: string | undefined, t: number): number {
  if (zone === undefined) return 0;
  let z = zones.get(zone);
  if (z === undefined) {
    z = IANAZone.isValidZone(zone) ? IANAZone.create(zone) : null;
    zones.set(zone, z);
  }
  return z ? z.offset(t * 1000) * 60 : 0;
}

/** The site as seen on UTC day `day`: its place, its zone's offset that day, its weather cache. */
export function context(dev: SimDevice, day: number): SiteContext {
  const offset = offsetSeconds(dev.timezone, day * DAY + DAY / 2);
  return { dev, site: dev.site, loc: locationOf(dev.timezone, offset / 60), offset, weather: new Map() };
}

function weatherFor(ctx: SiteContext, localDay: number, t: number): DayWeather {
  let w = ctx.weather.get(localDay);
  if (!w) {
    w = weatherOf(ctx.dev.seed, ctx.site, ctx.loc, localDay, t);
    ctx.weather.set(localDay, w);
  }
  return w;
}

export function momentAt(ctx: SiteContext, t: number): Moment {
  const local = t + ctx.offset;
  const localDay = Math.floor(local / DAY);
  const dow = (((localDay + 4) % 7) + 7) % 7;
  return {
    seed: ctx.dev.seed,
    site: ctx.site,
    record: Math.floor(t / RECORD),
    localDay,
    hour: (local - localDay * DAY) / 3600,
    weekend: dow === 0 || dow === 6,
    weather: weatherFor(ctx, localDay, t),
    sun: sunSine(ctx.loc, t),
  };
}

/**
 * Whether the switch lets current flow in each of `count` slots from `from` (a slot follows the
 * state in effect at its start): the switch history, else the state held since the simulator
 * started, else (before the start) the load's old timer. Without a switch, always.
 */
function closedFlags(ctx: SiteContext, sw: SimSwitch | undefined, role: ChannelRole, from: number, count: number): Uint8Array {
  const out = new Uint8Array(count);
  if (!sw) return out.fill(1);
  const dev = ctx.dev;
  const history = sw.history;
  let next = 0;
  let state: string | undefined;
  for (let k = 0; k < count; k++) {
    const t = from + k * SLOT;
    while (next < history.length && history[next].at <= t) state = history[next++].state;
    let closed: boolean;
    if (state !== undefined) closed = state === 'closed';
    else if (t >= dev.since) closed = sw.initialState === 'closed';
    else closed = historicSchedule(role, localHour(ctx, t));
    out[k] = closed ? 1 : 0;
  }
  return out;
}

const localHour = (ctx: SiteContext, t: number): number => {
  const local = t + ctx.offset;
  return (local - Math.floor(local / DAY) * DAY) / 3600;
};

function switchOf(dev: SimDevice, role: ChannelRole): SimSwitch | undefined {
  return 'switchIndex' in role && role.switchIndex !== undefined ? dev.switches[role.switchIndex] : undefined;
}

const HOT_WATER_ON = 2 * 3.6e6;
const HOT_WATER_TANK = 12 * 3.6e6;

/** The habits of one local day that the stepped loads follow. */
interface Habits {
  weekend: boolean;
  /** Hot water drawn per slot in the morning and evening windows (J). */
  morningDraw: number;
  eveningDraw: number;
  /** EV: whether the car was used, when it comes home and leaves (local hours), the energy it needs (J). */
  carUsed: boolean;
  arrive: number;
  leave: number;
  need: number;
}

function habitsOf(ctx: SiteContext, localDay: number): Habits {
  const seed = ctx.dev.seed;
  const dow = (((localDay + 4) % 7) + 7) % 7;
  const weekend = dow === 0 || dow === 6;
  return {
    weekend,
    morningDraw: (between(noise(seed, ctx.site ^ 0xf0, localDay), 2.5, 4.5) * 3.6e6) / 180,
    eveningDraw: (between(noise(seed, ctx.site ^ 0xf1, localDay), 1.5, 3.5) * 3.6e6) / 300,
    carUsed: noise(seed, ctx.site ^ 0xf2, localDay) < (weekend ? 0.45 : 0.75),
    arrive: weekend ? 11 + 4 * noise(seed, ctx.site ^ 0xf3, localDay) : 17 + 2.5 * noise(seed, ctx.site ^ 0xf3, localDay),
    leave: 7 + noise(seed, ctx.site ^ 0xf4, localDay),
    need: between(noise(seed, ctx.site ^ 0xf5, localDay), 5, 22) * 3.6e6,
  };
}

/** What a stepped load carries from one slot to the next: the tank and the car. */
interface StepState {
  /** Heat the tank misses (J); 0 = full. */
  deficit: number;
  heating: boolean;
  plugged: boolean;
  arrivedDay: number;
  /** Energy the car still wants (J). */
  need: number;
}

/** At the first data of a device: a full tank and an unplugged car. */
const FRESH: StepState = { deficit: 0, heating: false, plugged: false, arrivedDay: Number.NaN, need: 0 };

/** Slot energies of a thermostat hot-water heater or an EV charger over one UTC day, from `state` (advanced in place). */
function steppedLoad(ctx: SiteContext, role: ChannelRole & { kind: 'hotwater' | 'ev' }, from: number, state: StepState): Int32Array {
  const sw = switchOf(ctx.dev, role);
  const out = new Int32Array(SLOTS_PER_DAY);
  const max = role.watts * SLOT;
  let { deficit, heating, plugged, arrivedDay, need } = state;
  let habitsDay = Number.NaN;
  let h: Habits | undefined;
  const closed = closedFlags(ctx, sw, role, from, SLOTS_PER_DAY);
  for (let k = 0; k < SLOTS_PER_DAY; k++) {
    const t = from + k * SLOT;
    const local = t + ctx.offset;
    const localDay = Math.floor(local / DAY);
    const hour = (local - localDay * DAY) / 3600;
    if (localDay !== habitsDay || h === undefined) {
      h = habitsOf(ctx, localDay);
      habitsDay = localDay;
    }
    const enabled = sw ? closed[k] === 1 : role.kind === 'hotwater' ? hour >= 23 || hour < 7 : true;
    let e = 0;
    if (role.kind === 'hotwater') {
      const use = (hour >= 6.5 && hour < 8 ? h.morningDraw : 0) + (hour >= 18.5 && hour < 21 ? h.eveningDraw : 0);
      deficit = Math.min(HOT_WATER_TANK, deficit + use + 70 * SLOT);
      if (deficit > HOT_WATER_ON) heating = true;
      if (enabled && heating) {
        e = Math.min(max, Math.round(deficit));
        deficit -= e;
        if (deficit <= 0) heating = false;
      }
    } else {
      if (plugged && localDay > arrivedDay && hour >= h.leave) {
        plugged = false;
        need = 0;
      }
      if (!plugged && localDay !== arrivedDay && h.carUsed && hour >= h.arrive) {
        plugged = true;
        arrivedDay = localDay;
        need = h.need;
      }
      if (plugged && enabled && need > 0) {
        // The charger's draw wobbles a little around its rating.
        const rate = Math.round(max * (0.985 + 0.015 * Math.sin(t / 97)));
        e = Math.min(rate, Math.round(need));
        need -= e;
      }
    }
    out[k] = e;
  }
  Object.assign(state, { deficit, heating, plugged, arrivedDay, need });
  return out;
}

/** End-of-day states of a stepped channel, with the switch-history version they were built at. */
interface StepEnd {
  version: number;
  zone: string | undefined;
  state: StepState;
}

const stepEnds = new WeakMap<SimDevice, Map<number, Map<number, StepEnd>>>();

function endsOf(dev: SimDevice, channel: number): Map<number, StepEnd> {
  let byChannel = stepEnds.get(dev);
  if (!byChannel) {
    byChannel = new Map();
    stepEnds.set(dev, byChannel);
  }
  let ends = byChannel.get(channel);
  if (!ends) {
    ends = new Map();
    byChannel.set(channel, ends);
  }
  return ends;
}

/** Valid unless a switch change recorded since `version` falls before the end of `day`. */
function unchangedSince(dev: SimDevice, version: number, zone: string | undefined, day: number): boolean {
  if (zone !== dev.timezone) return false;
  const end = (day + 1) * DAY;
  for (let i = version; i < dev.switchChanges.length; i++) if (dev.switchChanges[i] < end) return false;
  return true;
}

/**
 * The tank and car at the start of `day`: stepped day by day from the device's first data
 * (each day's end is kept), so the state runs on without a break from day to day.
 */
function stepStateAt(dev: SimDevice, channel: number, role: ChannelRole & { kind: 'hotwater' | 'ev' }, day: number): StepState {
  const ends = endsOf(dev, channel);
  const firstDay = Math.floor(dev.dataStart / DAY);
  let from = day - 1;
  while (from >= firstDay) {
    const end = ends.get(from);
    if (end && unchangedSince(dev, end.version, end.zone, from)) break;
    from--;
  }
  const state: StepState = from >= firstDay ? { ...(ends.get(from) as StepEnd).state } : { ...FRESH };
  for (let d = Math.max(from + 1, firstDay); d < day; d++) {
    steppedLoad(context(dev, d), role, d * DAY, state);
    ends.set(d, { version: dev.switchChanges.length, zone: dev.timezone, state: { ...state } });
  }
  return state;
}

/** Slot energies of a load or solar channel gated by a switch. */
function gatedLoad(ctx: SiteContext, role: ChannelRole, dayStart: number, moments: Moment[]): Int32Array {
  const out = new Int32Array(SLOTS_PER_DAY);
  const closed = closedFlags(ctx, switchOf(ctx.dev, role), role, dayStart, SLOTS_PER_DAY);
  for (let r = 0; r < RECORDS_PER_DAY; r++) {
    const watts = recordPower(ctx, role, moments[r]);
    if (watts === 0) continue;
    for (let s = 0; s < SLOTS_PER_RECORD; s++) {
      const k = r * SLOTS_PER_RECORD + s;
      if (closed[k] === 1) out[k] = Math.round(watts * SLOT);
    }
  }
  return out;
}

function recordPower(ctx: SiteContext, role: ChannelRole, m: Moment): number {
  if (role.kind === 'solar') return solarClearSky(role.kwp, m.sun) * cloudFactor(ctx.dev.seed, ctx.site, m.weather, m.record);
  if (role.kind === 'pool' && role.switchIndex !== undefined) return role.watts * (0.97 + 0.06 * noise(ctx.dev.seed, ctx.site ^ 0xe5, m.record));
  return statelessPower(role, m);
}

const stepped = (role: ChannelRole): role is ChannelRole & { kind: 'hotwater' | 'ev' } => role.kind === 'hotwater' || role.kind === 'ev';
const gated = (role: ChannelRole): boolean => !stepped(role) && 'switchIndex' in role && role.switchIndex !== undefined;

function buildDay(dev: SimDevice, day: number): DayData {
  const ctx = context(dev, day);
  const dayStart = day * DAY;
  const n = dev.roles.length;
  const real: Float64Array[] = [];
  const reactive: Float64Array[] = [];
  const slots: Array<Int32Array | undefined> = [];
  const moments: Moment[] = [];
  for (let r = 0; r < RECORDS_PER_DAY; r++) moments.push(momentAt(ctx, dayStart + r * RECORD + RECORD / 2));
  for (let c = 0; c < n; c++) {
    const role = dev.roles[c];
    const rec = new Float64Array(RECORDS_PER_DAY);
    const q = new Float64Array(RECORDS_PER_DAY);
    const ratio = REACTIVE_RATIO[role.kind];
    let slot: Int32Array | undefined;
    if (stepped(role)) {
      const state = stepStateAt(dev, c, role, day);
      slot = steppedLoad(ctx, role, dayStart, state);
      endsOf(dev, c).set(day, { version: dev.switchChanges.length, zone: dev.timezone, state });
    }
    else if (gated(role)) slot = gatedLoad(ctx, role, dayStart, moments);
    if (slot) {
      for (let r = 0; r < RECORDS_PER_DAY; r++) {
        let e = 0;
        let er = 0;
        for (let s = 0; s < SLOTS_PER_RECORD; s++) {
          const v = slot[r * SLOTS_PER_RECORD + s];
          e += v;
          er += Math.round(v * ratio);
        }
        rec[r] = e;
        q[r] = er;
      }
    } else if (role.kind !== 'grid' && role.kind !== 'none') {
      for (let r = 0; r < RECORDS_PER_DAY; r++) {
        const e = Math.round(recordPower(ctx, role, moments[r]) * RECORD);
        rec[r] = e;
        q[r] = Math.round(e * ratio);
      }
    }
    real.push(rec);
    reactive.push(q);
    slots.push(slot);
  }
  dev.roles.forEach((role, c) => {
    if (role.kind !== 'grid') return;
    for (let r = 0; r < RECORDS_PER_DAY; r++) {
      let e = 0;
      let q = 0;
      dev.roles.forEach((other, o) => {
        const sign = isLoad(other) ? 1 : other.kind === 'solar' ? -1 : 0;
        e += sign * real[o][r];
        q += sign * reactive[o][r];
      });
      real[c][r] = e;
      reactive[c][r] = q;
    }
  });
  return { day, version: dev.switchChanges.length, zone: dev.timezone, real, reactive, slots };
}

// ---- cache ----

/** About 60 MB at most: two years of the largest site. */
const MAX_CACHED_DAYS = 800;
const cache = new Map<string, DayData>();
const deviceKeys = new WeakMap<SimDevice, string>();
let nextDeviceKey = 0;

function keyOf(dev: SimDevice): string {
  let k = deviceKeys.get(dev);
  if (!k) {
    k = String(nextDeviceKey++);
    deviceKeys.set(dev, k);
  }
  return k;
}

/** A cached day stays valid unless a switch change since it was built falls before its end. */
function stillValid(dev: SimDevice, d: DayData): boolean {
  if (d.zone !== dev.timezone) return false;
  const end = (d.day + 1) * DAY;
  for (let i = d.version; i < dev.switchChanges.length; i++) if (dev.switchChanges[i] < end) return false;
  return true;
}

export function dayData(dev: SimDevice, day: number): DayData {
  const key = `${keyOf(dev)}:${day}`;
  const found = cache.get(key);
  if (found && stillValid(dev, found)) {
    cache.delete(key);
    cache.set(key, found);
    return found;
  }
  const built = buildDay(dev, day);
  cache.delete(key);
  cache.set(key, built);
  while (cache.size > MAX_CACHED_DAYS) cache.delete(cache.keys().next().value as string);
  return built;
}

/**
 * The 10 slot energies of channel c in record r of a day: the site's own, plus (real energy) what device doubles
 * wired to the channel drew (devices/): the grid channel sums its load channels, so it shows them too.
 */
export function slotsOfRecord(dev: SimDevice, d: DayData, c: number, r: number, field: 'real' | 'reactive'): number[] {
  const out = siteSlotsOfRecord(dev, d, c, r, field);
  const externals = field === 'real' && dev.roles[c].kind !== 'grid' ? dev.externals?.filter((e) => e.channel === c) : undefined;
  if (!externals?.length) return out;
  const start = d.day * DAY + r * RECORD;
  return out.map((v, s) => v + externals.reduce((sum, e) => sum + Math.round(e.slotJoules(start + s * SLOT)), 0));
}

/**
 * What device doubles wired to channel c drew in record r (J): the whole record, as its slots show it; the grid
 * channel carries every double on a load channel (and returns what one on a solar channel gave).
 */
export function externalRecordJoules(dev: SimDevice, d: DayData, c: number, r: number): number {
  if (!dev.externals?.length) return 0;
  const start = d.day * DAY + r * RECORD;
  const on = (channel: number): number => (dev.externals ?? []).filter((e) => e.channel === channel).reduce((sum, e) => {
    let joules = 0;
    for (let s = 0; s < SLOTS_PER_RECORD; s++) joules += Math.round(e.slotJoules(start + s * SLOT));
    return sum + joules;
  }, 0);
  if (dev.roles[c].kind !== 'grid') return on(c);
  return dev.roles.reduce((sum, role, o) => sum + (isLoad(role) ? on(o) : role.kind === 'solar' ? -on(o) : 0), 0);
}

function siteSlotsOfRecord(dev: SimDevice, d: DayData, c: number, r: number, field: 'real' | 'reactive'): number[] {
  const role = dev.roles[c];
  if (role.kind === 'grid') {
    const out = new Array<number>(SLOTS_PER_RECORD).fill(0);
    dev.roles.forEach((other, o) => {
      const sign = isLoad(other) ? 1 : other.kind === 'solar' ? -1 : 0;
      if (sign === 0) return;
      const parts = slotsOfRecord(dev, d, o, r, field);
      for (let s = 0; s < SLOTS_PER_RECORD; s++) out[s] += sign * parts[s];
    });
    return out;
  }
  const slot = d.slots[c];
  if (slot) {
    const ratio = REACTIVE_RATIO[role.kind];
    const out: number[] = [];
    for (let s = 0; s < SLOTS_PER_RECORD; s++) {
      const v = slot[r * SLOTS_PER_RECORD + s];
      out.push(field === 'real' ? v : Math.round(v * ratio));
    }
    return out;
  }
  const total = d[field][c][r];
  const record = d.day * RECORDS_PER_DAY + r;
  const weights: number[] = [];
  let sum = 0;
  for (let s = 0; s < SLOTS_PER_RECORD; s++) {
    const w = 0.85 + 0.3 * noise(dev.seed, dev.site ^ (c + 1), record, s);
    weights.push(w);
    sum += w;
  }
  // Cumulative rounding: integer parts that add up exactly to the record.
  const out: number[] = [];
  let cumulative = 0;
  let previous = 0;
  for (let s = 0; s < SLOTS_PER_RECORD; s++) {
    cumulative += weights[s];
    const upTo = s === SLOTS_PER_RECORD - 1 ? total : Math.floor((total * cumulative) / sum);
    out.push(upTo - previous);
    previous = upTo;
  }
  return out;
}
