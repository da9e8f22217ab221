/**
 * The one domain error. `code` is the closed set of the spec's error codes; transports map it
 * to a status through `httpStatus` and never invent codes of their own.
 */
export const ERROR_STATUS = {
  validation_error: 400,
  lookalike_exhausted: 400,
  unauthorized: 401,
  // A scoped key past its expiresAt (team.md): distinct from unauthorized so a client can say why.
  key_expired: 401,
  plan_required: 403,
  insufficient_credits: 403,
  insufficient_lookalike_credits: 403,
  sales_nav_required: 403,
  account_disconnected: 403,
  // The caller is known but its role (or its key's scope) does not reach this call.
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  // The person declined an MCP confirmation; REST never asks, so it never answers this.
  declined: 409,
  // A mail server refused a mailbox's login (connect_mailbox, update_mailbox): the details name the server.
  mailbox_login_failed: 422,
  rate_limited: 429,
  network_daily_quota: 429,
  send_failed: 502,
  upstream_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

export interface ErrorDetails {
  fields?: string[];
  available?: number;
  required?: number;
  retryAfterSeconds?: number;
  maxBytes?: number;
  [key: string]: unknown;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.details = details;
  }

  toBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details: ErrorDetails };
}

/** The HTTP status of an error. The one exception to the code table: an over-size body is 413. */
export function httpStatus(err: ApiError): number {
  if (err.code === 'validation_error' && err.details.maxBytes !== undefined) return 413;
  return ERROR_STATUS[err.code];
}

export const validationError = (message: string, fields: string[], extra: ErrorDetails = {}): ApiError =>
  new ApiError('validation_error', message, { ...extra, fields });

export const notFound = (message: string): ApiError => new ApiError('not_found', message);

/**
 * Turns anything thrown into an ApiError. Unknown failures become `upstream_unavailable`
 * with our own message: SQLite text and stack traces never reach a client.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError('upstream_unavailable', 'The server hit a temporary failure. Retry the request; nothing was changed if it was a write.');
}
