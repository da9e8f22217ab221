import { describe, expect, it } from 'vitest';
import { WorkspaceFile } from '../../src/core/seed/file.js';
import { loadWorkspace, SeedError } from '../../src/core/seed/load.js';
import { listEndpoints, signingSecret } from '../../src/core/webhooks/endpoints.js';
import { describeIssue } from '../../src/core/validation.js';
import { testCtx } from '../helpers.js';
import { webhookWorkspace } from './helpers.js';

const problems = (input: unknown) => {
  const parsed = WorkspaceFile.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((i) => describeIssue(i));
};

describe('webhooks in the workspace file', () => {
  it('loads the one signing secret and the endpoints with their events', () => {
    const ctx = testCtx({ workspace: webhookWorkspace([{ url: 'https://hooks.example.com/a', events: ['lead.replied', 'lead.tagged', 'lead.replied'] }]) });
    expect(signingSecret(ctx)).toBe('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(listEndpoints(ctx)).toEqual([
      expect.objectContaining({ url: 'https://hooks.example.com/a', events: ['lead.replied', 'lead.tagged'], status: 'active' }),
    ]);
  });

  it('refuses bad URLs, event names and secrets, naming the path', () => {
    expect(problems(webhookWorkspace([{ url: 'https://u:p@hooks.example.com/' }]))).toEqual([
      'webhooks.endpoints[0].url: credentials in the url are not allowed; use the signing secret',
    ]);
    expect(problems(webhookWorkspace([{ url: 'ftp://hooks.example.com/' }]))).toEqual([
      'webhooks.endpoints[0].url: unsupported url scheme (ftp); use http or https',
    ]);
    expect(problems(webhookWorkspace([{ url: 'https://hooks.example.com/', events: ['lead.updated' as never] }]))[0]).toMatch(
      /^webhooks\.endpoints\[0\]\.events\[0\]: must be one of lead\.tagged/,
    );
    expect(problems(webhookWorkspace([{ url: 'https://hooks.example.com/', events: [] }]))[0]).toMatch(
      /^webhooks\.endpoints\[0\]\.events: name at least one event/,
    );
    expect(problems(webhookWorkspace([], { secret: 'whsec_not base64!' }))).toEqual([
      'webhooks.secret: a secret starting with whsec_ must continue with standard base64',
    ]);
    expect(problems(webhookWorkspace([], { secret: ' padded ' }))[0]).toMatch(/^webhooks\.secret: the signing secret must be printable ASCII/);
  });

  it('refuses the same URL twice', () => {
    const ctx = testCtx({ workspace: null });
    const file = WorkspaceFile.parse(
      webhookWorkspace([{ url: 'https://hooks.example.com/a' }, { url: 'https://hooks.example.com/a', events: ['lead.replied'] }]),
    );
    expect(() => loadWorkspace(ctx, file, { reset: false })).toThrow(SeedError);
    expect(() => loadWorkspace(ctx, file, { reset: false })).toThrow(/^webhooks\.endpoints\[1\]\.url: endpoint whe_\w+ already has this URL$/);
    expect(listEndpoints(ctx)).toEqual([]);
  });
});
