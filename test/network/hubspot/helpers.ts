import { CrmError, type CrmContactInput } from '../../../src/core/network/crm.js';
import { HubSpotCrm } from '../../../src/network/crm/index.js';
import { HubSpotStandIn } from './stand-in.js';

export const TOKEN_ENV = 'HUBSPOT_TEST_TOKEN';

export interface Rig {
  hs: HubSpotStandIn;
  crm: HubSpotCrm;
  env: NodeJS.ProcessEnv;
}

/** A started stand-in and an adapter pointed at it, with the token in a private environment. */
export async function rig(options: { timeoutMs?: number } = {}): Promise<Rig> {
  const hs = new HubSpotStandIn();
  await hs.start();
  const env: NodeJS.ProcessEnv = { [TOKEN_ENV]: hs.token };
  const crm = new HubSpotCrm({ tokenEnv: TOKEN_ENV, env, basePath: hs.url, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) });
  return { hs, crm, env };
}

export const lead = (over: Partial<CrmContactInput> = {}): CrmContactInput => ({
  email: 'ada@example.com',
  networkUrl: 'https://www.linkedin.com/in/ada-lovelace',
  firstName: 'Ada',
  lastName: 'Lovelace',
  company: 'Analytical Engines',
  title: 'Founder',
  ...over,
});

/** The CrmError a call rejects with (fails the test when it resolves or throws something else). */
export async function crmError(promise: Promise<unknown>): Promise<CrmError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CrmError) return error;
    throw new Error(`expected a CrmError, got ${String(error)}`);
  }
  throw new Error('expected a CrmError, the call succeeded');
}
