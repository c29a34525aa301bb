/**
 * The package's one error family. Every error it raises has a `code` and says which side failed:
 * - `service`: the energy API (EnergyApiError, in errors.ts);
 * - `outside`: a service beside the energy API: a price or forecast source (OutsideServiceError, in
 *   outside-errors.ts) or Home Assistant (HaError, in src/ha);
 * - `prices`: a price list that cannot be read (PriceError);
 * - `store`: a database behind energy-store (StoreError);
 * - `msg`: a msg a node cannot use (MsgError);
 * - `config`: a node's or config node's settings (ConfigError);
 * - `broker`: the MQTT broker (BrokerError);
 * - `load`: a load the flow switches, which did not confirm a command (LoadError).
 * The errors of HTTP services (EnergyApiError, OutsideServiceError) share HttpServiceError (http-error.ts): the
 * request's status, method, path, rate limit and the service's own words.
 * What a flow sees of one (`msg.apiError`) is its `toJSON()`.
 */
export type ErrorSide = 'service' | 'outside' | 'prices' | 'store' | 'msg' | 'config' | 'broker' | 'load';

export abstract class PackageError extends Error {
  abstract readonly side: ErrorSide;
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }

  /** Plain data for a Node-RED msg (`msg.apiError`) without the stack or the cause. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, code: this.code };
  }
}

export function isPackageError(err: unknown): err is PackageError {
  return err instanceof PackageError;
}

/** A price list that cannot be read (a price service that failed is an OutsideServiceError). */
export class PriceError extends PackageError {
  readonly side = 'prices';
  constructor(message: string, code = 'BAD_PRICES') { super(code, message); }
}

/** A msg a node cannot use (what it carries, not the node's settings). */
export class MsgError extends PackageError {
  readonly side = 'msg';
  constructor(message: string, code = 'BAD_MSG') { super(code, message); }
}

/** Settings a node or config node cannot run with. */
export class ConfigError extends PackageError {
  readonly side = 'config';
  constructor(message: string, code = 'BAD_CONFIG') { super(code, message); }
}

/** The MQTT broker refused or failed. */
export class BrokerError extends PackageError {
  readonly side = 'broker';
  constructor(message: string, code = 'BROKER_REFUSED') { super(code, message); }
}

/** A load the flow switches did not confirm a command in time (LOAD_UNCONFIRMED): its state is unknown. */
export class LoadError extends PackageError {
  readonly side = 'load';
  constructor(message: string, code = 'LOAD_UNCONFIRMED') { super(code, message); }
}

/**
 * A database behind energy-store failed. The code decides what happens to a batch: STORE_UNREACHABLE keeps
 * it queued and retries; STORE_REFUSED keeps it queued, reports the reason and waits for a fix;
 * STORE_UNAVAILABLE refuses input (the backend cannot run here); QUEUE_FULL refuses the msg; STORE_STOPPED: the
 * node stopped before the database took a batch (it stays queued).
 */
export class StoreError extends PackageError {
  readonly side = 'store';
  /** The database's HTTP status (InfluxDB), else 0. */
  readonly status: number;
  /** Whether the request reached the database. */
  readonly sent: boolean;

  constructor(code: string, message: string, status = 0, sent = true) {
    super(code, message);
    this.status = status;
    this.sent = sent;
  }

  override toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, status: this.status, code: this.code };
  }
}
