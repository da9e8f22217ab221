import express, { type ErrorRequestHandler, type Express, type Request, type Response } from 'express';
import { writeJson } from './body.js';
import { clientAddress } from './request.js';

/** An answer to a provider's webhook call. */
export interface WebhookAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A webhook call as the host hands it to the provider adapter: no HTTP framework types. */
export interface WebhookCall {
  method: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The client's address, as the host's trust-proxy setting finds it. */
  ip: string | undefined;
}

/** The body as read: whole (at most `maxBytes`), or why it could not be. */
export type WebhookBody = { ok: true; bytes: Buffer } | { ok: false; reason: 'too_large' | 'unreadable' };

/**
 * A provider's inbound endpoint (e.g. Unipile's), mounted by the host without an API key. The
 * adapter decides; the host reads the body under the adapter's limit and writes the answers.
 */
export interface ProviderWebhook {
  path: string;
  maxBytes: number;
  /** Checked before the body is read (method, secret header): an answer refuses the call. */
  admit(call: WebhookCall): WebhookAnswer | null;
  /** The answer to an admitted call, given its body. */
  receive(call: WebhookCall, body: WebhookBody): WebhookAnswer;
}

const send = (res: Response, answer: WebhookAnswer): void => writeJson(res, answer.status, answer.headers ?? {}, JSON.stringify(answer.body));

const callOf = (req: Request): WebhookCall => ({ method: req.method, headers: req.headers, ip: clientAddress(req) });

/** Mounts a provider webhook at its path (and its path with a trailing slash). */
export function mountProviderWebhook(app: Express, webhook: ProviderWebhook): void {
  const router = express.Router();
  const read = express.raw({ type: () => true, limit: webhook.maxBytes });
  router.all('/', (req, res, next) => {
    const refusal = webhook.admit(callOf(req));
    if (refusal) return send(res, refusal);
    read(req, res, (err?: unknown) => {
      if (err) return next(err);
      const bytes = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      send(res, webhook.receive(callOf(req), { ok: true, bytes }));
    });
  });
  const bodyErrors: ErrorRequestHandler = (err: { type?: string } | undefined, req, res, next) => {
    if (err?.type === 'entity.too.large') return send(res, webhook.receive(callOf(req), { ok: false, reason: 'too_large' }));
    if (err?.type) return send(res, webhook.receive(callOf(req), { ok: false, reason: 'unreadable' }));
    next(err);
  };
  router.use(bodyErrors);
  app.use(webhook.path, router);
}
