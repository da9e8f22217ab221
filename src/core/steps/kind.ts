import type { z } from 'zod';
import type { leads } from '../../db/schema.js';
import type { DailyCounter } from '../activity/record.js';
import type { RenderLead } from '../agents/render.js';
import type { SentEmail } from '../network/mail.js';
import type { AccountRef, NetworkProvider, ProfileRef } from '../network/provider.js';

/**
 * What a step kind that reaches the network is (docs/architecture.md, "Adding a step kind"):
 * one module per kind in this folder holds all of it, and ./registry.ts lists the modules. The
 * schema, the runner, the engine's sends, the limits, the auditor and the dashboard read a kind
 * from its module, never from a switch of their own. `wait` and `if` are not kinds of this sort:
 * they are the sequence's own language (core/agents/steps.ts), which the runner walks.
 *
 * A kind module imports nothing at run time but small pure helpers (the placeholder renderer),
 * so the dashboard can read its labels without the server's code: its schema is a function of
 * the zod it is handed.
 */

export const NOTE_MAX = 300;
export const TEXT_MAX = 8000;
export const SUBJECT_MAX = 200;
export const VARIANTS_MAX = 4;

/** Variant letters: the step's own text is A, its `variants` are B, C, D and E. */
export const VARIANT_LETTERS = ['A', 'B', 'C', 'D', 'E'] as const;
export type VariantLetter = (typeof VARIANT_LETTERS)[number];

/** The pieces every kind's input shape shares, built by the schema's owner (core/agents/steps.ts). */
export interface SchemaParts {
  z: typeof z;
  /** `id`: omit for a new step, send back to keep one. */
  id: z.ZodOptional<z.ZodString>;
}

/** What the step runner knows of the lead that a kind's rules read (the rest is the runner's). */
export interface StepFacts {
  /** The invitation was accepted, or the lead was loaded as a connection. */
  accepted: boolean;
  /** An invitation went out (ours, or the lead was loaded as invited). */
  invited: boolean;
  /** When we sent it; null for one we did not send. */
  invitedAt: number | null;
  withdrawn: boolean;
  /** Whether the lead's sender has Sales Navigator; null when not known yet. */
  salesNavigator: boolean | null;
  /** The lead has an email address (absent: not known, read as none). */
  hasEmail?: boolean;
  /** The lead's address is on the workspace's email exclusion list, and why (absent or null: it is not). */
  emailExcluded?: 'unsubscribed' | 'bounced' | null;
}

/** The runner's settings a kind's rules read. */
export interface StepRules {
  /** The agent was written with `connectionNote` and `messages`. */
  legacy: boolean;
  /** A legacy agent's `else` withdraws the invitation only when stale invitations are withdrawn. */
  withdrawStale: boolean;
}

/** A step's words for the lead: the text sent (an invitation's note, a message; null: none), an InMail's subject, and the template they came from. */
export interface StepWords {
  text: string | null;
  subject: string | null;
  /** The step's own text before rendering, kept with a draft; null for a step without words. */
  template: string | null;
}

/** What the provider answered for a step that reached it but did nothing: nothing was sent. */
export type SkippedOutcome = string;

/** A provider call's result, as the engine records it. */
export interface CallResult {
  chatId?: string;
  messageId?: string;
  /** An email the server took: recorded (its send settled, the thread's entry) in the transaction that settles the send. */
  email?: SentEmail;
  /** The network answered that there was nothing to do (no post to like, InMail refused): the step is skipped for this reason. */
  skipped?: SkippedOutcome;
}

/** The provider call of a begun send: the lead's profile, the account, and what the send carries. */
export interface ActionCall {
  network: NetworkProvider;
  recipient: ProfileRef;
  account: AccountRef;
  /** The intent's text (a note, a message, an InMail's body, or what the kind keeps there). */
  text: string | null;
  subject: string | null;
  /** The lead's chat, once there is one. */
  chatId: string | null;
  /**
   * For a kind of the email channel: sends the email (subject and text as the intent holds them)
   * from the lead's mailbox to the lead's address, through core's sendEmail verb, and says what
   * came of it. Absent for the other kinds.
   */
  email?: (words: { subject: string; text: string }) => Promise<CallResult>;
}

type LeadRow = typeof leads.$inferSelect;

/** A JSON Schema node. */
export type JsonSchema = { [key: string]: unknown };

/** Campaign counters a send moves (get_campaign's stats). */
export type OutreachCounter = 'connectionRequestsSent' | 'messagesSent';

/** What a send that happened changes, recorded by the engine in the send's transaction. */
export interface SentEffects {
  /** Lead fields to write. */
  changes: Partial<LeadRow>;
  outreach?: OutreachCounter;
  /** The account's stored daily counter it moves (invitations, messages, visits, likes). */
  daily?: DailyCounter;
  /** The public activity log's entry; none for kinds the log has no type for (the intent is the record). */
  activity?: 'connection_request_sent' | 'message_sent';
  /** Its words enter the lead's conversation thread as the sequence's. */
  thread?: boolean;
}

