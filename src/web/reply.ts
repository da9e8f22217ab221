import type { Response } from 'express';
import type { ApiError } from '../core/errors.js';

/** Every dashboard API answer: JSON, never cached (it is one operator's workspace data). */
export function sendJson(res: Response, status: number, body: unknown): void {
  res.status(status).set('Cache-Control', 'no-store').type('application/json').send(JSON.stringify(body));
}

const statusOf = (err: ApiError): number =>
  err.code === 'unauthorized' ? 401 : err.code === 'forbidden' ? 403 : err.code === 'not_found' ? 404 : err.details.maxBytes !== undefined ? 413 : 400;

/** An error outside a tool call (no session, a bad request to the mount itself). */
export const sendApiError = (res: Response, err: ApiError, status?: number): void => sendJson(res, status ?? statusOf(err), err.toBody());
