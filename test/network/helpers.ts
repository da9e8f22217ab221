import { FakeClock } from '../../src/core/clock.js';
import { ApiError } from '../../src/core/errors.js';
import type { AccountRef } from '../../src/core/network/provider.js';
import { InMemorySimInboxStore, SimulatedNetwork } from '../../src/network/sim/index.js';

export const account: AccountRef = { id: 'acc_demo', hasSalesNavigator: true };
export const classicOnly: AccountRef = { id: 'acc_classic', hasSalesNavigator: false };
export const url = (slug: string): string => `https://www.linkedin.com/in/${slug}`;

export function makeNetwork(start = '2026-11-21T12:00:00Z') {
  const clock = new FakeClock(Date.parse(start));
  const inbox = new InMemorySimInboxStore();
  return { clock, inbox, net: new SimulatedNetwork({ clock, inbox }) };
}

/** The ApiError a promise rejects with; fails the test if it resolves or throws anything else. */
export async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw new Error(`expected an ApiError, got ${String(err)}`);
  }
  throw new Error('expected a rejection');
}
