import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { checkInvokeStreamGrammar, type InvokeStreamMessage } from './stream-grammar.js';

// The captured streams of test/fixtures/bedrock/: Claude's (Anthropic's events in chunks) and
// Nova's (Converse's, each under its type's key).
function captured(name: string): InvokeStreamMessage[] {
  const { events } = JSON.parse(readFileSync(new URL(`../../../test/fixtures/bedrock/${name}`, import.meta.url), 'utf8')) as {
    events: Array<{ headers: Record<string, string>; payload: { bytes: string } }>;
  };
  return events.map(({ headers, payload }) => {
    const data = Buffer.from(payload.bytes, 'base64').toString('utf8');
    return { event: headers[':event-type'], exception: false, data, json: JSON.parse(data) as unknown };
  });
}

const exception: InvokeStreamMessage = {
  event: 'modelStreamErrorException',
  exception: true,
  data: '{"message":"Model Stream Error"}',
  json: { message: 'Model Stream Error' },
};

describe('checkInvokeStreamGrammar', () => {
  test.each(['invoke-stream-claude-events.json', 'invoke-stream-nova-events.json'])('holds for the captured %s', (name) => {
    expect(checkInvokeStreamGrammar(captured(name))).toEqual([]);
  });

  test('a stream cut short breaks it; one broken off by an exception does not, but nothing may follow the exception', () => {
    for (const name of ['invoke-stream-claude-events.json', 'invoke-stream-nova-events.json']) {
      const messages = captured(name);
      expect(checkInvokeStreamGrammar(messages.slice(0, 3)), name).toHaveLength(1);
      expect(checkInvokeStreamGrammar([...messages.slice(0, 3), exception]), name).toEqual([]);
      expect(checkInvokeStreamGrammar([...messages.slice(0, 3), exception, messages[3]!]), name).toHaveLength(1);
    }
  });

  test('every message is a chunk', () => {
    const messages = captured('invoke-stream-nova-events.json');
    expect(checkInvokeStreamGrammar([{ ...messages[0]!, event: 'messageStart' }, ...messages.slice(1)])).toEqual(['message 0 (messageStart): not a chunk']);
  });
});
