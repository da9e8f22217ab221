import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type ClientCapabilities,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { Ctx } from '../core/context.js';
import type { ProgressReporter } from '../core/progress.js';
import {
  cancelTask,
  completeTask,
  createTask,
  failTask,
  findTask,
  followTask,
  heartbeat,
  isOrphaned,
  noteProgress,
  TASK_HEARTBEAT_MS,
  type TaskRow,
} from '../core/tasks/tasks.js';
import type { Tool } from '../tools/define.js';
import { toolByName } from '../tools/index.js';
import { startTool, type Authenticated, type Call, type Entrant } from '../tools/pipeline.js';
import { toToolResult } from './results.js';

/**
 * The Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28): a client that declares it
 * may get a task handle from tools/call instead of the result, and polls tasks/get until the
 * task ends. The server decides: tools whose definition has `task` answer with a task for
 * such a client; every other call, and every client without the extension, gets its result.
 */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** A task handle lives a day: long enough for a Lookalike build, polled or not. */
const TASK_TTL_MS = 24 * 60 * 60 * 1000;
const POLL_MS = 2_000;
/** A build that is followed moves in provider pages; polling it faster shows nothing new. */
const FOLLOW_POLL_MS = 10_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** The task as the extension's Task shape (the fields CreateTaskResult and DetailedTask share). */
function taskFields(row: TaskRow, tool: Tool | undefined) {
  return {
    taskId: row.id,
    status: row.status,
    ...(row.statusMessage ? { statusMessage: row.statusMessage } : {}),
    createdAt: iso(row.createdAt),
    lastUpdatedAt: iso(row.updatedAt),
    ttlMs: row.expiresAt - row.createdAt,
    pollIntervalMs: tool?.task?.follow ? FOLLOW_POLL_MS : POLL_MS,
  };
}

/** A progress report as a task's status message: "Searching LinkedIn (0 of 1)". */
export const progressMessage = (done: number, total: number, message: string | undefined): string => `${message ?? 'Working'} (${done} of ${total})`;

const INTERRUPTED =
  'The server stopped while this call ran, so its outcome is unknown. Check the state it would have changed (for example get_campaign or list_leads) before calling again.';

/**
 * Runs and follows tasks for one server process. The calls run here, in the background; their
 * state lives in SQLite (src/core/tasks), so any connection of the same key can poll them.
 */
export class TaskRunner {
  private readonly running = new Set<string>();

  constructor(private readonly ctx: Ctx) {}

  /** Whether a client takes tasks: it declares the extension (on this request, 2026-07-28). */
  wanted(caps: ClientCapabilities | undefined): boolean {
    return caps?.extensions?.[TASKS_EXTENSION] !== undefined;
  }

  /**
   * Starts a call as a task and answers at once with its handle (CreateTaskResult). The row is
   * written before the answer, so an immediate tasks/get finds it.
   */
  start(tool: Tool, entrant: Entrant, call: Call & { confirmation?: 'accepted' | 'declined' | undefined }): CallToolResult {
    const { ctx } = this;
    // The call's progress becomes the task's status message, which tasks/get reports: the call
    // has answered with the handle, so no notification has an exchange left to ride on.
    // A report made before the task's row exists (the handler's first steps run at once) is
    // kept and written with the row.
    let taskId: string | undefined;
    let early: string | undefined;
    const progress: ProgressReporter = (done, total, message) => {
      const text = progressMessage(done, total, message);
      if (taskId === undefined) early = text;
      else noteProgress(ctx, taskId, text);
    };
    const started = startTool(ctx, tool, entrant, { ...call, progress });
    // A caller refused at the door gets the refusal, not a task.
    if (!started.ok) return toToolResult(started);
    const row = createTask(ctx, started.caller.keyId, tool.name, TASK_TTL_MS);
    taskId = row.id;
    if (early !== undefined) noteProgress(ctx, row.id, early);
    this.running.add(row.id);
    const beat = setInterval(() => heartbeat(ctx, row.id), TASK_HEARTBEAT_MS);
    beat.unref();
    void started.outcome
      .then((outcome) => {
        if (outcome.ok && tool.task?.follow) followTask(ctx, row.id, outcome.json, 'The call was accepted; following the work it started.');
        else completeTask(ctx, row.id, JSON.stringify(toToolResult(outcome)), !outcome.ok);
      })
      .catch((err: unknown) => {
        ctx.log.error({ err, tool: tool.name, taskId: row.id }, 'task failed');
        failTask(ctx, row.id, ProtocolErrorCode.InternalError, 'The server failed while running this call.');
      })
      .finally(() => {
        clearInterval(beat);
        this.running.delete(row.id);
      });
    // The extension's CreateTaskResult stands where the tool result would: a task handle, no content.
    return { resultType: 'task', ...taskFields(row, tool) } as unknown as CallToolResult;
  }

