/**
 * Extra seeded sites for benches and demos that need more devices than the fixed fleet (`extraDevices`):
 * homes, solar homes with switches, family homes and small businesses across the timezones the sites
 * know, each built from the same channel roles as the fixed fleet. The same seed and count give the
 * same sites; the fixed fleet's devices never change.
 */
import type { DeviceModel } from '../api/types.js';
import { CATEGORY as C } from './catalog.js';
import { build, cellularRadio, type ChannelSpec, type DeviceSpec, type FleetOptions } from './fleet.js';
import { between, noise } from './site/random.js';
import type { ChannelRole } from './site/roles.js';
import type { SimDevice } from './types.js';

/** Serial numbers 1..8 are the fixed fleet's; the SIM id has room for three digits. */
const FIRST_SERIAL = 9;
export const MAX_EXTRA_DEVICES = 999 - FIRST_SERIAL + 1;

const GRID: ChannelRole = { kind: 'grid' };
const ZONES = [
  'Australia/Sydney', 'Australia/Melbourne', 'Australia/Brisbane', 'Australia/Adelaide', 'Australia/Perth',
  'Australia/Hobart', 'Australia/Darwin', 'Pacific/Auckland',
] as const;
const STREETS = [
  'Wattle Street', 'Banksia Avenue', 'Ocean Road', 'Jacaranda Crescent', 'Hill Street', 'Bottlebrush Way',
  'Station Road', 'Harbour View Drive', 'Gum Tree Lane', 'River Terrace', 'Kookaburra Close', 'Park Parade',
] as const;
const BUSINESSES = [
  'Corner café', 'Dental clinic', 'Bakery', 'Veterinary clinic', 'Hardware store', 'Community hall',
  'Medical centre', 'Pharmacy', 'Childcare centre', 'Bike shop', 'Craft brewery', 'Pizzeria',
] as const;

/** Model letter (B, D, E or F, as the spec's ids begin) and code, as the fixed fleet's ids spell them. */
const ID_PREFIX: Partial<Record<DeviceModel, string>> = { '3M': 'B30', '6M': 'D60', '6M+3SW': 'D63' };

type Draw = (salt: number) => number;

function home(draw: Draw, label: string): Pick<DeviceSpec, 'model' | 'label' | 'channels' | 'ctRating' | 'phasesCount'> {
  return {
    model: '3M', label, ctRating: 60, phasesCount: 1,
    channels: [
      ['Grid', C.grid, GRID],
      ['Solar', C.solar, { kind: 'solar', kwp: round1(between(draw(1), 3, 9)) }],
      ['House', C.lightingAndPower, { kind: 'house', scale: round1(between(draw(2), 0.7, 1.4)) }],
    ],
  };
}

function solarHome(draw: Draw, label: string): Pick<DeviceSpec, 'model' | 'label' | 'channels' | 'ctRating' | 'phasesCount' | 'switches'> {
  return {
    model: '6M+3SW', label, ctRating: 60, phasesCount: 3,
    channels: [
      ['Grid', C.grid, GRID],
      ['Solar', C.solar, { kind: 'solar', kwp: round1(between(draw(1), 5, 13)) }],
      ['Hot water', C.hotWater, { kind: 'hotwater', watts: draw(3) < 0.5 ? 3600 : 2400, switchIndex: 0 }],
      ['Pool pump', C.poolPump, { kind: 'pool', watts: Math.round(between(draw(4), 750, 1500)), switchIndex: 1 }],
      ['EV charger', C.electricVehicle, { kind: 'ev', watts: draw(5) < 0.6 ? 7200 : 3600, switchIndex: 2 }],
      ['House', C.lightingAndPower, { kind: 'house', scale: round1(between(draw(2), 0.8, 1.5)) }],
    ],
    switches: [
      { contactorType: 'NO', label: 'Hot water', state: 'open' },
      { contactorType: 'NC', label: 'Pool pump', state: 'open' },
      { contactorType: 'NO', label: 'EV charger', state: 'open' },
    ],
  };
}

function familyHome(draw: Draw, label: string): Pick<DeviceSpec, 'model' | 'label' | 'channels' | 'ctRating' | 'phasesCount'> {
  return {
    model: '6M', label, ctRating: 60, phasesCount: 1,
    channels: [
      ['Grid', C.grid, GRID],
      ['Solar', C.solar, { kind: 'solar', kwp: round1(between(draw(1), 4, 10)) }],
      ['Hot water', C.hotWater, { kind: 'hotwater', watts: 3600 }],
      ['Air conditioner', C.airConditioning, { kind: 'aircon', kw: round1(between(draw(3), 2.5, 8)), business: false }],
      ['Pool pump', C.poolPump, { kind: 'pool', watts: Math.round(between(draw(4), 600, 1200)) }],
      ['House', C.lightingAndPower, { kind: 'house', scale: round1(between(draw(2), 0.8, 1.3)) }],
    ],
  };
}

function business(draw: Draw, label: string): Pick<DeviceSpec, 'model' | 'label' | 'channels' | 'ctRating' | 'phasesCount'> {
  return {
    model: '6M', label, ctRating: 120, phasesCount: 3,
    channels: [
      ['Grid', C.grid, GRID],
      ['Rooftop solar', C.solar, { kind: 'solar', kwp: Math.round(between(draw(1), 8, 30)) }],
      ['Air conditioning', C.airConditioning, { kind: 'aircon', kw: Math.round(between(draw(3), 5, 20)), business: true }],
      ['Lighting', C.lighting, { kind: 'lighting', watts: Math.round(between(draw(4), 800, 4000)), business: true }],
      ['Power', C.power, { kind: 'business', watts: Math.round(between(draw(5), 2000, 12000)) }],
      ['Kitchen', C.oven, { kind: 'oven', watts: Math.round(between(draw(6), 2000, 8000)), business: true }],
    ],
  };
}

/** `count` extra sites after the fixed fleet, deterministic for `fleet.seed`. */
export function createExtraSites(count: number, fleet: FleetOptions): SimDevice[] {
  if (!Number.isInteger(count) || count < 0 || count > MAX_EXTRA_DEVICES) {
    throw new Error(`extraDevices must be a whole number from 0 to ${MAX_EXTRA_DEVICES}, got ${count}`);
  }
  return Array.from({ length: count }, (_, i) => {
    const serial = FIRST_SERIAL + i;
    const draw: Draw = (salt) => noise(fleet.seed, serial, 0xe5, salt);
    const pick = <T>(list: readonly T[], salt: number): T => list[Math.floor(draw(salt) * list.length)];
    const street = `${1 + Math.floor(draw(11) * 180)} ${pick(STREETS, 12)}`;
    const kind = draw(10);
    const site = kind < 0.3 ? home(draw, street)
      : kind < 0.55 ? solarHome(draw, street)
        : kind < 0.8 ? familyHome(draw, street)
          : business(draw, pick(BUSINESSES, 13));
    const id = `${ID_PREFIX[site.model]}${String(serial).padStart(10, '0')}`;
    const channels: ChannelSpec[] = site.channels;
    return build({
      ...site,
      id,
      channels,
      timezone: pick(ZONES, 14),
      firmwareVersion: pick(['1.4.2', '1.5.0', '1.5.1'], 15),
      cellular: cellularRadio('4G', serial, -Math.round(between(draw(16), 6, 14)), -Math.round(between(draw(17), 80, 110)), -Math.round(between(draw(18), 55, 85))),
    }, fleet);
  });
}

const round1 = (x: number): number => Math.round(x * 10) / 10;
