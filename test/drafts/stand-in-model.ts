import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the stand-in answers to the next chat completion. */
export type Behaviour = { kind: 'reply'; text: string } | { kind: 'status'; status: number } | { kind: 'hang'; ms: number };

export interface SeenRequest {
  path: string;
  authorization: string | undefined;
  body: { model: string; messages: { role: string; content: string }[] } & Record<string, unknown>;
}

/**
 * A real HTTP server on an ephemeral loopback port that speaks the OpenAI chat-completions API,
 * standing in for a model: nothing leaves the machine and no key is needed. Each request gets
 * the behaviour set for it (a reply, an error status, or no answer for a while) and is recorded.
 */
export class StandInModel {
  readonly seen: SeenRequest[] = [];
  behaviour: Behaviour | ((req: SeenRequest) => Behaviour) = { kind: 'reply', text: 'Hello' };
  private server: Server | null = null;
  private hanging = new Set<() => void>();
  url = '';

  async start(): Promise<this> {
    this.server = createServer(async (req, res) => {
      const seen: SeenRequest = { path: req.url ?? '', authorization: req.headers.authorization, body: JSON.parse(await read(req)) };
      this.seen.push(seen);
      const b = typeof this.behaviour === 'function' ? this.behaviour(seen) : this.behaviour;
      if (b.kind === 'status') {
        res.writeHead(b.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'stand-in failure', type: 'server_error' } }));
        return;
      }
      if (b.kind === 'hang') {
        await new Promise<void>((resolve) => {
          const done = () => {
            this.hanging.delete(done);
            resolve();
          };
          this.hanging.add(done);
          setTimeout(done, b.ms);
        });
        if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(completion(seen.body.model, 'Too late'));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(completion(seen.body.model, b.text));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async close(): Promise<void> {
    for (const done of [...this.hanging]) done();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

const completion = (model: string, text: string): string =>
  JSON.stringify({
    id: 'chatcmpl-standin',
    object: 'chat.completion',
    created: 1_800_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  });
