import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Client } from '@hubspot/api-client';
import { type CrmContactInput, type CrmContactState, type CrmDeal, CrmError, type CrmNote, type CrmPort } from '../../../core/network/crm.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { redact, toCrmError } from './errors.js';
import {
  contactProperties,
  DEAL_TO_CONTACT,
  DEFAULT_PIPELINE,
  DEFAULT_STAGE,
  NOTE_TO_CONTACT,
  noteHtml,
  P,
  parseHubSpotDate,
  profileUrlVariants,
  pushMarker,
} from './mapping.js';

export interface HubSpotOptions {
  /** The environment variable that holds the private app's access token. */
  tokenEnv: string;
  /** Where the token is read from (the process environment in the server). */
  env: NodeJS.ProcessEnv;
  /** HubSpot's API root; the contract tests point it at the local stand-in. Default https://api.hubapi.com. */
  basePath?: string;
  /** How long one HubSpot call may take before it counts as a (retryable) failure. Default 30 s. */
  timeoutMs?: number;
}

/**
 * HubSpot's client, loaded at the first HubSpot call rather than when this module is imported.
 * It fetches through node-fetch 2, whose URL parser requires Node's deprecated `punycode`
 * module, and Node 22 prints a deprecation warning on stderr the moment that loads. Loading it
 * late keeps that line out of every CLI command and every server without a CRM configured.
 */
let clientModule: Promise<typeof import('@hubspot/api-client')> | null = null;
function loadClient(): Promise<typeof import('@hubspot/api-client')> {
  clientModule ??= import('@hubspot/api-client');
  return clientModule;
}

/** A search answer's contact, as the adapter reads it. */
interface Found {
  id: string;
  properties: Record<string, string | null>;
  updatedAt?: Date;
}

const CONTACT_FIELDS = [P.email, P.firstName, P.lastName, P.company, P.title, P.linkedinUrl];
const CHANGE_FIELDS = [P.email, P.linkedinUrl, P.lifecycleStage, P.doNotContact, P.lastModified];
/** HubSpot's search answers at most 200 a page and pages no further than 10,000 results. */
const SEARCH_PAGE_MAX = 200;
const SEARCH_WINDOW = 10_000;

/**
 * The HubSpot adapter, on HubSpot's own Node client (`@hubspot/api-client`), public API only.
 * The client's own retries are off (`numberOfApiCallRetries: 0`): the outbox in core retries,
 * with backoff and the Retry-After this adapter reports, so a call is never retried twice over.
 */
export class HubSpotCrm implements CrmPort {
  readonly kind = 'hubspot';
  private client: Client | null = null;
  private clientToken: string | null = null;
  private readonly agent: HttpAgent;
  private readonly timeoutMs: number;
  private propertiesReady: Promise<void> | null = null;

  constructor(private readonly options: HubSpotOptions) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    const secure = !options.basePath || options.basePath.startsWith('https:');
    this.agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  /** The token, read from the named variable at each call, so a rotated token needs no restart of the adapter. */
  private token(): string {
    const value = this.options.env[this.options.tokenEnv];
    if (value === undefined || value.trim() === '')
      throw new CrmError(`the environment variable ${this.options.tokenEnv} that holds the HubSpot token is not set`, false, null);
    return value.trim();
  }

  private async api(): Promise<Client> {
    const token = this.token();
    if (this.client === null || this.clientToken !== token) {
      const { Client } = await loadClient();
      this.client = new Client({
        accessToken: token,
        numberOfApiCallRetries: 0,
        httpAgent: this.agent,
        ...(this.options.basePath ? { basePath: this.options.basePath } : {}),
      });
      this.clientToken = token;
    }
    return this.client;
  }

