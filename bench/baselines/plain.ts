/**
 * Bare baselines for the HTTP cases: `node plain.js express|http PORT ROUTES.json`. Each route
 * answers with the status and JSON body the real server gives for that case, serialised per
 * request as the server does; POST routes parse their JSON body first.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import express from 'express';

export interface BaselineRoute {
  method: 'GET' | 'POST';
  path: string;
  status: number;
  body: unknown;
}

const [mode, portArg, routesPath] = process.argv.slice(2);
if ((mode !== 'express' && mode !== 'http') || !portArg || !routesPath) {
  process.stderr.write('usage: plain.js express|http PORT ROUTES.json\n');
  process.exit(2);
}
const port = Number(portArg);
const routes = [
  ...(JSON.parse(readFileSync(routesPath, 'utf8')) as BaselineRoute[]),
  { method: 'GET', path: '/health', status: 200, body: { status: 'ok' } } as BaselineRoute,
];

if (mode === 'express') {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  for (const route of routes) {
    const reply = (_req: express.Request, res: express.Response) => {
      res.status(route.status).json(route.body);
    };
    if (route.method === 'GET') app.get(route.path, reply);
    else app.post(route.path, express.json({ limit: '128kb' }), reply);
  }
  app.listen(port, '127.0.0.1');
} else {
  const byKey = new Map(routes.map((r) => [`${r.method} ${r.path}`, r]));
  const readBody = (req: IncomingMessage): Promise<string> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });
  createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const route = byKey.get(`${req.method} ${path}`);
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    void readBody(req).then((text) => {
      if (route.method === 'POST') JSON.parse(text);
      res.writeHead(route.status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(route.body));
    });
  }).listen(port, '127.0.0.1');
}
