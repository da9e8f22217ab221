import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetworkErrorCode } from '../../../src/core/network/provider.js';
import { SLUG_RULES } from '../../../src/network/unipile/index.js';
import { rejection } from '../helpers.js';
import { ada, nav, profileUrl, setup, type Setup } from './helpers.js';

/**
 * The mapping, written out independently of SLUG_RULES: for each Unipile slug, our code when a
 * profile lookup (read), a Sales Navigator search, and a send (invitation) fail with it.
 * Each case runs end to end: the contract server answers the slug with its documented status.
 */
type Row = [slug: string, read: NetworkErrorCode, salesNavSearch: NetworkErrorCode, send: NetworkErrorCode];
const same = (slug: string, code: NetworkErrorCode): Row => [slug, code, code, code];

const EXPECTED: Row[] = [
  ...[
    'invalid_parameters',
    'malformed_request',
    'missing_parameters',
    'invalid_url',
    'unescaped_characters',
    'content_too_large',
    'too_many_characters',
    'limit_too_high',
  ].map((s) => same(s, 'validation_error')),
  ...[
    'missing_credentials',
    'multiple_sessions',
    'invalid_checkpoint_solution',
    'checkpoint_error',
    'invalid_credentials',
    'expired_credentials',
    'insufficient_privileges',
    'disconnected_account',
    'invalid_credentials_but_valid_account_imap',
    'expired_link',
    'wrong_account',
    'captcha_not_supported',
    'account_restricted',
    'account_mismatch',
    'session_mismatch',
    'unknown_authentication_context',
    'action_required',
    'invalid_account',
    'account_configuration_error',
  ].map((s) => same(s, 'account_disconnected')),
  ['disconnected_feature', 'account_disconnected', 'sales_nav_required', 'account_disconnected'],
  ['feature_not_subscribed', 'account_disconnected', 'sales_nav_required', 'send_failed'],
  ['subscription_required', 'account_disconnected', 'sales_nav_required', 'send_failed'],
  ['insufficient_permissions', 'not_found', 'not_found', 'send_failed'],
  ['resource_access_restricted', 'not_found', 'not_found', 'send_failed'],
  ['resource_not_found', 'not_found', 'not_found', 'not_found'],
  ['invalid_resource_identifier', 'not_found', 'not_found', 'not_found'],
  ['invalid_recipient', 'not_found', 'not_found', 'send_failed'],
  ...['limit_exceeded', 'cannot_resend_yet', 'too_many_requests'].map((s) => same(s, 'network_daily_quota')),
  ...[
    'unsupported_media_type',
    'no_connection_with_recipient',
    'blocked_recipient',
    'user_unreachable',
    'unprocessable_entity',
    'action_already_performed',
    'invalid_message',
    'invalid_post',
    'not_allowed_inmail',
    'insufficient_credits',
    'payment_error',
    'cannot_resend_within_24hrs',
    'already_invited_recently',
    'already_connected',
    'cannot_invite_attendee',
    'cant_send_message',
    'sender_rejected',
    'recipient_rejected',
    'send_as_denied',
    'unauthorized',
    'parent_mail_not_found',
    'invalid_reply_subject',
    'invalid_headers',
    'invalid_folder',
    'invalid_thread',
    'comments_disabled',
    'insufficient_job_slot',
  ].map((s) => same(s, 'send_failed')),
  ['feature_not_implemented', 'upstream_unavailable', 'upstream_unavailable', 'send_failed'],
  ...[
    'ip_rejected_by_server',
    'provider_unreachable',
    'realtime_client_not_initialized',
    'unexpected_error',
    'provider_error',
    'authentication_intent_error',
    'no_client_session',
    'no_channel',
    'no_handler',
    'network_down',
    'service_unavailable',
    'request_timeout',
  ].map((s) => same(s, 'upstream_unavailable')),
];

let t: Setup;
beforeAll(async () => {
  t = await setup({ maxRetries: 0 });
  t.server.addPerson({ provider_id: 'ACoJane', public_identifier: 'jane-doe' });
});
afterAll(async () => {
  await t.close();
});

describe('every Unipile error slug', () => {
  it('has exactly one expectation here', () => {
    expect(EXPECTED.map(([s]) => s).sort()).toEqual(Object.keys(SLUG_RULES).sort());
  });

  it.each(EXPECTED)('errors/%s → read %s, Sales Navigator search %s, send %s', async (slug, read, salesNav, send) => {
    const status = SLUG_RULES[slug]!.status;
    t.server.failNext({ method: 'GET', path: /\/users\/jane-doe$/ }, { status, type: slug });
    const r = await rejection(t.provider.lookupProfile({ account: ada, networkUrl: profileUrl('jane-doe'), depth: 'basic' }));
    t.server.failNext({ method: 'POST', path: /\/linkedin\/search$/ }, { status, type: slug });
    const s = await rejection(t.provider.searchPeople({ account: nav, type: 'sales_nav', query: 'cto', limit: 10 }));
    if (slug === 'already_connected' || slug === 'already_invited_recently' || slug === 'action_already_performed') {
      // On an invitation these mean "nothing to send" (see adapter tests); on a message they are failures.
      t.server.failNext({ method: 'POST', path: /\/chats$/ }, { status, type: slug });
      const m = await rejection(t.provider.sendMessage({ account: ada, recipient: { providerId: 'ACoJane' }, text: 'Hi' }));
      expect([r.code, s.code, m.code]).toEqual([read, salesNav, send]);
      return;
    }
    t.server.failNext({ method: 'POST', path: /\/users\/invite$/ }, { status, type: slug });
    const i = await rejection(t.provider.sendConnectionRequest({ account: ada, providerId: 'ACoJane', note: null }));
    expect([r.code, s.code, i.code]).toEqual([read, salesNav, send]);
    for (const err of [r, s, i]) expect(err.details.providerError).toBe(`errors/${slug}`);
    if (read === 'network_daily_quota') expect(r.details.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('falls back on the HTTP status for a slug it does not know', async () => {
    const cases: [number, NetworkErrorCode][] = [
      [400, 'validation_error'],
      [401, 'account_disconnected'],
      [403, 'account_disconnected'],
      [404, 'not_found'],
      [422, 'upstream_unavailable'],
      [429, 'network_daily_quota'],
      [500, 'upstream_unavailable'],
      [418, 'upstream_unavailable'],
    ];
    for (const [status, code] of cases) {
      t.server.failNext({ method: 'GET', path: /\/users\/jane-doe$/ }, { status, type: 'brand_new_slug' });
      const err = await rejection(t.provider.lookupProfile({ account: ada, networkUrl: profileUrl('jane-doe'), depth: 'basic' }));
      expect([status, err.code]).toEqual([status, code]);
    }
    t.server.failNext({ method: 'POST', path: /\/users\/invite$/ }, { status: 422, type: 'brand_new_slug' });
    expect((await rejection(t.provider.sendConnectionRequest({ account: ada, providerId: 'ACoJane', note: null }))).code).toBe('send_failed');
  });

  it('is documented in docs/unipile.md, one row per slug with the same codes', () => {
    const doc = readFileSync(new URL('../../../docs/unipile.md', import.meta.url), 'utf8');
    for (const [slug, read, salesNav, send] of EXPECTED) {
      const row = doc.split('\n').find((line) => line.startsWith(`| \`errors/${slug}\` |`));
      expect(row, slug).toBeDefined();
      const cells = row!.split('|').map((c) => c.trim().replace(/`/g, ''));
      expect(cells.slice(3, 6), slug).toEqual([read, salesNav, send]);
    }
  });
});