/**
 * The daily limit a kind counts against. The four stored ones are the account's own settings
 * (connect_account, update_account): invitations, messages (an InMail is one), profile visits and
 * post likes. A kind may instead declare its own, per sender and per UTC day, counted from the
 * engine's send records of the kind (`perDay`, with the warm-up rising from `warmUpStart`).
 */
export type StepLimit = { stored: 'invitations' | 'messages' | 'visits' | 'likes' } | { own: string; perDay: number; warmUpStart: number; label: string };

/**
 * A step kind that reaches the network. `kind` is its name from the API to the provider. Kinds
 * older than this contract keep the names their sends and send records were stored under
 * (`send`, `intent`); a new kind uses `kind` for both.
 */
export interface ActionKind<
  S extends { id: string; kind: string } = { id: string; kind: string },
  Send extends string = S['kind'],
  Intent extends string = S['kind'],
> {
  kind: S['kind'];
  /** The engine's name for the send (its plan and its lanes). */
  send: Send;
  /** The stored send record's kind (engine_intents.kind). */
  intent: Intent;
  /**
   * Where its sends go among an account's sends of a tick, lowest first: the conversation's go
   * first (0, 1), then messages (2), withdrawals (3, which free pending invitations before new
   * ones), touches (4), invitations (5).
   */
  order: number;
  /** How the kind reads to a person (the dashboard's editor, preview and funnel). */
  label: string;
  /** The reasons the kind may be skipped for, in words. */
  skipReasons: Readonly<Record<string, string>>;
  /** The API's input shape, given the shared parts. */
  input(parts: SchemaParts): z.ZodObject;
  /**
   * How tools/list shows the kind in its compact listing of a step (src/tools/agent-steps.ts):
   * `says`, a phrase of the listing's description (`invite: note?, variants?.`; for a kind with no
   * field, its name and what it does, listed with the others that have none), and its fields
   * other than `variants` (listed once, for every kind that takes them): each as the input and
   * as the stored step read back.
   */
  listing: { says: string; fields?: Record<string, { input: JsonSchema; output: JsonSchema }> };
  /** The stored and returned shape (get_agent). */
  output(zod: typeof z): z.ZodObject;
  /** The stored step from a validated input (blank notes read as none, and so on). */
  toStep(input: Record<string, unknown> & { kind: S['kind'] }, id: string): S;
  /** The step's texts that take placeholders, by field path below the step (`text`, `variants[0].note`). */
  texts?(step: Record<string, unknown>): [field: string, text: string | null | undefined][];
  /** How many variants the step has (1 when it takes none). */
  variants?(step: S): number;
  /** Why the step is skipped for this lead, or null when it is carried out. */
  skip(step: S, facts: StepFacts, rules: StepRules): string | null;
  /** Whether the step's words may wait for a person's approval (a note, a message, an InMail). */
  carriesWords?(step: S): boolean;
  /** The step's words for the lead in the variant drawn; absent: it carries none. */
  words?(step: S, lead: RenderLead, variant: VariantLetter): StepWords;
  /** The lead must be looked up (its name) before it: the words name the person. */
  rendersWords?(step: S): boolean;
  /** Before an invitation, the kind is paced by the invitations the sender may still send (a visit, a like). */
  touch?: boolean;
  /** Only an account with Sales Navigator carries it out (it is skipped without). */
  salesNavigator?: boolean;
  /**
   * `email`: the step goes by email from the lead's mailbox (the campaign's `mailboxIds`, one
   * pinned per lead at its first email step), not through the professional network: it needs no
   * profile to reach, and the mailbox's own rules (daily limit, warm-up, working hours, spacing)
   * pace it instead of an account's. Absent: the professional network.
   */
  channel?: 'email';
  limit: StepLimit | null;
  /** The provider call. Network I/O, outside any transaction. */
  call(c: ActionCall): Promise<CallResult>;
  /** What a send that happened changes; `skipped` when the network answered there was nothing to do. */
  sent(lead: LeadRow, at: number, skipped: boolean, intent: { step: number | null; chatId: string | null }): SentEffects;
  /** A send that failed for good: the step is skipped for this reason (the lead goes on), or null: the lead fails. */
  finalFailure?(code: string): { reason: string; changes?: (at: number) => Partial<LeadRow> } | null;
}

/** The text of a variant: A is the step's own; a letter beyond the step's variants (edited after the draw) falls back to A. */
export function variantOf<T>(own: T, variants: readonly T[] | undefined, letter: VariantLetter): T {
  const index = VARIANT_LETTERS.indexOf(letter);
  const alt = index <= 0 ? undefined : variants?.[index - 1];
  return alt === undefined ? own : alt;
}

/** A blank note means no note, as for `connectionNote`. */
export const noteValue = (note: unknown): string | null => (typeof note !== 'string' || note.trim() === '' ? null : note);

/** Declares a kind, typed by its stored step. */
export const defineKind = <S extends { id: string; kind: string }, Send extends string = S['kind'], Intent extends string = S['kind']>(
  kind: ActionKind<S, Send, Intent>,
): ActionKind<S, Send, Intent> => kind;
