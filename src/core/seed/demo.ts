import type { Ctx } from '../context.js';
import { createApiKey } from '../auth/keys.js';
import { anyApiKey } from '../auth/store.js';
import { getWorkspace } from '../workspace/get.js';
import { WorkspaceContent } from './file.js';
import { loadWorkspace } from './load.js';
import { transaction } from '../../db/tx.js';
import { CREATED_STATUS } from '../campaigns/state-machine.js';

/**
 * The demo workspace `npm start` creates on an empty database: a paid plan with credits, one
 * connected simulated account with Sales Navigator, one agent and one READY_TO_SEND campaign.
 */
export const DEMO_WORKSPACE = {
  workspace: { name: 'Demo workspace', plan: 'paid', planId: 'growth' },
  credits: { credits: 100, topUpCredits: 0, lookalikeCredits: 500, lookalikeTopUpCredits: 0 },
  apiKeys: [],
  // The demo sends at any hour, so a new user sees the engine work within seconds whenever they try it.
  accounts: [
    { id: 'acc_demo', name: 'Demo Sender', status: 'connected', hasSalesNavigator: true, connectionRequestLimit: 25, messageLimit: 50, workingHours: 'always' },
  ],
  agents: [
    {
      id: 'tpl_demo',
      name: 'Friendly intro',
      accountId: 'acc_demo',
      connectionNote: 'Hi {{firstName}}, I work on outreach tooling and would love to connect.',
      messages: [
        { text: 'Thanks for connecting, {{firstName}}! Would a short call next week be useful?', delayHours: 1 },
        { text: 'Just following up, {{firstName}}: happy to share a two-minute demo if that helps.', delayHours: 48 },
      ],
    },
  ],
  // Marker slugs (docs/simulated-network.md) make the simulated people behave in varied ways,
  // so a started demo shows acceptances, each kind of reply, the agent's answers and a hand-off.
  campaigns: [
    {
      id: 'cmp_demo',
      name: 'Demo: founders in London',
      status: CREATED_STATUS.plain,
      assignedTemplateId: 'tpl_demo',
      leads: [
        {
          networkUrl: 'https://www.linkedin.com/in/ada-lovelace-sim-fast-accept-sim-replies-question',
          firstName: 'Ada',
          lastName: 'Lovelace',
          jobTitle: 'CTO',
          companyName: 'Analytical Engines',
          location: 'London',
        },
        {
          networkUrl: 'https://www.linkedin.com/in/grace-hopper-sim-fast-accept-sim-replies-positive',
          firstName: 'Grace',
          lastName: 'Hopper',
          jobTitle: 'VP Engineering',
          companyName: 'Compilers Inc',
          location: 'London',
        },
        {
          networkUrl: 'https://www.linkedin.com/in/alan-turing-sim-replies-negative',
          firstName: 'Alan',
          lastName: 'Turing',
          jobTitle: 'Founder',
          companyName: 'Enigma Labs',
          location: 'Manchester',
        },
        {
          networkUrl: 'https://www.linkedin.com/in/katherine-johnson-sim-out-of-office',
          firstName: 'Katherine',
          lastName: 'Johnson',
          jobTitle: 'Head of Data',
          companyName: 'Orbital',
          location: 'London',
        },
        {
          networkUrl: 'https://www.linkedin.com/in/tim-berners-lee',
          firstName: 'Tim',
          lastName: 'Berners-Lee',
          jobTitle: 'CEO',
          companyName: 'Hypertext Ltd',
          location: 'London',
        },
        {
          networkUrl: 'https://www.linkedin.com/in/edsger-dijkstra-sim-never-accepts',
          firstName: 'Edsger',
          lastName: 'Dijkstra',
          jobTitle: 'Chief Scientist',
          companyName: 'Shortest Path BV',
          location: 'London',
        },
      ],
    },
  ],
};

/**
 * On a database that holds no API key: creates the demo workspace (when none exists) and
 * mints a development key. Returns the key, to be shown once; null when keys already exist.
 */
export function ensureDemo(ctx: Ctx): string | null {
  return transaction(ctx.db, () => {
    if (anyApiKey(ctx)) return null;
    if (!getWorkspace(ctx)) loadWorkspace(ctx, WorkspaceContent.parse(DEMO_WORKSPACE), { reset: false });
    return createApiKey(ctx, 'test', 'demo').key;
  });
}
