import type { DraftKind } from './rules.js';
import type { DraftLead } from './view.js';

/**
 * The optional model on the server (config `drafter`): it rewrites a new draft for its lead
 * before the draft enters the queue. This is the seam; the adapter that calls an
 * OpenAI-compatible endpoint lives in src/network/drafter/. Its answer is untrusted text, held
 * to the rules a person's edit is held to.
 */
export interface DraftRequest {
  kind: DraftKind;
  /** The step's text as the agent wrote it, placeholders included, when the caller has it. */
  template: string | null;
  /** The step's text rendered for the lead: the draft as it stands. */
  rendered: string;
  /** An InMail's subject, rendered (the model rewrites only the text). */
  subject: string | null;
  /** The most characters the text may have. */
  maxLength: number;
  lead: DraftLead & { firstName: string | null };
}

export interface Drafter {
  /**
   * The rewritten text. Throws on failure; a `DrafterFailure`'s message is stored as the
   * draft's `drafterError`, any other error as a generic reason (its text may hold anything).
   */
  rewrite(request: DraftRequest): Promise<string>;
}

/** A failure whose message is safe to store and show: it names what happened, never a secret. */
export class DrafterFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DrafterFailure';
  }
}
