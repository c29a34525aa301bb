import { isHttpServiceError, isPackageError, StoreError } from '../../api/index.js';

/**
 * Short status text for an error: the HTTP status and code, or the client's own code, for the errors of a service, an
 * outside service or a store; else its message.
 */
export function shortReason(err: unknown): string {
  if (isHttpServiceError(err) || err instanceof StoreError) {
    if (err.status > 0) return `${err.status} ${err.code}`;
    return err.code.toLowerCase().replace(/_/g, ' ');
  }
  const message = err instanceof Error ? err.message : String(err);
  return message.length > 40 ? `${message.slice(0, 39)}…` : message;
}

/** Details for `msg.apiError`, so a Catch node sees the status, code and broken rules. */
export function errorDetails(err: unknown): Record<string, unknown> {
  if (isPackageError(err)) return err.toJSON();
  return { message: err instanceof Error ? err.message : String(err) };
}

export function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
