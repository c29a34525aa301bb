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

export const STANDARD_CT_RATINGS = [60, 120, 200, 400, 600] as const;
export const ROGOWSKI_CT_RATING = 3000;
