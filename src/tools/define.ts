import { z } from 'zod';
import type { Ctx } from '../core/context.js';
import type { ErrorCode } from '../core/errors.js';
import type { Workspace } from '../core/workspace/get.js';

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

/** Who is calling, as the pipeline resolved it. */
export interface Caller {
  keyId: string;
  workspace: Workspace;
  requestId: string;
}

/** A non-200 success (e.g. 202 for an ambiguous Lookalike enqueue). */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

export interface ToolSpec<I extends z.ZodObject, O extends z.ZodType> {
  name: string;
  title: string;
  /** One or two sentences for a model: when to use it, what it costs. */
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  /** The REST route under /public/v1; `:name` segments are path parameters of `input`. */
  http: { method: HttpMethod; path: string };
  /** Accepts `Idempotency-Key` (REST) / `idempotencyKey` (MCP). */
  idempotent?: boolean;
  /**
   * Error codes this route can give beyond those of every route (unauthorized, plan_required,
   * validation_error, rate_limited, upstream_unavailable; not_found when it has path
   * parameters). The OpenAPI document lists them per operation.
   */
  errors?: readonly ErrorCode[];
  handler(ctx: Ctx, input: z.output<I>, caller: Caller): z.input<O> | Reply | Promise<z.input<O> | Reply>;
}

export interface Tool<I extends z.ZodObject = z.ZodObject, O extends z.ZodType = z.ZodType> extends ToolSpec<I, O> {
  idempotent: boolean;
  /** Names of the path parameters, in route order. */
  pathParams: string[];
}

export function defineTool<I extends z.ZodObject, O extends z.ZodType>(spec: ToolSpec<I, O>): Tool<I, O> {
  const pathParams = [...spec.http.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string);
  return { ...spec, idempotent: spec.idempotent ?? false, pathParams };
}

/** `idempotencyKey` as tools take it; REST takes the same value from the Idempotency-Key header. */
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(128)
  .describe('Optional. Retrying with the same key and arguments within 24 h replays the first result instead of repeating the write.');
