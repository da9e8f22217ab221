import { loadDist } from './app.js';
import { median } from './stats.js';
import type * as Rules from '../../src/core/triage/rules.js';
import type * as Words from '../../src/network/sim/words.js';

/**
 * Triage by rules (issue 39): 10,000 replies through the pure rules function, as the reply path
 * runs it. The replies mix what the simulator writes (positive, questions, refusals) with
 * out-of-office notes, bounces and unsubscribes of several lengths and languages, so every rule
 * is tried on most replies. The figure is the median of five rounds, in milliseconds.
 * Target: under 1 s.
 */

export const TRIAGE_REPLIES = 10_000;
export const TRIAGE_TARGET_MS = 1_000;

export interface TriageBench {
  replies: number;
  rounds: number;
  /** Median round, milliseconds for all the replies. */
  medianMs: number;
  /** Replies a rule recognised (the same every round). */
  recognised: number;
}

const AUTOMATIC = [
  'Thanks for your message. I am out of the office until Monday 3 December with limited access to messages, and will reply when I am back.',
  'Automatic reply: I’m on parental leave until March. For anything urgent, write to my colleague.',
  'Je suis absent du bureau jusqu’au 12 janvier.',
  'Delivery has failed to these recipients or groups: the mailbox is full.',
  'Hi, Jane is no longer with the company. Please reach out to Tom instead.',
  'Please remove me from your list.',
  'Bitte nicht mehr kontaktieren.',
];

export async function runTriage(root: string, rounds = 5): Promise<TriageBench> {
  const rules = await loadDist<typeof Rules>(root, 'core/triage/rules.js');
  const words = await loadDist<typeof Words>(root, 'network/sim/words.js');
  const pool = [...words.REPLIES.positive, ...words.REPLIES.question, ...words.REPLIES.negative, ...AUTOMATIC];
  // Each reply its own string, some long: a thread's reply may quote what it answers.
  const replies = Array.from({ length: TRIAGE_REPLIES }, (_, i) => {
    const base = pool[i % pool.length] ?? '';
    return i % 7 === 0 ? `${base} (${i})\n\n> ${pool[(i + 3) % pool.length]} ${'Earlier message text. '.repeat(20)}` : `${base} (${i})`;
  });
  const times: number[] = [];
  let recognised = 0;
  for (let r = 0; r < rounds; r++) {
    let n = 0;
    const t0 = performance.now();
    for (const text of replies) if (rules.triageByRules(text)) n++;
    times.push(performance.now() - t0);
    recognised = n;
  }
  return { replies: TRIAGE_REPLIES, rounds, medianMs: median(times), recognised };
}
