/** What an endpoint handler answers; the server adds headers and serialises. */
export interface Reply {
  status: number;
  /** Absent for 204. */
  body?: unknown;
}

export const ok = (body: unknown, status = 200): Reply => ({ status, body });
export const noContent = (): Reply => ({ status: 204 });
