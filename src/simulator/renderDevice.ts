/** The device object as GET /devices/{id} returns it (spec 2.2 to 2.6). */
import type { CellularComms, Channel, Comms, Device, Switch, WifiComms } from '../api/types.js';
import { categoryLabel } from './catalog.js';
import { lastHeardAt } from './reporting.js';
import { firmwareReaches, isDualTransportModel, lteQuality, qualityLabel, SIGNAL_DBM_FIRMWARE, wifiQuality } from './rules.js';
import type { BodyStyle, SimDevice } from './types.js';

/** Firmware 0.12.1 and below report signalQualityDbm -1 on the 6MW series. */
function reportsSignalDbm(firmware: string): boolean {
  return firmwareReaches(firmware, SIGNAL_DBM_FIRMWARE);
}

function cellularOnlyComms(dev: SimDevice, heard: number | null): Comms {
  const c = dev.cellular;
  return {
    type: 'cellular',
    mode: c.mode,
    lastHeardAt: heard,
    signalQualityDbm: dev.uninitialised ? 0 : c.rssi,
    simId: c.simId,
    apn: c.apn,
    imsi: c.imsi,
    networkId: c.carrier,
    cellQuality: dev.uninitialised ? 0 : c.cellQuality,
  };
}

function dualComms(dev: SimDevice, heard: number | null): Comms {
  const c = dev.cellular;
  const w = dev.wifi;
  if (!w) throw new Error(`${dev.id} has no WiFi radio`);
  const onWifi = dev.activeVia === 'wifi';
  const cellQuality = lteQuality(c.rsrq, c.rsrp);
  const cellular: CellularComms = {
    apn: c.apn,
    imsi: c.imsi,
    simId: c.simId,
    carrier: c.carrier,
    lastHeardAt: onWifi ? c.lastHeardAt : heard,
    mode: '4G',
    signalQuality: cellQuality,
    signalQualityDetail: { rsrq: c.rsrq, rsrp: c.rsrp, rssi: c.rssi },
    signalQualityLabel: qualityLabel(cellQuality),
  };
  const radioQuality = wifiQuality(w.rssi);
  const pending: NonNullable<WifiComms['pending']> = {};
  for (const q of w.queue) {
    if (q.value.ssid !== undefined) pending.ssid = q.value.ssid;
    if (q.value.pskUpdatedAt !== undefined) pending.pskUpdatedAt = q.value.pskUpdatedAt;
  }
  const wifi: WifiComms = {
    ipAddress: w.ipAddress,
    gateway: w.gateway,
    subnetMask: w.subnetMask,
    lastHeardAt: onWifi ? heard : w.lastHeardAt,
    macAddress: w.macAddress,
    mode: 'STA',
    pskUpdatedAt: w.pskUpdatedAt,
    signalQuality: radioQuality,
    signalQualityDetail: { rssi: w.rssi },
    signalQualityLabel: qualityLabel(radioQuality),
    ssid: w.ssid,
  };
  if (Object.keys(pending).length > 0) wifi.pending = pending;
  const activeDbm = onWifi ? w.rssi : c.rssi;
  const top: Comms = {
    type: 'cellular,wifi',
    mode: onWifi ? 'wifi' : '4G',
    lastHeardAt: heard,
    signalQualityDbm: reportsSignalDbm(dev.firmwareVersion) ? activeDbm : -1,
    networkId: onWifi ? w.ssid : c.carrier,
  };
  if (onWifi) top.macAddress = w.macAddress;
  else Object.assign(top, { simId: c.simId, apn: c.apn, imsi: c.imsi, cellQuality: c.cellQuality });
  return { ...top, lastHeardVia: dev.activeVia, cellular, wifi };
}

/** The live service leaves `uninitialised` out on an initialised device (absent means false); the spec shows it. */
export function renderDevice(dev: SimDevice, now: number, style: BodyStyle = 'live'): Device {
  const heard = lastHeardAt(dev, now);
  const channels: Channel[] = dev.channels.map((ch) => {
    const out: Channel = { id: ch.id, ctRating: ch.ctRating, label: ch.label, categoryId: ch.categoryId, categoryLabel: categoryLabel(ch.categoryId) };
    const last = ch.ctQueue[ch.ctQueue.length - 1];
    if (last && last.value !== ch.ctRating) out.pending = { ctRating: last.value };
    return out;
  });
  const switches: Switch[] = dev.switches.map((sw) => {
    const out: Switch = {
      id: sw.id, state: sw.state, label: sw.label, contactorType: sw.contactorType,
      closedStateLabel: sw.closedStateLabel, openStateLabel: sw.openStateLabel,
    };
    const last = sw.stateQueue[sw.stateQueue.length - 1];
    if (last) out.pending = { state: last.value };
    return out;
  });
  return {
    id: dev.id,
    label: dev.label,
    ...(dev.timezone !== undefined ? { timezone: dev.timezone } : {}),
    model: dev.model,
    ...(dev.uninitialised ? {} : { firmwareVersion: dev.firmwareVersion, latestStatus: Math.floor(heard ?? 0) }),
    ...(dev.uninitialised || style === 'spec' ? { uninitialised: dev.uninitialised } : {}),
    shortEnergyReportingInterval: dev.interval,
    comms: isDualTransportModel(dev.model) ? dualComms(dev, heard) : cellularOnlyComms(dev, heard),
    channels,
    phases: dev.phasesCount === null
      ? { count: null }
      : { count: dev.phasesCount, grouping: dev.grouping.map((g) => ({ included: [...g] })) },
    switches,
  };
}