  /** The task as it stands now (DetailedTask): followed work and cut-off calls are brought up to date first. */
  get(keyId: string, taskId: string) {
    const { ctx } = this;
    let row = this.find(keyId, taskId);
    const tool = toolByName.get(row.tool);
    if (row.status === 'working' && row.following !== null && tool?.task?.follow) {
      const work = tool.task.follow(ctx, JSON.parse(row.following) as unknown);
      if (work.done) {
        const json = JSON.stringify(work.body);
        completeTask(ctx, row.id, JSON.stringify(toToolResult({ ok: true, status: 200, body: work.body, json, headers: {} })), false);
      } else if (work.message !== row.statusMessage) {
        noteProgress(ctx, row.id, work.message);
      }
      row = this.find(keyId, taskId);
    } else if (isOrphaned(ctx, row) && !this.running.has(row.id)) {
      failTask(ctx, row.id, ProtocolErrorCode.InternalError, INTERRUPTED);
      row = this.find(keyId, taskId);
    }
    return {
      ...taskFields(row, tool),
      ...(row.result !== null ? { result: JSON.parse(row.result) as unknown } : {}),
      ...(row.error !== null ? { error: JSON.parse(row.error) as unknown } : {}),
    };
  }

  /**
   * Cancels a working task. A call already running is not interrupted: what it had sent to the
   * network may still happen, so the status message says where to look.
   */
  cancel(keyId: string, taskId: string): Record<string, never> {
    const row = this.find(keyId, taskId);
    const followed = row.following !== null;
    cancelTask(
      this.ctx,
      keyId,
      taskId,
      followed
        ? 'Cancelled: this task no longer follows the work; the work itself goes on (pause the campaign to stop it).'
        : 'Cancelled: the result will not be reported; a call already under way may still complete its work.',
    );
    return {};
  }

  /** Delivers input to a task; these tasks never wait for input, so there is nothing to deliver. */
  update(keyId: string, taskId: string): Record<string, never> {
    this.find(keyId, taskId);
    return {};
  }

  private find(keyId: string, taskId: string): TaskRow {
    const row = findTask(this.ctx, keyId, taskId);
    if (!row) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task ${taskId}: it does not exist for this key, or it expired.`, { taskId });
    return row;
  }
}

const TaskParams = z.object({ taskId: z.string() });
const UpdateParams = z.object({ taskId: z.string(), inputResponses: z.record(z.string(), z.unknown()).optional() });

/**
 * tasks/get, tasks/cancel and tasks/update for a 2026-07-28 server instance. A client that did
 * not declare the extension on the request is refused with -32021, naming the extension.
 */
export function registerTaskMethods(
  server: Server,
  authenticate: (rc: ServerContext) => Authenticated,
  runner: TaskRunner,
  capabilitiesOf: (rc: ServerContext) => ClientCapabilities | undefined,
): void {
  const keyOf = (rc: ServerContext): string => {
    if (!runner.wanted(capabilitiesOf(rc))) {
      throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    }
    const auth = authenticate(rc);
    if (!auth.ok) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, auth.error.message, auth.error.toBody());
    return auth.caller.keyId;
  };
  server.setRequestHandler('tasks/get', { params: TaskParams }, (params, rc) => runner.get(keyOf(rc), params.taskId));
  server.setRequestHandler('tasks/cancel', { params: TaskParams }, (params, rc) => runner.cancel(keyOf(rc), params.taskId));
  server.setRequestHandler('tasks/update', { params: UpdateParams }, (params, rc) => runner.update(keyOf(rc), params.taskId));
}
