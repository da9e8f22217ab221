import { z } from 'zod';
import { DRAFT_LIMITS } from '../../core/drafts/rules.js';
import { CampaignId } from '../params.js';
import { definePrompt } from './define.js';

const Args = z.strictObject({ campaignId: CampaignId.describe('The campaign whose pending drafts to rewrite (from list_campaigns).') });

/**
 * `personalize_drafts`: how the user's own assistant writes each draft for its lead. It reads
 * the pending drafts and their leads, researches where that helps, saves new words with
 * update_drafts, and leaves approval to the user: approving sends.
 */
export const personalizeDraftsPrompt = definePrompt({
  name: 'personalize_drafts',
  title: 'Personalize drafts',
  description: "Rewrite a campaign's pending drafts for each lead, save them, and ask the user to approve.",
  args: Args,
  // lookup_profile is optional research: without it the plan still works.
  uses: ['list_drafts', 'update_drafts'],
  toolset: 'drafts',
  // A campaign with nothing pending has nothing to personalize.
  names: { campaignId: 'campaign_with_pending_drafts' },
  text: (_ctx, { campaignId }) => {
    const { invite, message, inmail } = DRAFT_LIMITS;
    return [
      `Personalize the pending drafts of campaign ${campaignId}, then ask me to approve them.`,
      '',
      `1. Call list_drafts with campaignId "${campaignId}" and status "pending", following nextCursor until it is null. Each draft comes with its lead: name, job title, company, headline, location, personalization and profile URL.`,
      "2. Where a lead's details are too thin to write from, call lookup_profile with the lead's networkUrl and the draft's accountId (or an account from list_accounts). Each lookup spends a daily quota: only where it helps.",
      `3. Rewrite each draft's text for its lead. Keep the sender's offer, meaning and language; use only facts you found; leave no placeholder or "{{". Lengths: an invitation note at most ${invite.text} characters, a message or InMail at most ${message.text}, an InMail subject at most ${inmail.subject}.`,
      '4. Save the new texts with update_drafts (up to 100 drafts a call), giving id and text only, no status. Fix and save again any item that comes back validation_error.',
      '5. Show me each lead with its new text and ask which to approve. Only after my answer, call update_drafts with status "approved" for those I approve and "rejected" for those I reject: approved drafts are sent, and the server may ask me to confirm that first. Never approve without asking me.',
    ].join('\n');
  },
});
