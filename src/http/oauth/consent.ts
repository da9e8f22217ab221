import { createHash, randomBytes } from 'node:crypto';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { checkKeyScope, KEY_PREFIX, keyEnvFor } from '../../core/auth/keys.js';
import { SCOPE_TOOLSETS, withReach, type KeyScope } from '../../core/auth/scope.js';
import { grantClientAccess } from '../../core/auth/grant.js';
import { getClient, OAuthFailure, oauthSecret } from '../../core/auth/oauth.js';
import { sign, signatureMatches } from '../../core/auth/secrets.js';
import type { Ctx } from '../../core/context.js';
import { ApiError } from '../../core/errors.js';
import { randomBase62 } from '../../core/ids.js';
import { escapeHtml, showBidiControls, strangerText } from '../html.js';
import { clientAddress, requestIdOf } from '../request.js';
import { authenticate } from '../../tools/pipeline.js';

/** Where the consent form posts. */
export const CONSENT_PATH = '/oauth/consent';

/** What /authorize asked for; the code issued on consent is bound to all of it. */
export interface ConsentRequest {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  state: string | null;
  scopes: string[];
  resource: string | null;
}

/**
 * The signed form token carries the request through the user's browser, so nothing is
 * stored until consent is given. `nonce` makes it single use (one code per form); `bind`
 * ties it to the browser that opened the page, through a SameSite=Strict cookie, so a
 * cross-site POST (CSRF) is refused.
 */
interface FormClaims extends ConsentRequest {
  nonce: string;
  exp: number;
  bind: string;
}

const COOKIE = 'outreach_consent';
const FORM_TTL_MS = 10 * 60_000;
const digest = (value: string): string => createHash('sha256').update(value).digest('base64url');

function sealForm(ctx: Ctx, claims: FormClaims): string {
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${sign(oauthSecret(ctx), 'consent-form', payload)}`;
}

function openForm(ctx: Ctx, token: unknown): FormClaims | null {
  if (typeof token !== 'string') return null;
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  if (!signatureMatches(sign(oauthSecret(ctx), 'consent-form', payload), signature)) return null;
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as FormClaims;
  } catch {
    return null;
  }
}

function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

/**
 * The browser's consent cookie. An existing one is reused (two open consent tabs both
 * work) and its lifetime renewed, so it outlives every form it binds.
 */
function browserBinding(req: Request, res: Response): string {
  const existing = readCookie(req, COOKIE);
  const value = existing && /^[A-Za-z0-9_-]{43}$/.test(existing) ? existing : randomBytes(32).toString('base64url');
  // Path / because the page is served by /authorize and posts to CONSENT_PATH: both must see it.
  res.cookie(COOKIE, value, { httpOnly: true, sameSite: 'strict', secure: req.secure, path: '/', maxAge: FORM_TTL_MS });
  return value;
}

/** Where the user goes back to, shown so they can tell a real client from an impostor. */
function destination(redirectUri: string): string {
  try {
    const url = new URL(redirectUri);
    return url.host ? `${url.protocol}//${url.host}` : url.protocol;
  } catch {
    return redirectUri;
  }
}

interface Page {
  title: string;
  /** Pre-escaped HTML of the main content. */
  body: string;
}

