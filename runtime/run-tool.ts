import { ModeltapeError } from '../core/internal.js';
import type { Json } from './journal-store.js';
import type { Tool, ToolContext } from './tool-box.js';

/**
 * One attempt of a tool call: fails with a `ToolTimeoutError` after the tool's `timeoutMs`, and
 * closes the attempt's context once it is over, however it ended.
 */
export async function runTool(tool: Tool, args: Json, context: ToolContext): Promise<Json> {
  const timeoutMs = tool.timeoutMs ?? 30_000;
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new ModeltapeError('tool_timeout', `Tool ${tool.name} did not finish within ${timeoutMs} ms (its timeoutMs).`);
      error.name = 'ToolTimeoutError';
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    // An attempt that timed out (or ended otherwise) may still be running: it can no longer journal anything.
    const closed = (): Promise<never> =>
      Promise.reject(
        new ModeltapeError(
          'tool_call_closed',
          `The call ${context.operationId} is over (it returned, failed or timed out): its context cannot journal anything more. Await every context call before returning, and honour context.signal.`,
        ),
      );
    const attemptContext: ToolContext = {
      ...context,
      signal: controller.signal,
      now: () => (controller.signal.aborted ? closed() : context.now()),
      newId: () => (controller.signal.aborted ? closed() : context.newId()),
    };
    const result = await Promise.race([Promise.resolve().then(() => tool.run(args, attemptContext)), timedOut]);
    return (result === undefined ? null : result) as Json;
  } finally {
    clearTimeout(timer);
    // The attempt is over, however it ended: its context is closed to late calls.
    if (!controller.signal.aborted) controller.abort(new ModeltapeError('tool_call_closed', `Tool ${tool.name}'s attempt is over.`));
  }
}
