/** Types of the energy API v3 (spec sections 2 and 4). */

export type DeviceModel =
  | '3M' | '6M' | '6W' | '6M+3SW' | '6W+3SW' | '6M+One' | '3RM' | '3RM+3SW' | '6MW' | '6MW-CER';

export const DEVICE_MODELS: readonly DeviceModel[] = [
  '3M', '6M', '6W', '6M+3SW', '6W+3SW', '6M+One', '3RM', '3RM+3SW', '6MW', '6MW-CER',
];

export type SwitchState = 'open' | 'closed';
export type ContactorType = 'NO' | 'NC';
export type CtRating = 60 | 120 | 200 | 400 | 600 | 3000;

export interface SignalQualityDetail {
  rsrq?: number;
  rsrp?: number;
  rssi?: number;
  [key: string]: number | undefined;
}

export interface CellularComms {
  apn?: string;
  imsi?: string;
  simId?: string;
  carrier?: string;
  lastHeardAt?: number | null;
  mode?: '4G';
  signalQuality?: number;
  signalQualityDetail?: SignalQualityDetail;
  signalQualityLabel?: string;
}

export interface WifiComms {
  ipAddress?: string;
  gateway?: string;
  subnetMask?: string;
  lastHeardAt?: number | null;
  macAddress?: string;
  mode?: 'STA';
  pskUpdatedAt?: number | null;
  signalQuality?: number;
  signalQualityDetail?: SignalQualityDetail;
  signalQualityLabel?: string;
  ssid?: string;
  pending?: { ssid?: string; pskUpdatedAt?: number };
}

export interface Comms {
  /** `cellular`, `wifi`, or `cellular,wifi` on the 6MW series (capability, not active transport). */
  type: string;
  /** `3G`/`4G` for cellular; `4G` or `wifi` on the 6MW series. */
  mode?: string;
  lastHeardAt?: number | null;
  signalQualityDbm?: number;
  simId?: string;
  apn?: string;
  imsi?: string;
  networkId?: string;
  cellQuality?: number;
  macAddress?: string;
  lastHeardVia?: 'cellular' | 'wifi';
  cellular?: CellularComms;
  wifi?: WifiComms;
}

export interface Channel {
  id: string;
  ctRating: number;
  label: string;
  categoryId: number;
  categoryLabel?: string;
  pending?: { ctRating?: number };
}

export interface PhaseGroup {
  included: string[];
}

export interface Phases {
  count: 0 | 1 | 2 | 3 | null;
  grouping?: PhaseGroup[];
}

export interface Switch {
  id: string;
  state: SwitchState;
  label: string;
  contactorType: ContactorType;
  closedStateLabel: string;
  openStateLabel: string;
  pending?: { state?: SwitchState };
}

export interface Device {
  id: string;
  label: string;
  timezone?: string;
  model: DeviceModel | string;
  firmwareVersion?: string;
  latestStatus?: number;
  uninitialised?: boolean;
  shortEnergyReportingInterval: number;
  pending?: { shortEnergyReportingInterval?: number };
  comms: Comms;
  channels: Channel[];
  phases: Phases;
  switches: Switch[];
}

export interface ChannelCategory {
  id: number;
  label: string;
  description: string;
}

export interface ModelInfo {
  code: string;
  displayName: string;
  channelsCount: number;
  switchesCount: number;
  communications: string;
}

/** PATCH /devices/{id} body (spec 4.3). Only the fields to change. */
export interface DeviceUpdate {
  id?: string;
  label?: string | null;
  timezone?: string;
  channels?: Array<{ id: string; label?: string; ctRating?: number; categoryId?: number }>;
  phases?: { count: 0 | 1 | 2 | 3; grouping?: PhaseGroup[] };
  switches?: Array<{
    id: string;
    label?: string;
    state?: SwitchState;
    contactorType?: ContactorType;
    closedStateLabel?: string;
    openStateLabel?: string;
  }>;
  comms?: { wifi?: { ssid?: string; psk?: string } };
}

export interface PatchResult {
  status: number | string;
  result: Device;
}

/** One energy entry. Field presence depends on the query's convert/fields/group options (spec 2.9 to 2.11). */
export interface EnergyEntry {
  timestamp: number;
  duration?: number;
  frequency?: number;
  groupedBy?: 'phases';
  powerFactor?: Array<number | null>;
  [field: string]: number | string | Array<number | null> | undefined;
}

export interface ModbusEntry {
  timestamp: number;
  model?: string;
  [field: string]: number | string | undefined;
}

export type EnergyKind = 'short' | 'long';
export type Granularity = '5m' | '15m' | '30m' | 'hour' | 'day' | 'week' | 'month';
export const GRANULARITIES: readonly Granularity[] = ['5m', '15m', '30m', 'hour', 'day', 'week', 'month'];
export type EnergyConversion = 'kWh' | 'kW';

/** Options shared by energy range and first/latest queries. */
export interface EnergyOptions {
  convert?: EnergyConversion;
  /** Adds `powerFactor` (`fields[energy]=+pf`). */
  powerFactor?: boolean;
  /** `filter[group]=phases`. */
  groupByPhase?: boolean;
  /** first/latest only: return only `{timestamp}` (`fields[energy]=timestamp`). */
  timestampOnly?: boolean;
}

export interface EnergyRangeQuery extends EnergyOptions {
  fromTs: number;
  toTs: number;
  /** long energy only; default `5m`. */
  granularity?: Granularity;
  /** long energy only; required for `hour` and larger. */
  timezone?: string;
}

export interface RangeQuery {
  fromTs: number;
  toTs: number;
}

/** What the client knows of the key's rate limits. */
export interface RateLimitState {
  tps: number;
  tpd: number;
  /** Requests left today, as last learnt from the service or counted locally. */
  dailyRemaining: number;
  /** Unix seconds when the daily budget resets (00:00 UTC). */
  dailyResetAt: number;
  /** Requests waiting in the limiter queue. */
  queued: number;
  /** True while the client waits after a 429. */
  throttled: boolean;
  /** Ms added to the one-second window as a safety margin (widened after a 429 TPS). */
  marginMs: number;
}

/** Scheduling priority: interactive requests (switch commands) overtake bulk history reads. */
export type RequestPriority = 'interactive' | 'normal' | 'bulk';
