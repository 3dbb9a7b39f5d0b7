import { describe, expect, test } from 'vitest';
import type { AskedTurn } from '../../providers/internal.js';
import { chunkMessage as codecChunk } from '../../test/support/event-stream-messages.js';
import type { Answer, ResolvedFinish } from '../answer.js';
import { contentBlocks as messagesBlocks, outputTokens, stopReason as messagesStopReason, streamBlocks } from '../anthropic-messages/messages-surface.js';
import { MessageThreads } from '../anthropic-messages/message-threads.js';
import { contentBlocks as converseBlocks, LATENCY_MS, stopReasonOf as converseStopReason } from '../bedrock-converse/converse-surface.js';
import { cutArguments, cutIntoChunks } from '../chunking.js';
import type { Chunking } from '../script.js';
import { answerText, argumentsJson, fakeModel, type RenderContext } from '../surface.js';
import { countTokens } from '../usage.js';
import { bedrockInvokeSurface } from './invoke-surface.js';

// InvokeModelWithResponseStream as the surface wrote it before its events were written as JSON
// text and its chunks straight into their messages: each model event an object, JSON.stringify,
// base64 of a Buffer, and the message by @smithy/core's codec (test/support/event-stream-messages.ts).

const CLAUDE = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const NOVA = 'us.amazon.nova-micro-v1:0';

function claudeModel(modelId: string): string {
  const name = modelId
    .split('/')
    .at(-1)!
    .replace(/^([a-z]+\.)?anthropic\./, '')
    .replace(/-v\d+(:\d+)?$/, '');
  return fakeModel(name);
}

function claudeUsage(inputTokens: number, outputTokens: number): Record<string, unknown> {
  return {
    input_tokens: inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    output_tokens: outputTokens,
  };
}

function invocationMetrics(inputTokens: number, outputTokens: number, nova: boolean): Record<string, number> {
  return {
    inputTokenCount: inputTokens,
    outputTokenCount: outputTokens,
    invocationLatency: LATENCY_MS,
    firstByteLatency: LATENCY_MS,
    ...(nova ? { cacheReadInputTokenCount: 0, cacheWriteInputTokenCount: 0 } : {}),
  };
}

function previousClaudeFrames(turn: AskedTurn, answer: Answer, context: RenderContext): Buffer[] {
  const blocks = messagesBlocks(turn, answer, context);
  const output = outputTokens(blocks, answer);
  const message = {
    id: context.newId('msg'),
    type: 'message',
    role: 'assistant',
    model: claudeModel(turn.model),
    content: blocks,
    stop_reason: messagesStopReason(blocks, context),
    stop_sequence: context.finish?.stopSequence ?? null,
    usage: claudeUsage(context.promptTokens, output),
  };
  const frames: Buffer[] = [];
  const emit = (type: string, fields: Record<string, unknown> = {}): void => void frames.push(codecChunk({ type, ...fields }, null));
  emit('message_start', { message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: claudeUsage(context.promptTokens, 1) } });
  streamBlocks(blocks, context, emit, { ping: false });
  emit('message_delta', { delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence }, usage: { output_tokens: output } });
  emit('message_stop', { 'amazon-bedrock-invocationMetrics': invocationMetrics(context.promptTokens, output, false) });
  return frames;
}

function previousNovaFrames(answer: Answer, context: RenderContext): Buffer[] {
  const blocks = converseBlocks(answer, context);
  const stopReason = converseStopReason(blocks, context);
  const input = context.promptTokens;
  const output = countTokens(answerText(answer));
  const cache = { cacheReadInputTokenCount: 0, cacheWriteInputTokenCount: 0 };
  const chunk = (event: Record<string, unknown>): Buffer => codecChunk(event, null);
  const frames: Buffer[] = [chunk({ messageStart: { role: 'assistant' } })];
  let contentBlockIndex = 0;
  for (const block of blocks) {
    if (typeof block.text === 'string') {
      for (const text of cutIntoChunks(block.text, context.chunking)) {
        frames.push(chunk({ contentBlockDelta: { delta: { text }, contentBlockIndex } }));
        frames.push(chunk({ contentBlockStop: { contentBlockIndex } }));
        contentBlockIndex++;
      }
      continue;
    }
    const use = block.toolUse as Record<string, unknown>;
    frames.push(chunk({ contentBlockStart: { start: { toolUse: { toolUseId: use.toolUseId, name: use.name } }, contentBlockIndex } }));
    for (const input of cutArguments(argumentsJson(use.input), context.chunking))
      frames.push(chunk({ contentBlockDelta: { delta: { toolUse: { input } }, contentBlockIndex } }));
    frames.push(chunk({ contentBlockStop: { contentBlockIndex } }));
    contentBlockIndex++;
  }
  frames.push(chunk({ messageStop: { stopReason } }));
  frames.push(
    chunk({
      metadata: { usage: { inputTokens: input, outputTokens: output, ...cache }, metrics: {}, trace: {} },
      'amazon-bedrock-invocationMetrics': invocationMetrics(input, output, true),
    }),
  );
  return frames;
}

/** A fresh context: the same ids, in the same order, for each rendering of one case. */
function contextFor(chunking: Chunking | undefined, finish: ResolvedFinish | undefined): RenderContext {
  let next = 0;
  return {
    newId: (kind) => `fake-${kind}-${next++}`,
    created: 1_765_000_000,
    requestId: 'fake-req-0',
    chunking,
    promptTokens: 9,
    headers: { 'x-modeltape-fake': '1' },
    threads: new MessageThreads(10),
    ...(finish === undefined ? {} : { finish }),
  };
}

