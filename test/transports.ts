import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { ERROR_STATUS } from '../src/core/errors.js';
import { toolByName } from '../src/tools/index.js';
import { callTool, TEST_KEY, type TestServer } from './helpers.js';

/**
 * A 2026-07-28 request over HTTP as the revision's clients send it: the envelope in `_meta` and
 * the standard headers (SEP-2243). Answers the JSON-RPC reply.
 */
export async function modernRpc(url: string, method: string, params: Record<string, unknown>, meta: Record<string, unknown>): Promise<any> {
  const name = (params.name ?? params.uri ?? params.taskId) as string | undefined;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'x-api-key': TEST_KEY,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: meta } }),
  });
  return res.json();
}

/** The REST path of a GET tool call: path parameters substituted, the rest as the query string. */
export function restPath(name: string, args: Record<string, unknown>): string {
  const tool = toolByName.get(name);
  if (!tool) throw new Error(`no tool ${name}`);
  let path = tool.http.path;
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(args)) {
    if (tool.pathParams.includes(key)) path = path.replace(`:${key}`, encodeURIComponent(String(value)));
    else query.append(key, String(value));
  }
  const qs = query.toString();
  return qs ? `${path}?${qs}` : path;
}

/**
 * Runs one read over REST and over MCP and checks that both answer alike: the same body, a
 * success exactly when REST says 200, and the error's status from the code table.
 */
export async function readBoth(server: TestServer, client: Client, name: string, args: Record<string, unknown>): Promise<{ status: number; body: any }> {
  const rest = await server.rest(restPath(name, args));
  const mcp = await callTool(client, name, args);
  expect(mcp.body, `${name} over MCP and REST`).toEqual(rest.body);
  expect(mcp.isError).toBe(rest.status !== 200);
  if (rest.status !== 200) expect(rest.status).toBe(ERROR_STATUS[rest.body.error.code as keyof typeof ERROR_STATUS]);
  return rest;
}

/** Expects a 400 validation_error whose details.fields holds every one of `fields`. */
export function expectValidation(res: { status: number; body: any }, ...fields: string[]): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('validation_error');
  for (const field of fields) expect(res.body.error.details.fields).toContain(field);
}
