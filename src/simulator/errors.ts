/** Error responses in the service's standard format (spec 7.1, 7.2). */

export interface ErrorBody {
  code: string;
  httpCode: number;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The 403-FORBIDDEN sample shows httpCode 401 inside the body (spec 7.1). */
    readonly bodyHttpCode: number = status,
  ) {
    super(message);
  }

  body(): ErrorBody {
    return { code: this.code, httpCode: this.bodyHttpCode, message: this.message };
  }
}

/** PATCH validation failures: `{errors:[...]}` with the lowest element status (spec 7.2). */
export class MultiError extends Error {
  constructor(readonly errors: ApiError[]) {
    super(errors.map((e) => e.message).join('; '));
  }

  get status(): number {
    return Math.min(...this.errors.map((e) => e.status));
  }

  body(): { errors: ErrorBody[] } {
    return { errors: this.errors.map((e) => e.body()) };
  }
}

export const badRequest = (message: string): ApiError => new ApiError(400, 'BAD_REQUEST', message);
export const unprocessable = (message: string): ApiError => new ApiError(422, 'UNPROCESSABLE_ENTITY', message);
export const forbidden = (message: string): ApiError => new ApiError(403, 'FORBIDDEN', message);
export const notFound = (message = 'The requested resource was not found'): ApiError => new ApiError(404, 'NOT_FOUND', message);