const quoted = 'Hello "there" ✨ — café\\path\n日本語 👋 <tag> & \u2028';
const weather: Answer = {
  kind: 'tool-calls',
  text: 'Checking the weather.',
  calls: [
    { name: 'get_weather', arguments: { city: 'Zürich', units: ['C', 'F'], nested: { deep: [1, 2.5, null, true] } } },
    { name: 'get_time', arguments: { zone: 'CET' }, id: 'toolu_given_01' },
  ],
};
const ANSWERS: Array<[string, Answer, Chunking | undefined, ResolvedFinish | undefined]> = [
  ['text in words', { kind: 'text', text: 'Hello! How can I help you today? Ask me about the weather or a bug.' }, undefined, undefined],
  ['text with quotes, escapes and other scripts in 3-character pieces', { kind: 'text', text: quoted }, { size: 3 }, undefined],
  ['text in given pieces', { kind: 'text', text: 'pieces given' }, { pieces: ['pie', '', 'ces given'] }, undefined],
  ['no text', { kind: 'text', text: '' }, undefined, undefined],
  ['text and two tool calls', weather, undefined, undefined],
  ['a tool call alone', { kind: 'tool-calls', calls: [{ name: 'lookup', arguments: {} }] }, { size: 5 }, undefined],
  ['structured output', { kind: 'structured', value: { city: 'Paris', days: 3 } }, undefined, undefined],
  ['cut at the token limit', { kind: 'text', text: 'Cut short' }, undefined, { reason: 'length', scripted: 'length' }],
  ['a stop sequence', { kind: 'text', text: 'Up to the' }, undefined, { reason: 'stop-sequence', scripted: 'stop-sequence', stopSequence: 'END' }],
];
const NOVA_FINISHES: Array<[string, Answer, ResolvedFinish]> = [
  ['content filtered', { kind: 'text', text: 'Partial' }, { reason: 'content-filter', scripted: 'content-filter' }],
  ['a guardrail', { kind: 'text', text: 'Partial' }, { reason: 'content-filter', scripted: 'guardrail_intervened' }],
];

const claudeBody = (extra: Record<string, unknown> = {}) => ({
  anthropic_version: 'bedrock-2023-05-31',
  max_tokens: 2048,
  messages: [{ role: 'user', content: 'What is the weather in Zürich?' }],
  ...extra,
});
const novaBody = { messages: [{ role: 'user', content: [{ text: 'What is the weather in Zürich?' }] }], inferenceConfig: { max_new_tokens: 256 } };

type Case = readonly [what: string, turn: AskedTurn, answer: Answer, chunking: Chunking | undefined, finish: ResolvedFinish | undefined];

/** Renders each case with the surface (twice) and with the previous code; returns how many frames matched. */
function compare(cases: readonly Case[], previous: typeof previousClaudeFrames): number {
  let frames = 0;
  for (const [what, turn, answer, chunking, finish] of cases) {
    const expected = previous(turn, answer, contextFor(chunking, finish)).map((frame) => frame.toString('hex'));
    // Twice: the second time most chunks are copies of those kept from the first, which a client
    // writing into what it read must not change.
    for (const time of ['first', 'again']) {
      const wire = bedrockInvokeSurface.respond(turn, answer, contextFor(chunking, finish), undefined);
      const written = (wire.frames ?? []).map((frame) => Buffer.from(frame as Uint8Array).toString('hex'));
      expect(written, `${what}, ${time}`).toEqual(expected);
      for (const frame of wire.frames ?? []) (frame as Uint8Array).fill(0);
      frames += written.length;
    }
  }
  return frames;
}

describe('InvokeModelWithResponseStream from the fake', () => {
  test('Claude: every chunk is byte for byte what the previous encoding wrote', () => {
    const turn = bedrockInvokeSurface.ask(claudeBody(), 0, { api: 'bedrock-invoke', provider: 'bedrock', model: CLAUDE, stream: true });
    const thinking = bedrockInvokeSurface.ask(claudeBody({ thinking: { type: 'enabled', budget_tokens: 1024 } }), 0, {
      api: 'bedrock-invoke',
      provider: 'bedrock',
      model: `us.${CLAUDE}`,
      stream: true,
    });
    expect(turn.stream).toBe(true);
    const cases: Case[] = [
      ...ANSWERS.map(([what, answer, chunking, finish]): Case => [what, turn, answer, chunking, finish]),
      ['thinking, then text and tool calls', thinking, weather, { size: 7 }, undefined],
    ];
    expect(cases).toHaveLength(10);
    expect(compare(cases, previousClaudeFrames)).toBeGreaterThan(200);
  });

  test('Nova: every chunk is byte for byte what the previous encoding wrote', () => {
    const turn = bedrockInvokeSurface.ask(novaBody, 0, { api: 'bedrock-invoke', provider: 'bedrock', model: NOVA, stream: true });
    expect(turn.stream).toBe(true);
    const cases: Case[] = [
      ...ANSWERS.map(([what, answer, chunking, finish]): Case => [what, turn, answer, chunking, finish]),
      ...NOVA_FINISHES.map(([what, answer, finish]): Case => [what, turn, answer, undefined, finish]),
    ];
    expect(cases).toHaveLength(11);
    expect(compare(cases, (_turn, answer, context) => previousNovaFrames(answer, context))).toBeGreaterThan(200);
  });
});