  /** One client call, bounded in time, its failure mapped to a CrmError without the token. */
  private async call<T>(what: string, run: (client: Client) => Promise<T>): Promise<T> {
    let token: string | null = null;
    let timer: NodeJS.Timeout | undefined;
    try {
      const client = await this.api();
      token = this.clientToken;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new CrmError(`HubSpot ${what} took longer than ${this.timeoutMs} ms`, true, null)), this.timeoutMs);
      });
      return await Promise.race([run(client), timeout]);
    } catch (error) {
      throw toCrmError(what, error, token ?? this.options.env[this.options.tokenEnv] ?? null);
    } finally {
      clearTimeout(timer);
    }
  }

  async verify(): Promise<void> {
    await this.call('the token check (read one contact)', (c) => c.crm.contacts.basicApi.getPage(1));
    await this.ensureProperties();
  }

  /**
   * The two custom properties the adapter relies on, created when missing (the private app needs
   * the `crm.schemas.contacts.write` and `crm.schemas.deals.write` scopes for that; without them a
   * person creates the properties once by hand, see docs/crm.md). Checked once per adapter.
   */
  private ensureProperties(): Promise<void> {
    if (this.propertiesReady === null) {
      this.propertiesReady = (async () => {
        await this.ensureProperty('contacts', {
          name: P.doNotContact,
          label: 'Do not contact (Outreach)',
          description: 'Ticked, it ends the lead’s outreach sequence at the next sync.',
          groupName: 'contactinformation',
          type: 'bool',
          fieldType: 'booleancheckbox',
          options: [
            { label: 'Yes', value: 'true', displayOrder: 0, hidden: false },
            { label: 'No', value: 'false', displayOrder: 1, hidden: false },
          ],
        });
        await this.ensureProperty('deals', {
          name: P.pushId,
          label: 'Outreach push id',
          description: 'The Outreach sync push that opened this deal; unique, so a retried push never opens a second deal.',
          groupName: 'dealinformation',
          type: 'string',
          fieldType: 'text',
          hasUniqueValue: true,
        });
      })().catch((error) => {
        this.propertiesReady = null;
        throw error;
      });
    }
    return this.propertiesReady;
  }

  private async ensureProperty(
    objectType: 'contacts' | 'deals',
    property: {
      name: string;
      label: string;
      description: string;
      groupName: string;
      type: 'bool' | 'string';
      fieldType: 'booleancheckbox' | 'text';
      hasUniqueValue?: boolean;
      options?: { label: string; value: string; displayOrder: number; hidden: boolean }[];
    },
  ): Promise<void> {
    try {
      await this.call(`the ${objectType} property ${property.name} read`, (c) => c.crm.properties.coreApi.getByName(objectType, property.name));
      return;
    } catch (error) {
      if (!(error instanceof CrmError) || error.status !== 404) throw error;
    }
    try {
      await this.call(`the ${objectType} property ${property.name} creation`, (c) =>
        c.crm.properties.coreApi.create(objectType, {
          ...property,
          type: property.type as never,
          fieldType: property.fieldType as never,
          options: property.options ?? [],
        }),
      );
    } catch (error) {
      // 409: created meanwhile (another server, another call): what was wanted.
      if (!(error instanceof CrmError) || error.status !== 409) throw error;
    }
  }

  async upsertContact(contact: CrmContactInput): Promise<{ contactId: string; created: boolean }> {
    const wanted = contactProperties(contact);
    let found: Found | null = null;
    const email = wanted[P.email];
    if (email) found = await this.searchOne('the contact search by email', P.email, [email]);
    if (found === null) found = await this.searchOne('the contact search by LinkedIn URL', P.linkedinUrl, profileUrlVariants(contact.networkUrl));
    if (found !== null) {
      await this.fillBlanks(found, wanted);
      return { contactId: found.id, created: false };
    }
    try {
      const made = await this.call('the contact creation', (c) => c.crm.contacts.basicApi.create({ properties: wanted, associations: [] }));
      return { contactId: made.id, created: true };
    } catch (error) {
      // 409: a contact with this email exists (made by a concurrent push, or too recently for the
      // search index to show). HubSpot names it in the message: "Contact already exists. Existing ID: 123".
      if (error instanceof CrmError && error.status === 409) {
        const id = /Existing ID:\s*(\d+)/i.exec(error.message)?.[1];
        // The concurrent creator filled it from the same lead.
        if (id) return { contactId: id, created: false };
      }
      throw error;
    }
  }

  /** A contact the push matched keeps what HubSpot holds: only its empty fields are filled. */
  private async fillBlanks(found: Found, wanted: Record<string, string>): Promise<void> {
    const patch: Record<string, string> = {};
    for (const [name, value] of Object.entries(wanted)) {
      const current = found.properties[name];
      if (current === null || current === undefined || current === '') patch[name] = value;
    }
    if (Object.keys(patch).length === 0) return;
    await this.call('the contact update', (c) => c.crm.contacts.basicApi.update(found.id, { properties: patch }));
  }

  /** The oldest contact whose property equals one of the values, or null. */
  private async searchOne(what: string, property: string, values: string[]): Promise<Found | null> {
    const filter =
      values.length === 1
        ? { propertyName: property, operator: 'EQ' as never, value: values[0] as string }
        : { propertyName: property, operator: 'IN' as never, values };
    const page = await this.call(what, (c) =>
      c.crm.contacts.searchApi.doSearch({
        filterGroups: [{ filters: [filter] }],
        // HubSpot documents a sort as { propertyName, direction }; the generated type says string.
        sorts: [{ propertyName: P.createDate, direction: 'ASCENDING' } as never],
        properties: CONTACT_FIELDS,
        limit: 1,
      }),
    );
    const first = page.results[0];
    return first ? { id: first.id, properties: first.properties } : null;
  }

  async addNote(contactId: string, note: CrmNote): Promise<{ noteId: string; created: boolean }> {
    const marker = pushMarker(note.pushId);
    const existing = await this.associatedWith(contactId, 'notes', [P.noteBody], (props) => (props[P.noteBody] ?? '').includes(marker));
    if (existing !== null) return { noteId: existing, created: false };
    const made = await this.call('the note creation', (c) =>
      c.crm.objects.notes.basicApi.create({
        properties: { [P.noteTimestamp]: new Date(note.at).toISOString(), [P.noteBody]: noteHtml(note.body, note.pushId) },
        associations: [{ to: { id: contactId }, types: [{ associationCategory: 'HUBSPOT_DEFINED' as never, associationTypeId: NOTE_TO_CONTACT }] }],
      }),
    );
    return { noteId: made.id, created: true };
  }

  async openDeal(contactId: string, deal: CrmDeal): Promise<{ dealId: string; created: boolean }> {
    await this.ensureProperties();
    const prior = await this.dealByPush(deal.pushId);
    if (prior !== null) return { dealId: prior, created: false };
    const properties: Record<string, string> = {
      [P.dealName]: deal.name,
      [P.pipeline]: deal.pipelineId ?? DEFAULT_PIPELINE,
      [P.dealStage]: deal.stageId ?? DEFAULT_STAGE,
      [P.pushId]: deal.pushId,
    };
    if (deal.ownerId !== null) properties[P.owner] = deal.ownerId;
    try {
      const made = await this.call('the deal creation', (c) =>
        c.crm.deals.basicApi.create({
          properties,
          associations: [{ to: { id: contactId }, types: [{ associationCategory: 'HUBSPOT_DEFINED' as never, associationTypeId: DEAL_TO_CONTACT }] }],
        }),
      );
      return { dealId: made.id, created: true };
    } catch (error) {
      // 409 on the unique push id: the first attempt made the deal after all (its answer was lost).
      if (error instanceof CrmError && error.status === 409) {
        const made = await this.dealByPush(deal.pushId);
        if (made !== null) return { dealId: made, created: false };
      }
      throw error;
    }
  }

  /** The deal a push opened, read by its unique property (no search index: what was written is read back at once). */
  private async dealByPush(pushId: string): Promise<string | null> {
    try {
      const deal = await this.call('the deal read by push id', (c) => c.crm.deals.basicApi.getById(pushId, [P.pushId], undefined, undefined, false, P.pushId));
      return deal.id;
    } catch (error) {
      if (error instanceof CrmError && error.status === 404) return null;
      throw error;
    }
  }

  /**
   * The first object of a type associated with the contact whose properties match, or null. Reads
   * the associations (v4) and the objects themselves (batch read), which see a write at once,
   * unlike the search index, so a note made just before a crash is found by the retry.
   */
  private async associatedWith(
    contactId: string,
    toType: 'notes',
    properties: string[],
    matches: (props: Record<string, string | null>) => boolean,
  ): Promise<string | null> {
    let after: string | undefined;
    do {
      const page = await this.call('the note associations read', (c) => c.crm.associations.v4.basicApi.getPage('contacts', contactId, toType, after, 500));
      const ids = page.results.map((r) => String(r.toObjectId));
      for (let i = 0; i < ids.length; i += 100) {
        const inputs = ids.slice(i, i + 100).map((id) => ({ id }));
        const read = await this.call('the notes batch read', (c) => c.crm.objects.notes.batchApi.read({ inputs, properties, propertiesWithHistory: [] }));
        const hit = read.results.find((o) => matches(o.properties));
        if (hit) return hit.id;
      }
      after = page.paging?.next?.after;
    } while (after);
    return null;
  }

  async changedContacts(cursor: string | null, limit: number): Promise<{ contacts: CrmContactState[]; cursor: string | null }> {
    let from: { t: number; ids: string[] } | null;
    try {
      from = decodeCursor(cursor);
    } catch {
      throw new CrmError('the HubSpot change cursor is not one this adapter wrote', false, null);
    }
    await this.ensureProperties();
    const want = Math.max(1, Math.floor(limit));
    const seen = new Set(from?.ids ?? []);
    const out: CrmContactState[] = [];
    let after: string | undefined;
    let scanned = 0;
    while (out.length < want) {
      const pageSize = Math.min(SEARCH_PAGE_MAX, want - out.length + seen.size);
      const page = await this.call('the contact change read', (c) =>
        c.crm.contacts.searchApi.doSearch({
          filterGroups: from ? [{ filters: [{ propertyName: P.lastModified, operator: 'GTE' as never, value: String(from.t) }] }] : [],
          sorts: [{ propertyName: P.lastModified, direction: 'ASCENDING' } as never],
          properties: CHANGE_FIELDS,
          limit: pageSize,
          ...(after ? { after } : {}),
        }),
      );
      for (const r of page.results) {
        const state = stateOf(r);
        // Seen at the cursor's time; one changed again since is new.
        if (seen.has(r.id) && state.updatedAt === from?.t) continue;
        out.push(state);
        if (out.length >= want) break;
      }
      scanned += page.results.length;
      after = page.paging?.next?.after;
      if (!after || page.results.length === 0 || scanned + pageSize > SEARCH_WINDOW) break;
    }
    if (out.length === 0) {
      // Nothing new. A window filled by contacts changed in one millisecond and all seen (more
      // than 10,000 of them) would stall here: step past that millisecond.
      if (from && scanned >= SEARCH_WINDOW) return { contacts: [], cursor: encodeCursor({ t: from.t + 1, ids: [] }) };
      return { contacts: [], cursor };
    }
    const last = out[out.length - 1] as CrmContactState;
    const t = last.updatedAt;
    const ids = out.filter((c) => c.updatedAt === t).map((c) => c.contactId);
    if (from && from.t === t) ids.unshift(...from.ids);
    return { contacts: out, cursor: encodeCursor({ t, ids: [...new Set(ids)] }) };
  }

  /** For tests and the sync log: the message a failure would carry, with the token taken out. */
  redact(text: string): string {
    return redact(text, this.options.env[this.options.tokenEnv] ?? null);
  }
}

function stateOf(r: { id: string; properties: Record<string, string | null>; updatedAt?: Date }): CrmContactState {
  const p = r.properties;
  const updatedAt = parseHubSpotDate(p[P.lastModified]) ?? r.updatedAt?.getTime() ?? 0;
  return {
    contactId: r.id,
    email: p[P.email] || null,
    networkUrl: p[P.linkedinUrl] || null,
    lifecycleStage: p[P.lifecycleStage] || null,
    doNotContact: p[P.doNotContact] === 'true',
    updatedAt,
  };
}