function sendPage(res: Response, status: number, page: Page): void {
  res
    .status(status)
    .set({
      'Cache-Control': 'no-store',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
    })
    .type('html')
    .send(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1a1a1a; background: #f6f6f4; }
main { max-width: 34rem; margin: 3rem auto; padding: 2rem; background: #fff; border: 1px solid #d0d0cc; border-radius: 8px; }
h1 { font-size: 1.4rem; margin-top: 0; }
label { display: block; font-weight: 600; margin-top: 1.25rem; }
input[type=password] { width: 100%; box-sizing: border-box; font: inherit; padding: .5rem; border: 2px solid #555; border-radius: 4px; }
input:focus, button:focus { outline: 3px solid #1a5fb4; outline-offset: 2px; }
.hint { color: #444; margin: .25rem 0 .5rem; }
.error { color: #8b0000; background: #fdecea; border-left: 4px solid #8b0000; padding: .5rem .75rem; }
.actions { display: flex; gap: .75rem; margin-top: 1.25rem; }
button { font: inherit; padding: .5rem 1.1rem; border-radius: 4px; border: 2px solid #1a5fb4; cursor: pointer; }
button[value=allow] { background: #1a5fb4; color: #fff; }
button[value=deny] { background: #fff; color: #1a5fb4; }
code { background: #eee; padding: 0 .2rem; border-radius: 3px; }
fieldset { border: 1px solid #d0d0cc; border-radius: 6px; margin-top: 1.25rem; padding: .5rem 1rem 1rem; }
legend { font-weight: 600; padding: 0 .25rem; }
fieldset label { font-weight: 400; margin-top: .5rem; }
fieldset label.field { font-weight: 600; margin-top: 1rem; }
input[type=text], select { width: 100%; box-sizing: border-box; font: inherit; padding: .4rem; border: 2px solid #555; border-radius: 4px; }
</style>
</head>
<body>
<main>
${page.body}
</main>
</body>
</html>
`);
}

/** The expiry choices of a grant, in days; the first is none (until the key or the sign-in is revoked). */
const GRANT_DAYS = [0, 1, 7, 30, 90] as const;

const TOOLSET_LABELS: Record<(typeof SCOPE_TOOLSETS)[number], string> = {
  standard: 'Standard tools: campaigns, leads, messages, insights',
  manage: 'Management: campaigns, agents, accounts (and drafts)',
  drafts: 'Drafts: list and review',
  triage: 'Triage: read inbox threads, suggest tags',
  audit: 'Audit trail: read',
};

/** What the person chose in the form, echoed back when the page is shown again with an error. */
interface ScopeChoice {
  access: 'write' | 'read';
  toolsets: string[];
  campaigns: string;
  days: string;
}

const NO_CHOICE: ScopeChoice = { access: 'write', toolsets: [], campaigns: '', days: '0' };

const listOf = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : typeof value === 'string' ? [value] : []);

function choiceOf(form: Record<string, unknown>): ScopeChoice {
  return {
    access: form.access === 'read' ? 'read' : 'write',
    toolsets: listOf(form.toolsets),
    campaigns: typeof form.campaigns === 'string' ? form.campaigns : '',
    days: typeof form.expires_days === 'string' ? form.expires_days : '0',
  };
}

/** The scope the form asks for, in the shape core checks; undefined for none. */
function scopeInput(ctx: Ctx, choice: ScopeChoice): Record<string, unknown> | undefined {
  const scope: Record<string, unknown> = {};
  if (choice.access === 'read') scope.readOnly = true;
  if (choice.toolsets.length) scope.toolsets = choice.toolsets;
  const campaigns = choice.campaigns
    .split(/[\s,]+/)
    .map((c) => c.trim())
    .filter((c) => c !== '');
  if (campaigns.length) scope.campaignIds = campaigns;
  const days = Number(choice.days);
  if (choice.days !== '0') scope.expiresAt = Number.isInteger(days) && days > 0 ? new Date(ctx.clock.now() + days * 86_400_000).toISOString() : choice.days;
  return Object.keys(scope).length ? scope : undefined;
}

function scopeFields(choice: ScopeChoice): string {
  const checked = (on: boolean) => (on ? ' checked' : '');
  const toolsets = SCOPE_TOOLSETS.map(
    (t) => `<label><input type="checkbox" name="toolsets" value="${t}"${checked(choice.toolsets.includes(t))}> ${escapeHtml(TOOLSET_LABELS[t])}</label>`,
  ).join('\n');
  const days = GRANT_DAYS.map(
    (d) => `<option value="${d}"${choice.days === String(d) ? ' selected' : ''}>${d === 0 ? 'Until revoked' : d === 1 ? '1 day' : `${d} days`}</option>`,
  ).join('');
  return `<fieldset>
<legend>What it may do</legend>
<p class="hint">Never more than the key allows. Leave everything as it is to give it what the key reaches.</p>
<label><input type="radio" name="access" value="write"${checked(choice.access === 'write')}> Read and change (add leads, send, start campaigns)</label>
<label><input type="radio" name="access" value="read"${checked(choice.access === 'read')}> Read only: every change is refused</label>
<fieldset>
<legend>Only these toolsets (none ticked: all)</legend>
${toolsets}
</fieldset>
<label class="field" for="campaigns">Only these campaigns (optional)</label>
<p class="hint" id="campaigns-hint">Campaign ids, separated by commas. It will not see any other campaign.</p>
<input type="text" id="campaigns" name="campaigns" value="${escapeHtml(choice.campaigns)}" aria-describedby="campaigns-hint" autocomplete="off" spellcheck="false">
<label class="field" for="expires_days">Access lasts</label>
<select id="expires_days" name="expires_days">${days}</select>
</fieldset>`;
}

function consentPage(
  ctx: Ctx,
  res: Response,
  status: number,
  claims: FormClaims,
  formToken: string,
  error: string | null,
  choice: ScopeChoice = NO_CHOICE,
): void {
  const client = getClient(ctx, claims.clientId);
  // The client chose its name: it is shown isolated, its direction controls as code points.
  const given = client?.metadata.client_name;
  const name = strangerText(String(given ?? 'An MCP client'));
  const titleName = showBidiControls(String(given ?? 'client'));
  const prefix = KEY_PREFIX[keyEnvFor(ctx.env)];
  const env = keyEnvFor(ctx.env);
  const describedBy = error ? 'key-hint key-error' : 'key-hint';
  sendPage(res, status, {
    title: error ? `Error: connect ${titleName} to outreach-mcp` : `Connect ${titleName} to outreach-mcp`,
    body: `<h1>Connect ${name} to outreach-mcp</h1>
<p><strong>${name}</strong> asks to use the outreach tools of this server (${escapeHtml(ctx.env)} environment) for you. It will reach what the API key you paste here reaches, narrowed by what you choose below, with the same limits. It never sees the key: it gets a token that stops working when the key is revoked.</p>
<p>After you answer, your browser returns to <code>${escapeHtml(destination(claims.redirectUri))}</code>.</p>
${error ? `<p class="error" id="key-error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${CONSENT_PATH}">
<input type="hidden" name="form_token" value="${escapeHtml(formToken)}">
<label for="api_key">API key</label>
<p class="hint" id="key-hint">Paste a key that starts with <code>${prefix}</code>. Create one with <code>npx outreach keys create --env ${env}</code>.</p>
<input type="password" id="api_key" name="api_key" required autocomplete="off" autocapitalize="off" spellcheck="false" aria-describedby="${describedBy}"${error ? ' aria-invalid="true" autofocus' : ''}>
${scopeFields(choice)}
<div class="actions">
<button type="submit" name="decision" value="allow">Allow access</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</div>
</form>`,
  });
}

function problemPage(res: Response, status: number, message: string): void {
  sendPage(res, status, {
    title: 'Error: cannot connect to outreach-mcp',
    body: `<h1>Cannot connect to outreach-mcp</h1>\n<p class="error" role="alert">${escapeHtml(message)}</p>`,
  });
}

/** Shows the consent form for an authorization request the SDK has validated. */
export function renderConsent(ctx: Ctx, res: Response, request: ConsentRequest): void {
  const claims: FormClaims = {
    ...request,
    nonce: randomBase62(22),
    exp: ctx.clock.now() + FORM_TTL_MS,
    bind: digest(browserBinding(res.req, res)),
  };
  consentPage(ctx, res, 200, claims, sealForm(ctx, claims), null);
}

function redirectWith(res: Response, redirectUri: string, params: Record<string, string | null>): void {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  res.set('Cache-Control', 'no-store').redirect(302, url.href);
}

/**
 * POST of the consent form. The pasted key is checked as a request with that key would be
 * (environment, revocation, plan); only then is a code issued, bound to the client, the
 * redirect URI, the PKCE challenge and the key.
 */
export function consentSubmitHandler(ctx: Ctx): RequestHandler[] {
  return [
    express.urlencoded({ extended: false, limit: '64kb' }),
    (req, res) => {
      const form = (req.body ?? {}) as Record<string, unknown>;
      const token = form.form_token;
      const claims = openForm(ctx, token);
      if (!claims || claims.exp <= ctx.clock.now()) {
        return problemPage(res, 400, 'This consent form expired or is not valid. Go back to your client and connect again.');
      }
      const cookie = readCookie(req, COOKIE);
      if (!cookie || !signatureMatches(claims.bind, digest(cookie))) {
        return problemPage(
          res,
          403,
          'This consent form was not opened in this browser, so it cannot be submitted from here. Go back to your client and connect again.',
        );
      }
      if (!getClient(ctx, claims.clientId)) {
        return problemPage(res, 400, 'The client that asked for access is no longer registered. Go back to your client and connect again.');
      }
      if (form.decision === 'deny') {
        return redirectWith(res, claims.redirectUri, { error: 'access_denied', error_description: 'The user denied access.', state: claims.state });
      }
      const apiKey = typeof form.api_key === 'string' ? form.api_key.trim() : '';
      // The client address lets the failed-authentication guard count keys guessed here too.
      const auth = apiKey
        ? authenticate(ctx, { apiKey }, { requestId: requestIdOf(res), clientAddress: clientAddress(req) })
        : { ok: false as const, error: new ApiError('unauthorized', 'Paste your API key to allow access.') };
      const choice = choiceOf(form);
      if (!auth.ok) return consentPage(ctx, res, 400, claims, token as string, `${auth.error.message} No access was granted.`, choice);
      const keyId = auth.caller.keyId;
      // The chosen scope, checked in core: its campaigns must be ones the key itself reaches.
      let keyScope: KeyScope | null;
      try {
        keyScope = checkKeyScope(withReach(ctx, auth.caller.reach ?? null), scopeInput(ctx, choice));
      } catch (err) {
        if (err instanceof ApiError) return consentPage(ctx, res, 400, claims, token as string, `${err.message} No access was granted.`, choice);
        throw err;
      }
      let code: string;
      try {
        code = grantClientAccess(ctx, {
          clientId: claims.clientId,
          apiKeyId: keyId,
          redirectUri: claims.redirectUri,
          codeChallenge: claims.codeChallenge,
          scopes: claims.scopes,
          resource: claims.resource,
          formNonce: claims.nonce,
          keyScope,
        });
      } catch (err) {
        if (err instanceof OAuthFailure) return problemPage(res, 400, err.message);
        throw err;
      }
      redirectWith(res, claims.redirectUri, { code, state: claims.state });
    },
  ];
}
