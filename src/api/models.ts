/** What each device model can do (spec 2.2, 2.3, 2.6). */

export function supportsModbus(model: string): boolean {
  return model.includes('+One');
}

export function isRogowski(model: string): boolean {
  return model.startsWith('3R');
}

export function isDualTransport(model: string): boolean {
  return model === '6MW' || model === '6MW-CER';
}

export function supportsSwitching(model: string): boolean {
  if (supportsModbus(model)) return false;
  return model.includes('+3SW') || model === '6MW-CER';
}

export function channelCount(model: string): number {
  return model.startsWith('3') ? 3 : 6;
}

/** Firmware from which the 6MW series accepts WiFi credentials (spec 3.2). */
export const WIFI_MIN_FIRMWARE = '0.13.1';

/** Compares dotted versions: true when `version` is `minimum` or later. */
export function firmwareAtLeast(version: string, minimum: string): boolean {
  const a = version.split('.').map((p) => parseInt(p, 10) || 0);
  const b = minimum.split('.').map((p) => parseInt(p, 10) || 0);
  for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

export const STANDARD_CT_RATINGS = [60, 120, 200, 400, 600] as const;
export const ROGOWSKI_CT_RATING = 3000;
