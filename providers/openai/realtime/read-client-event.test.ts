import { describe, expect, test } from 'vitest';
import { readClientEvent } from './read-client-event.js';

const refusalOf = (text: string) => {
  const read = readClientEvent(text);
  return 'refusal' in read ? read.refusal : undefined;
};

describe('readClientEvent', () => {
  test('reads the events a client sends, with its event id', () => {
    expect(readClientEvent('{"type":"response.create","event_id":"e1"}')).toEqual({ event: { type: 'response.create', event_id: 'e1' }, eventId: 'e1' });
    const item = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] };
    expect(refusalOf(JSON.stringify({ type: 'conversation.item.create', item }))).toBeUndefined();
    expect(refusalOf(JSON.stringify({ type: 'session.update', session: { type: 'realtime', instructions: 'x' } }))).toBeUndefined();
    expect(refusalOf(JSON.stringify({ type: 'input_audio_buffer.append', audio: 'AAAA' }))).toBeUndefined();
  });

  test('refuses what the API refuses, each with its code and param', () => {
    const cases: Array<[string, string, string | null]> = [
      ['not json', 'invalid_json', null],
      ['[1]', 'invalid_event', null],
      ['{}', 'invalid_event', null],
      ['{"type":"response.creat"}', 'invalid_value', 'type'],
      ['{"type":"session.update"}', 'missing_required_parameter', 'session'],
      ['{"type":"session.update","session":{}}', 'missing_required_parameter', 'session.type'],
      ['{"type":"session.update","session":{"type":"voice"}}', 'invalid_value', 'session.type'],
      ['{"type":"input_audio_buffer.append"}', 'missing_required_parameter', 'audio'],
      ['{"type":"input_audio_buffer.append","audio":1}', 'invalid_type', 'audio'],
      ['{"type":"conversation.item.create","item":{"type":"message","content":[]}}', 'missing_required_parameter', 'item.role'],
      ['{"type":"conversation.item.create","item":{"type":"function_call_output","call_id":"c"}}', 'missing_required_parameter', 'item.output'],
      ['{"type":"conversation.item.create","item":{"type":"web_search"}}', 'invalid_value', 'item.type'],
      ['{"type":"conversation.item.delete"}', 'missing_required_parameter', 'item_id'],
      ['{"type":"conversation.item.truncate","item_id":"i","content_index":0}', 'missing_required_parameter', 'audio_end_ms'],
      ['{"type":"response.create","response":"now"}', 'invalid_type', 'response'],
    ];
    expect(cases.map(([text]) => refusalOf(text)).map((refusal) => [refusal?.code, refusal?.param])).toEqual(cases.map(([, code, param]) => [code, param]));
    expect(refusalOf('{"type":"input_audio_buffer.append","audio":1}')!.message).toBe("Invalid type for 'audio': expected a string, but got a number instead.");
  });

  test('a refused event keeps the client event id, and what it was', () => {
    expect(readClientEvent('{"type":"nope","event_id":"e9"}')).toMatchObject({ eventId: 'e9', value: { type: 'nope', event_id: 'e9' } });
  });
});
