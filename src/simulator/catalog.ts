/** Static catalogues as the live service answers them: device models and channel categories (spec 2.7, 2.8). */
import type { ChannelCategory, DeviceModel, ModelInfo } from '../api/types.js';

const model = (code: DeviceModel, channelsCount: number, switchesCount: number, communications: string): ModelInfo => ({
  code, displayName: `Auditor ${code}`, channelsCount, switchesCount, communications,
});

export const MODELS: readonly ModelInfo[] = [
  model('3M', 3, 0, 'cellular'),
  model('6M', 6, 0, 'cellular'),
  model('6W', 6, 0, 'wifi'),
  model('6M+3SW', 6, 3, 'cellular'),
  model('6W+3SW', 6, 3, 'wifi'),
  model('6M+One', 6, 0, 'cellular'),
  model('3RM', 3, 0, 'cellular'),
  model('3RM+3SW', 3, 3, 'cellular'),
  model('6MW', 6, 0, 'cellular+wifi'),
  model('6MW-CER', 6, 1, 'cellular+wifi'),
];

export function modelInfo(code: DeviceModel): ModelInfo {
  const found = MODELS.find((m) => m.code === code);
  if (!found) throw new Error(`unknown model ${code}`);
  return found;
}

export const CATEGORY = {
  notSet: -1, notConnected: 0, grid: 1, lightingAndPower: 2, poolPump: 3, airConditioning: 4, solar: 5, hotWater: 6,
  electricVehicle: 7, battery: 8, oven: 9, lighting: 10, power: 11, hybridSolarBattery: 12,
} as const;

export const CATEGORIES: readonly ChannelCategory[] = [
  { id: -1, label: 'Not set', description: 'No category has been chosen for this channel' },
  { id: 0, label: 'Not connected', description: 'No CT is connected to this channel' },
  { id: 1, label: 'Grid connect', description: 'Supply from the grid: import positive, export negative' },
  { id: 2, label: 'Lighting & Power', description: 'Lighting and general power circuits' },
  { id: 3, label: 'Pool pump', description: 'Pool or spa pump' },
  { id: 4, label: 'Air conditioning', description: 'Heating, ventilation and air conditioning' },
  { id: 5, label: 'Solar generation', description: 'What the solar panels produce, before use or export' },
  { id: 6, label: 'Hot water', description: 'Electric hot water system' },
  { id: 7, label: 'Electric vehicle', description: 'Electric vehicle charging' },
  { id: 8, label: 'Battery', description: 'Battery storage charge and discharge' },
  { id: 9, label: 'Oven', description: 'Oven and cooktop' },
  { id: 10, label: 'Lighting', description: 'Lighting circuits' },
  { id: 11, label: 'Power', description: 'General power outlets' },
  { id: 12, label: 'Hybrid solar & battery system', description: 'Hybrid inverter with solar and battery' },
];

export function categoryLabel(id: number): string {
  return CATEGORIES.find((c) => c.id === id)?.label ?? 'Not set';
}
