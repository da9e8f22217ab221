import { z } from 'zod';
import { PATH_ID } from '../core/ids.js';

/** A path id: [A-Za-z0-9_-]{1,64}; anything else is a 400 naming the segment. */
const article = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a');
export const pathId = (what: string) => z.string().regex(PATH_ID, `must be ${article(what)} ${what} id: 1-64 characters of A-Z, a-z, 0-9, _ or -`);

export const CampaignId = pathId('campaign').describe('Campaign id, from list_campaigns.');

export const LeadId = pathId('lead').describe('Lead id (lead_…), from list_leads.');

export const AgentId = pathId('agent').describe('Agent id (tpl_…), from list_agents.');

export const AccountId = pathId('account').describe('Account id, from list_accounts.');

export const MailboxId = pathId('mailbox').describe('Mailbox id (mbx_…), from list_mailboxes.');
