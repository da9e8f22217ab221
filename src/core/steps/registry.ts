import { email, emailLabels } from './email.js';
import { endorse, endorseLabels } from './endorse.js';
import type { ActionKind } from './kind.js';
import { inmail, inmailLabels } from './inmail.js';
import { invite, inviteLabels } from './invite.js';
import { likePost, likePostLabels } from './like-post.js';
import { message, messageLabels } from './message.js';
import { visit, visitLabels } from './visit.js';
import { withdraw, withdrawLabels } from './withdraw.js';

/**
 * Every step kind that reaches the network, one module each (./kind.ts says what a module
 * holds). The order is the order the API's schema and the dashboard's menu list them in.
 * Adding a kind is its module and one line here (docs/architecture.md, "Adding a step kind").
 */
export const ACTION_KINDS = [visit, likePost, invite, message, inmail, withdraw, endorse, email] as const;
/** The same kinds' labels alone, in the same order: what the dashboard and the MCP App views import (the kinds' code stays out of their bundles). */
export const KIND_LABELS = [visitLabels, likePostLabels, inviteLabels, messageLabels, inmailLabels, withdrawLabels, endorseLabels, emailLabels] as const;

type Registered = (typeof ACTION_KINDS)[number];
/** A stored step of a kind that reaches the network. */
export type ActionStep = Parameters<Registered['skip']>[0];
export type ActionKindName = Registered['kind'];
/** The engine's send kinds of the steps (`connect` is the invitation's). */
export type StepSendKind = Registered['send'];
/** The stored send records' kinds of the steps. */
export type StepIntentKind = Registered['intent'];

const byKind: ReadonlyMap<string, ActionKind> = /* @__PURE__ */ new Map(/* @__PURE__ */ ACTION_KINDS.map((k) => [k.kind, k as unknown as ActionKind]));
const bySend: ReadonlyMap<string, ActionKind> = /* @__PURE__ */ new Map(/* @__PURE__ */ ACTION_KINDS.map((k) => [k.send, k as unknown as ActionKind]));
const byIntent: ReadonlyMap<string, ActionKind> = /* @__PURE__ */ new Map(/* @__PURE__ */ ACTION_KINDS.map((k) => [k.intent, k as unknown as ActionKind]));

/** The module of a step kind; undefined for `wait`, `if` and names no module has. */
export const actionKind = (kind: string): ActionKind | undefined => byKind.get(kind);
/** The module of an engine send kind (`connect` is the invitation's). */
export const kindOfSend = (send: string): ActionKind | undefined => bySend.get(send);
/** The module of a stored send record's kind (`connection_request` is the invitation's). */
export const kindOfIntent = (intent: string): ActionKind | undefined => byIntent.get(intent);

/** The module of a stored step (its kind is one of the registry's). */
export const kindOf = (step: ActionStep): ActionKind<ActionStep, string, string> => byKind.get(step.kind) as unknown as ActionKind<ActionStep, string, string>;

/** The engine's send kinds of the steps, and the stored send records' kinds. */
export const STEP_SEND_KINDS: readonly StepSendKind[] = /* @__PURE__ */ ACTION_KINDS.map((k) => k.send);
export const STEP_INTENT_KINDS: readonly StepIntentKind[] = /* @__PURE__ */ ACTION_KINDS.map((k) => k.intent);

/** The kinds that declare a limit of their own (counted from their send records), for the readiness check and the auditor. */
export const OWN_LIMITS = /* @__PURE__ */ ACTION_KINDS.flatMap((k) => {
  const limit = (k as unknown as ActionKind).limit;
  return limit !== null && 'own' in limit ? [{ intent: k.intent, send: k.send, ...limit }] : [];
});
