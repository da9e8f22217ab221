import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Cursor from '../../src/core/cursor.js';
import type * as LeadList from '../../src/core/leads/list.js';
import type * as Workspace from '../../src/core/workspace/get.js';
import type * as Connection from '../../src/db/connection.js';
import type * as Schema from '../../src/db/schema.js';
import type * as Log from '../../src/log.js';
import type * as Pipeline from '../../src/tools/pipeline.js';
import type * as Server from '../../src/server.js';
import type * as Tools from '../../src/tools/index.js';

/**
 * The project modules the bench calls in-process. The bench imports them from the main
 * build (dist/), the very files `outreach start` runs, instead of a second compiled copy:
 * the copy would find neither the migrations nor package.json, which src locates relative
 * to its own file. Tests pass the same modules imported from src.
 */
export interface App {
  cursor: typeof Cursor;
  leadList: typeof LeadList;
  workspace: typeof Workspace;
  connection: typeof Connection;
  schema: typeof Schema;
  log: typeof Log;
  pipeline: typeof Pipeline;
  server: typeof Server;
  tools: typeof Tools;
}

/** The repository root: the nearest directory above this file that holds package.json and bin/outreach.js. */
export function repoRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin', 'outreach.js'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no repository root above ${from}`);
    dir = up;
  }
}

/** Imports a compiled project module (`path` relative to dist/), as the bench runs the built code. */
export const loadDist = async <T>(root: string, path: string): Promise<T> => (await import(pathToFileURL(join(root, 'dist', path)).href)) as T;

export async function loadApp(root: string = repoRoot()): Promise<App> {
  const load = <T>(path: string): Promise<T> => loadDist<T>(root, path);
  return {
    cursor: await load<typeof Cursor>('core/cursor.js'),
    leadList: await load<typeof LeadList>('core/leads/list.js'),
    workspace: await load<typeof Workspace>('core/workspace/get.js'),
    connection: await load<typeof Connection>('db/connection.js'),
    schema: await load<typeof Schema>('db/schema.js'),
    log: await load<typeof Log>('log.js'),
    pipeline: await load<typeof Pipeline>('tools/pipeline.js'),
    server: await load<typeof Server>('server.js'),
    tools: await load<typeof Tools>('tools/index.js'),
  };
}
