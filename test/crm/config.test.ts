import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfigFile, UsageError } from '../../src/config.js';
import { crmSyncOf, DEFAULT_POLL_SECONDS, missingCrmToken } from '../../src/core/crm/config.js';

const dir = mkdtempSync(join(tmpdir(), 'crm-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const read = (json: unknown) => {
  const path = join(dir, `c${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(json));
  return readConfigFile(path);
};

describe('the crm section of the config', () => {
  it('takes the HubSpot connection, with the token by variable name, and defaults what it leaves out', () => {
    const config = read({
      crm: { hubspot: { tokenEnv: 'HUBSPOT_TOKEN', pipelineId: 'default', stageId: 'qualifiedtobuy', ownerMap: { acc_a: '101' }, pollSeconds: 60 } },
    });
    expect(crmSyncOf(config.crm)).toEqual({ crm: 'hubspot', pipelineId: 'default', stageId: 'qualifiedtobuy', ownerMap: { acc_a: '101' }, pollMs: 60_000 });
    expect(crmSyncOf(read({ crm: { hubspot: { tokenEnv: 'T' } } }).crm)).toEqual({
      crm: 'hubspot',
      pipelineId: null,
      stageId: null,
      ownerMap: {},
      pollMs: DEFAULT_POLL_SECONDS * 1000,
    });
    // Without the section, nothing CRM-related runs.
    expect(crmSyncOf(read({}).crm)).toBeUndefined();
  });

  it('refuses a token in place of a variable name, an unknown key and a bad owner id, naming the path', () => {
    expect(() => read({ crm: { hubspot: { tokenEnv: 'pat-na1-1234-abcd' } } })).toThrow(UsageError);
    expect(() => read({ crm: { hubspot: { tokenEnv: 'pat-na1-1234-abcd' } } })).toThrow(/crm\.hubspot\.tokenEnv/);
    expect(() => read({ crm: { hubspot: { tokenEnv: 'T', token: 'secret' } } })).toThrow(/token/);
    expect(() => read({ crm: { salesforce: {} } })).toThrow(/salesforce/);
    expect(() => read({ crm: { hubspot: { tokenEnv: 'T', ownerMap: { acc_a: 'alice' } } } })).toThrow(/crm\.hubspot\.ownerMap\.acc_a/);
    expect(() => read({ crm: { hubspot: { tokenEnv: 'T', pollSeconds: 0 } } })).toThrow(/pollSeconds/);
  });

  it('names the token variable when it is not set, never its value', () => {
    const crm = read({ crm: { hubspot: { tokenEnv: 'HUBSPOT_TOKEN' } } }).crm;
    expect(missingCrmToken(crm, {})).toBe('HUBSPOT_TOKEN');
    expect(missingCrmToken(crm, { HUBSPOT_TOKEN: '' })).toBe('HUBSPOT_TOKEN');
    expect(missingCrmToken(crm, { HUBSPOT_TOKEN: 'pat-na1-secret' })).toBeNull();
    expect(missingCrmToken(undefined, {})).toBeNull();
  });
});
