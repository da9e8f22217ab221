import { describe, expect, it } from 'vitest';
import { CrmConfig } from '../../../src/core/crm/config.js';
import { crmConnection } from '../../../src/core/crm/read.js';
import { createCrm, HubSpotCrm } from '../../../src/network/crm/index.js';
import { canonicalProfileUrl, profileUrlVariants } from '../../../src/network/crm/hubspot/index.js';
import { HubSpotStandIn } from './stand-in.js';

describe('createCrm: the adapter the config names', () => {
  it('is null without a crm section, and the HubSpot adapter with one, reading the token from the named variable', async () => {
    expect(createCrm(undefined, {})).toBeNull();
    const hs = new HubSpotStandIn();
    await hs.start();
    try {
      // The config as the server parses it: the same object reaches the adapter.
      const config = CrmConfig.parse({ hubspot: { tokenEnv: 'MY_HS', basePath: hs.url } });
      const crm = createCrm(config, { MY_HS: hs.token });
      expect(crm).toBeInstanceOf(HubSpotCrm);
      expect(crm?.kind).toBe('hubspot');
      await crm?.verify();
      expect(hs.count('contacts.list')).toBe(1);
    } finally {
      await hs.stop();
    }
  });

  it('the connection the faces show names the variable and whether it is set, never the value', () => {
    expect(crmConnection(undefined, {})).toEqual({ crm: null, tokenEnv: null, tokenSet: false });
    expect(crmConnection({ hubspot: { tokenEnv: 'HS' } }, { HS: '  ' })).toEqual({ crm: 'hubspot', tokenEnv: 'HS', tokenSet: false });
    const shown = crmConnection({ hubspot: { tokenEnv: 'HS' } }, { HS: 'pat-secret' });
    expect(shown).toEqual({ crm: 'hubspot', tokenEnv: 'HS', tokenSet: true });
    expect(JSON.stringify(shown)).not.toContain('pat-secret');
  });
});

describe('LinkedIn URLs as HubSpot holds them', () => {
  it('canonicalises a profile URL and lists the spellings a person may have typed', () => {
    expect(canonicalProfileUrl('http://fr.linkedin.com/in/Ada-Lovelace/?trk=x')).toBe('https://www.linkedin.com/in/ada-lovelace');
    expect(profileUrlVariants('https://www.linkedin.com/in/ada')).toEqual([
      'https://www.linkedin.com/in/ada',
      'https://www.linkedin.com/in/ada/',
      'https://linkedin.com/in/ada',
      'https://linkedin.com/in/ada/',
      'http://www.linkedin.com/in/ada',
      'http://www.linkedin.com/in/ada/',
      'http://linkedin.com/in/ada',
      'http://linkedin.com/in/ada/',
    ]);
    expect(profileUrlVariants('https://example.com/people/ada/')).toEqual(['https://example.com/people/ada', 'https://example.com/people/ada/']);
  });
});
