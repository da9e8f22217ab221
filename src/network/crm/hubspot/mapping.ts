import type { CrmContactInput } from '../../../core/network/crm.js';

/**
 * The HubSpot properties the adapter reads and writes. All but two are HubSpot's default
 * properties; the two custom ones are created by the adapter on first use (see ensureProperties).
 */
export const P = {
  email: 'email',
  firstName: 'firstname',
  lastName: 'lastname',
  company: 'company',
  title: 'jobtitle',
  /** Default contact property "LinkedIn URL". */
  linkedinUrl: 'hs_linkedin_url',
  lifecycleStage: 'lifecyclestage',
  lastModified: 'lastmodifieddate',
  createDate: 'createdate',
  noteBody: 'hs_note_body',
  noteTimestamp: 'hs_timestamp',
  dealName: 'dealname',
  pipeline: 'pipeline',
  dealStage: 'dealstage',
  owner: 'hubspot_owner_id',
  /** Custom contact property (boolean checkbox): a person in HubSpot ticks it to stop outreach. */
  doNotContact: 'outreach_do_not_contact',
  /** Custom deal property with unique values: the push that opened the deal. */
  pushId: 'outreach_push_id',
} as const;

/** HubSpot-defined association type ids (v4): note to contact, deal to contact. */
export const NOTE_TO_CONTACT = 202;
export const DEAL_TO_CONTACT = 3;

/** HubSpot's default sales pipeline and its first stage, used when the config names none. */
export const DEFAULT_PIPELINE = 'default';
export const DEFAULT_STAGE = 'appointmentscheduled';

/** The contact properties a push fills, by HubSpot name; null fields are left out. */
export function contactProperties(contact: CrmContactInput): Record<string, string> {
  const out: Record<string, string> = {};
  const put = (name: string, value: string | null) => {
    if (value !== null && value.trim() !== '') out[name] = value.trim();
  };
  put(P.email, contact.email?.toLowerCase() ?? null);
  put(P.firstName, contact.firstName);
  put(P.lastName, contact.lastName);
  put(P.company, contact.company);
  put(P.title, contact.title);
  put(P.linkedinUrl, canonicalProfileUrl(contact.networkUrl));
  return out;
}

const PROFILE = /^(?:https?:\/\/)?(?:[a-z]{2,3}\.|www\.)?linkedin\.com\/in\/([^/?#\s]+)/i;

/** `https://www.linkedin.com/in/<slug>`, lower-cased, without a trailing slash or query; other URLs are trimmed only. */
export function canonicalProfileUrl(url: string): string {
  const m = PROFILE.exec(url.trim());
  if (!m?.[1]) return url.trim();
  return `https://www.linkedin.com/in/${decodeURIComponent(m[1]).toLowerCase()}`;
}

/**
 * The spellings a person may have typed the same profile URL in HubSpot: with or without
 * `www.`, `http`/`https`, a trailing slash. All lower-case (HubSpot's IN operator on a string
 * property wants lower-case values).
 */
export function profileUrlVariants(url: string): string[] {
  const canonical = canonicalProfileUrl(url);
  const m = PROFILE.exec(canonical);
  if (!m?.[1]) {
    const bare = canonical.replace(/\/+$/, '');
    return [...new Set([bare, `${bare}/`].map((v) => v.toLowerCase()))];
  }
  const slug = m[1];
  const out: string[] = [];
  for (const scheme of ['https://', 'http://'])
    for (const host of ['www.linkedin.com', 'linkedin.com']) for (const tail of ['', '/']) out.push(`${scheme}${host}/in/${slug}${tail}`);
  return out;
}

/** The marker that ties a note to its push: kept at the end of the note's body, where a person can read it. */
export const pushMarker = (pushId: string): string => `[outreach push ${pushId}]`;

const escapeHtml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The note's body as HubSpot stores it (rich text): the plain text escaped, lines kept, the push marker last. */
export function noteHtml(body: string, pushId: string): string {
  const lines = escapeHtml(body).split(/\r?\n/).join('<br>');
  return `<p>${lines}</p><p>${escapeHtml(pushMarker(pushId))}</p>`;
}

/** Parses a HubSpot date property (ISO text or ms since the epoch as text); null when empty or unreadable. */
export function parseHubSpotDate(value: string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  if (/^\d+$/.test(value)) return Number(value);
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : t;
}
