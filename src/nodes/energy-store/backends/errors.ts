import { StoreError } from '../../../api/index.js';

/**
 * The store's failures, as the store's member of the package's error family (StoreError). The code decides what happens to a batch:
 * UNREACHABLE keeps it queued and retries; REFUSED keeps it queued, reports the reason and waits for
 * a fix; UNAVAILABLE refuses input (the backend cannot run here).
 */
export type StoreErrorCode = 'STORE_UNREACHABLE' | 'STORE_REFUSED' | 'STORE_UNAVAILABLE' | 'QUEUE_FULL' | 'STORE_STOPPED';

export function storeError(code: StoreErrorCode, message: string, status = 0): StoreError {
  return new StoreError(code, message, status, code !== 'STORE_UNAVAILABLE' && code !== 'QUEUE_FULL' && code !== 'STORE_STOPPED');
}

export const unreachable = (message: string, status = 0): StoreError => storeError('STORE_UNREACHABLE', message, status);
export const refused = (message: string, status = 0): StoreError => storeError('STORE_REFUSED', message, status);
export const unavailable = (message: string): StoreError => storeError('STORE_UNAVAILABLE', message);

export function isStoreCode(err: unknown, code: StoreErrorCode): boolean {
  return err instanceof StoreError && err.code === code;
}

/** Socket-level failures: the database is not there (now). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET']);

export function isNetworkFailure(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    if ((e as { name?: unknown }).name === 'TimeoutError' || (e as { name?: unknown }).name === 'AbortError') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err)).slice(0, 300);
