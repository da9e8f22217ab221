/**
 * The CRM port: everything the service asks of a CRM, as the network provider port is for the
 * professional network and the mail port for mail servers. Core decides what to tell the CRM and
 * what a change read from it means (an outbox, retries, the sync log, ending a lead's sequence);
 * an adapter (src/network/crm/<name>: HubSpot first) only carries it. The token never crosses
 * this port: an adapter reads it from the environment variable the config names.
 *
 * Every create carries a `pushId` (the outbox row's id). An adapter makes a create with a pushId
 * it has already carried a no-op that answers the first object, so a push retried after a crash
 * is never made twice in the CRM.
 */

/** The lead's fields a contact is matched by and filled from. */
export interface CrmContactInput {
  /** Matched first, case-insensitively. */
  email: string | null;
  /** Matched when no contact has the email. */
  networkUrl: string;
  firstName: string | null;
  lastName: string | null;
  company: string | null;
  title: string | null;
}

/** A contact as read back from the CRM: what the pull acts on. */
export interface CrmContactState {
  contactId: string;
  email: string | null;
  networkUrl: string | null;
  /** The CRM's lifecycle stage (HubSpot: `lead`, `opportunity`, `customer`, …), null when unset. */
  lifecycleStage: string | null;
  /** The contact is marked "do not contact" in the CRM. */
  doNotContact: boolean;
  /** When the CRM last changed the contact, ms since the epoch. */
  updatedAt: number;
}

export interface CrmNote {
  pushId: string;
  /** Plain text: what happened, never a secret. */
  body: string;
  /** When it happened, ms since the epoch. */
  at: number;
}

export interface CrmDeal {
  pushId: string;
  name: string;
  pipelineId: string | null;
  stageId: string | null;
  ownerId: string | null;
}

export interface CrmPort {
  /** The adapter's name, as the config spells it. */
  readonly kind: string;
  /** Checks that the token reaches the CRM; throws CrmError when it does not. */
  verify(): Promise<void>;
  /** Finds the contact by email, then by LinkedIn URL, creates it when neither matches, and fills the fields given. */
  upsertContact(contact: CrmContactInput): Promise<{ contactId: string; created: boolean }>;
  /** An activity note associated with the contact. */
  addNote(contactId: string, note: CrmNote): Promise<{ noteId: string; created: boolean }>;
  /** A deal in the pipeline and stage, associated with the contact. */
  openDeal(contactId: string, deal: CrmDeal): Promise<{ dealId: string; created: boolean }>;
  /** Contacts changed after the cursor, oldest first; the cursor to pass next time (null from the start). */
  changedContacts(cursor: string | null, limit: number): Promise<{ contacts: CrmContactState[]; cursor: string | null }>;
}

/**
 * A CRM call that failed: `retryable` for outages, rate limits and 5xx; not for a refused token or
 * a bad request. `retryAfterMs` is how long the CRM asked to be left alone (a 429's Retry-After),
 * null when it did not say: the outbox waits at least that long before the next attempt.
 */
export class CrmError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status: number | null = null,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
    this.name = 'CrmError';
  }
}
