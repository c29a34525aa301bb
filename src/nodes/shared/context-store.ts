import type { NodeAPI } from 'node-red';

/** The first context store that survives a restart (Node-RED's localfilesystem), else the default one. */
export function persistentStore(RED: NodeAPI): string | undefined {
  const stores = (RED.settings as unknown as { contextStorage?: Record<string, { module?: unknown } | string> }).contextStorage ?? {};
  for (const [name, store] of Object.entries(stores)) {
    if (typeof store === 'object' && store?.module === 'localfilesystem') return name;
  }
  return undefined;
}
