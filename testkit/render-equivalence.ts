import { diffJson, formatDifference, ModeltapeError } from '../core/internal.js';
import { DEFAULT_MAX_TOKENS, renderModelRequest, type Agent, type Json, type ModelApi, type Tool, type Turn } from '../runtime/internal.js';
import { runScenario, type Crash, type Scenario, type ScenarioResult } from './run-scenario.js';

/**
 * The model request an agent makes for a step input: the goal (a first step), or the conversation
 * so far as turns. The same body the runtime sends, before serializing.
 */
export function rendered(agent: Agent, input: Json | readonly Turn[], options: { tools?: readonly Tool[]; api?: ModelApi } = {}): Record<string, unknown> {
  const turns: Turn[] =
    Array.isArray(input) && input.every((turn) => typeof turn === 'object' && turn !== null && 'role' in turn)
      ? [...(input as Turn[])]
      : [{ role: 'user', content: typeof input === 'string' ? input : JSON.stringify(input) }];
  const byName = new Map((options.tools ?? []).map((tool) => [tool.name, tool]));
  const tools = (agent.tools ?? []).map((name) => {
    const tool = byName.get(name);
    if (tool === undefined)
      throw new ModeltapeError('unknown_tool', `Agent "${agent.name}" is granted tool "${name}": pass it in options.tools to render its request.`);
    return tool;
  });
  const api = options.api ?? (agent.provider.startsWith('anthropic') ? 'anthropic-messages' : 'openai-chat');
  return renderModelRequest(api, {
    model: agent.model,
    system: agent.system,
    turns,
    tools,
    output: agent.output,
    maxTokens: agent.maxTokens ?? DEFAULT_MAX_TOKENS,
  });
}

export class RenderMismatchError extends ModeltapeError {
  constructor(message: string) {
    super('render_mismatch', message);
  }
}

export interface RenderComparison {
  first: ScenarioResult;
  second: ScenarioResult;
  /** How many requests were compared. */
  compared: number;
}

/**
 * Runs a scenario twice with the same crashes (`fresh` builds a new scenario each time: its own
 * model and tools, as two separate test runs would) and fails unless every decision rendered a
 * byte-identical request both times, those made again after a pause or a crash included. A render
 * that reads a clock, randomness or anything outside the conversation shows here.
 */
export async function sameRenders(fresh: () => Scenario, ...crashes: Crash[]): Promise<RenderComparison> {
  const first = await runScenario(fresh(), ...crashes);
  const second = await runScenario(fresh(), ...crashes);
  const count = Math.max(first.renders.length, second.renders.length);
  if (count === 0) throw new RenderMismatchError('sameRenders compared no request: the scenario made no model call.');
  for (let index = 0; index < count; index++) {
    const before = first.renders[index];
    const after = second.renders[index];
    const render = after ?? before!;
    // Every runtime after the first started after a crash or a pause.
    const afterCrash = render.runtime !== 'runtime-1';
    const where = `decision at step ${render.step} (request #${index + 1}, by ${render.runtime}${afterCrash ? ', after a crash or pause' : ''})`;
    if (before === undefined || after === undefined) {
      throw new RenderMismatchError(
        `The ${where} was made in ${before === undefined ? 'the second' : 'the first'} run only: the runs made ${first.renders.length} and ${second.renders.length} model requests.`,
      );
    }
    if (before.body === after.body && before.step === after.step) continue;
    const differences = diffJson(parse(before.body), parse(after.body), { stopAfter: 1 });
    const difference = differences[0];
    const message =
      difference === undefined
        ? 'the bytes differ (the same JSON, serialized differently)'
        : `first difference ${formatDifference(difference).replace('recorded', 'first run').replace(' sent ', ' second run ')}`;
    const messageIndex = difference?.path.match(/^\.messages\[(\d+)\]/)?.[1];
    throw new RenderMismatchError(
      `The ${where} rendered another request in a second run of the same scenario: ${message}${messageIndex !== undefined ? ` (message ${messageIndex} is the first that differs)` : ''}.\nA render must be a function of the conversation: no clock, randomness or state outside the journal.`,
    );
  }
  return { first, second, compared: count };
}

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}
