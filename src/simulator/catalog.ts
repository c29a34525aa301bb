/** Static catalogues: device models and channel categories (spec 2.7, 2.8). */
import type { ChannelCategory, DeviceModel, ModelInfo } from '../api/types.js';

export const MODELS: readonly ModelInfo[] = [
  { code: '3M', displayName: '3 Channel Meter', channelsCount: 3, switchesCount: 0, communications: 'cellular' },
  { code: '6M', displayName: '6 Channel Meter', channelsCount: 6, switchesCount: 0, communications: 'cellular' },
  { code: '6W', displayName: '6 Channel WiFi Meter', channelsCount: 6, switchesCount: 0, communications: 'wifi' },
  { code: '6M+3SW', displayName: '6 Channel Meter with 3 Switches', channelsCount: 6, switchesCount: 3, communications: 'cellular' },
  { code: '6W+3SW', displayName: '6 Channel WiFi Meter with 3 Switches', channelsCount: 6, switchesCount: 3, communications: 'wifi' },
  { code: '6M+One', displayName: '6 Channel Meter with Modbus', channelsCount: 6, switchesCount: 0, communications: 'cellular' },
  { code: '3RM', displayName: '3 Channel Rogowski Meter', channelsCount: 3, switchesCount: 0, communications: 'cellular' },
  { code: '3RM+3SW', displayName: '3 Channel Rogowski Meter with 3 Switches', channelsCount: 3, switchesCount: 3, communications: 'cellular' },
  { code: '6MW', displayName: '6 Channel Meter, 4G and WiFi', channelsCount: 6, switchesCount: 0, communications: 'cellular,wifi' },
  { code: '6MW-CER', displayName: '6 Channel Meter, 4G and WiFi, CER', channelsCount: 6, switchesCount: 1, communications: 'cellular,wifi' },
];

export function modelInfo(code: DeviceModel): ModelInfo {
  const found = MODELS.find((m) => m.code === code);
  if (!found) throw new Error(`unknown model ${code}`);
  return found;
}


export const CATEGORIES: readonly ChannelCategory[] = [
  { id: -1, label: 'Not set', description: 'No category has been chosen for this channel' },
  { id: 0, label: 'Not connected', description: 'No CT is connected to this channel' },
  { id: 1, label: 'Grid supply', description: 'Mains supply from the grid' },
  { id: 2, label: 'Solar PV', description: 'Solar photovoltaic generation' },
  { id: 3, label: 'Hot water', description: 'Electric hot water system' },
  { id: 4, label: 'Air conditioning', description: 'Heating, ventilation and air conditioning' },
  { id: 5, label: 'Lighting', description: 'Lighting circuits' },
  { id: 6, label: 'Power points', description: 'General power outlets' },
  { id: 7, label: 'Cooking', description: 'Oven, cooktop and kitchen appliances' },
  { id: 8, label: 'Pool pump', description: 'Pool or spa pump and heating' },
  { id: 9, label: 'EV charger', description: 'Electric vehicle charging' },
  { id: 10, label: 'Battery', description: 'Battery storage charge and discharge' },
];

export function categoryLabel(id: number): string {
  return CATEGORIES.find((c) => c.id === id)?.label ?? 'Not set';
}
