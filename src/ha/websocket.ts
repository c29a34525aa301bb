import { createRequire } from 'node:module';
import { PackageError } from '../api/error-family.js';

/**
 * A small client of Home Assistant's websocket API (`/api/websocket`): authenticate with a long-lived access
 * token, send commands, get each one's result. The token is never part of an error or a message it makes.
 *
 * The socket: Node.js 22+ has a WebSocket of its own; on Node.js 20 the `ws` package that Node-RED itself ships
 * (and every Node-RED install has) is used, found from the running Node-RED. No dependency is added.
 */

/**
 * A command HA answered with an error (its code: `unknown_command`, `unauthorized`, `invalid_format`…), or the
 * connection's failure: Home Assistant is a service beside the energy API, so its errors are the family's `outside` side.
 */
export class HaError extends PackageError {
  readonly side = 'outside';
}

interface SocketLike {
  send(data: string): void;
  close(): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  onclose: ((ev: unknown) => void) | null;
}
type SocketClass = new (url: string) => SocketLike;

/** A command not answered within this long fails (HA answers even a large statistics read within seconds). */
const CALL_TIMEOUT_MS = 120_000;

function socketClass(): SocketClass {
  const global = (globalThis as { WebSocket?: SocketClass }).WebSocket;
  if (global) return global;
  const from = [require.main?.filename, __filename].filter((f): f is string => typeof f === 'string');
  for (const file of from) {
    try {
      return createRequire(file)('ws') as SocketClass;
    } catch {
      // Not reachable from there: try the next place.
    }
  }
  throw new HaError('no_websocket', 'this Node.js has no WebSocket (Node.js 22 or later has one; on Node.js 20 the `ws` package Node-RED ships was not found)');
}

/** HA's address as given (http(s)://host:port, optional path), checked; the websocket's URL from it. */
export function haWebsocketUrl(address: string): string {
  let url: URL;
  try {
    url = new URL(address.trim());
  } catch {
    throw new HaError('invalid_address', `the Home Assistant address "${address.slice(0, 80)}" is not a URL such as http://homeassistant.local:8123`);
  }
  if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol)) throw new HaError('invalid_address', `the Home Assistant address must start with http:// or https://, not ${url.protocol}`);
  if (url.username || url.password) throw new HaError('invalid_address', 'the Home Assistant address must not hold a user or password: the access token is the credential');
  const scheme = url.protocol === 'https:' || url.protocol === 'wss:' ? 'wss:' : 'ws:';
  const path = url.pathname.replace(/\/+$/, '').replace(/\/api\/websocket$/, '');
  return `${scheme}//${url.host}${path}/api/websocket`;
}

/** The token named as the package names keys: its last 5 characters. */
export const tokenHint = (token: string): string => `…${token.slice(-5)}`;

export interface HaConnection {
  /** HA's version, as it says when the connection opens. */
  readonly version: string;
  /** Sends a command (its `id` is added); resolves with HA's result, rejects with HaError. */
  call<T = unknown>(msg: Record<string, unknown>): Promise<T>;
  close(): void;
}

/** Opens and authenticates a connection; rejects with HaError (`unreachable`, `auth_invalid`, …) without the token in it. */
export function connectHomeAssistant(address: string, token: string, options: { signal?: AbortSignal } = {}): Promise<HaConnection> {
  const url = haWebsocketUrl(address);
  if (!token || !token.trim()) return Promise.reject(new HaError('auth_invalid', 'no Home Assistant access token: create a long-lived access token in your HA profile (Security) and enter it in the node'));
  const Socket = socketClass();
  return new Promise((resolve, reject) => {
    const socket = new Socket(url);
    const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
    let nextId = 1;
    let opened = false;
    let version = '';
    let failure: HaError | undefined;
    const fail = (err: HaError): void => {
      failure ??= err;
      if (!opened) reject(err);
      for (const p of pending.values()) {
        clearTimeout(p.timer);
        p.reject(err);
      }
      pending.clear();
    };
    const onAbort = (): void => {
      fail(new HaError('aborted', 'stopped'));
      socket.close();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const connection: HaConnection = {
      get version() { return version; },
      call<T>(msg: Record<string, unknown>): Promise<T> {
        if (failure) return Promise.reject(failure);
        const id = nextId++;
        return new Promise<T>((res, rej) => {
          const timer = setTimeout(() => {
            pending.delete(id);
            rej(new HaError('timeout', `Home Assistant did not answer ${String(msg.type)} within ${CALL_TIMEOUT_MS / 1000} s`));
          }, CALL_TIMEOUT_MS);
          pending.set(id, { resolve: res as (v: unknown) => void, reject: rej, timer });
          socket.send(JSON.stringify({ ...msg, id }));
        });
      },
      close() {
        options.signal?.removeEventListener('abort', onAbort);
        failure ??= new HaError('closed', 'the connection to Home Assistant was closed');
        socket.close();
      },
    };
    socket.onmessage = (ev) => {
      let msg: { type?: string; id?: number; success?: boolean; result?: unknown; error?: { code?: string; message?: string }; ha_version?: string; message?: string };
      try {
        msg = JSON.parse(typeof ev.data === 'string' ? ev.data : Buffer.from(ev.data as ArrayBuffer).toString('utf8'));
      } catch {
        return;
      }
      if (msg.type === 'auth_required') {
        version = msg.ha_version ?? version;
        socket.send(JSON.stringify({ type: 'auth', access_token: token.trim() }));
      } else if (msg.type === 'auth_ok') {
        version = msg.ha_version ?? version;
        opened = true;
        resolve(connection);
      } else if (msg.type === 'auth_invalid') {
        fail(new HaError('auth_invalid', `Home Assistant refused the access token ${tokenHint(token.trim())} (${msg.message ?? 'invalid'}): create a long-lived access token in your HA profile (Security)`));
        socket.close();
      } else if (msg.type === 'result' && typeof msg.id === 'number') {
        const p = pending.get(msg.id);
        if (!p) return;
        pending.delete(msg.id);
        clearTimeout(p.timer);
        if (msg.success) p.resolve(msg.result);
        else p.reject(new HaError(msg.error?.code ?? 'error', `Home Assistant: ${msg.error?.message ?? 'the command failed'} (${msg.error?.code ?? 'error'})`));
      }
    };
    socket.onerror = () => fail(new HaError('unreachable', `Home Assistant's websocket at ${url} could not be reached`));
    socket.onclose = () => {
      options.signal?.removeEventListener('abort', onAbort);
      fail(new HaError(opened ? 'closed' : 'unreachable', opened ? 'Home Assistant closed the connection' : `Home Assistant's websocket at ${url} could not be reached or closed before authenticating`));
    };
  });
}
