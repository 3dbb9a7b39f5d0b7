import { describe, expect, test } from 'vitest';
import {
  describeJsonRpc,
  describeMcpCall,
  isJsonRpcRequest,
  isJsonRpcResponse,
  jsonRpcIdOf,
  mcpErrorBody,
  MODELTAPE_RPC_ERROR,
  renumberResponse,
  renumberSseEvent,
} from './json-rpc.js';

describe('JSON-RPC messages', () => {
  test('tell requests, notifications and responses apart', () => {
    const request = { jsonrpc: '2.0', id: 0, method: 'initialize', params: {} };
    const notification = { jsonrpc: '2.0', method: 'notifications/initialized' };
    const response = { jsonrpc: '2.0', id: 0, result: {} };
    expect([request, notification, response].map(isJsonRpcRequest)).toEqual([true, false, false]);
    expect([request, notification, response].map(isJsonRpcResponse)).toEqual([false, false, true]);
    expect([request, notification, response, { id: 1 }].map(jsonRpcIdOf)).toEqual([0, undefined, 0, undefined]);
  });

  test('are described by what they call', () => {
    expect(describeJsonRpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather', arguments: {} } })).toBe('tools/call get_weather');
    expect(describeJsonRpc({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'docs://readme' } })).toBe('resources/read docs://readme');
    expect(describeJsonRpc({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe('notifications/initialized');
    expect(describeJsonRpc({ jsonrpc: '2.0', id: 'a', result: {} })).toBe('the response to request "a"');
    expect(describeJsonRpc({ model: 'x' })).toBe('a message that is not JSON-RPC 2.0');
  });

  test('name the call a request makes, read off its body as a tape holds it', () => {
    const call = { body: { json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather', arguments: {} } } } };
    const chat = { body: { json: { model: 'x' } } };
    const cases = [call, chat, { body: { text: 'hi' } }, {}];
    expect(cases.map((request) => describeMcpCall(request))).toEqual(['tools/call get_weather', undefined, undefined, undefined]);
    // On an MCP route every JSON body should be a JSON-RPC message: another is named as what it is.
    expect(cases.map((request) => describeMcpCall(request, { onMcpRoute: true }))).toEqual([
      'tools/call get_weather',
      'a message that is not JSON-RPC 2.0',
      undefined,
      undefined,
    ]);
  });
});

describe('renumbering a recorded response', () => {
  test("answers the request's id and leaves everything else as it was", () => {
    expect(renumberResponse('{"jsonrpc":"2.0","id":3,"result":{"n":1}}', 3, 'x')).toBe('{"jsonrpc":"2.0","id":"x","result":{"n":1}}');
    // Not the response to the recorded call: a request the server sends, another id, not JSON.
    expect(renumberResponse('{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage"}', 3, 9)).toBeUndefined();
    expect(renumberResponse('{"jsonrpc":"2.0","id":4,"result":{}}', 3, 9)).toBeUndefined();
    expect(renumberResponse('not json', 3, 9)).toBeUndefined();
    // A progress notification whose token was the request's id (as the SDKs make it).
    expect(renumberResponse('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":1}}', 3, 9)).toBe(
      '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":9,"progress":1}}',
    );
  });

  test('in an SSE event, changes only the data line of the response', () => {
    const event = 'event: message\nid: ev-1\ndata: {"jsonrpc":"2.0","id":0,"result":{"a":"é"}}\n\n';
    expect(renumberSseEvent(event, 0, 12)).toBe('event: message\nid: ev-1\ndata: {"jsonrpc":"2.0","id":12,"result":{"a":"é"}}\n\n');
    const notification = 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info"}}\n\n';
    expect(renumberSseEvent(notification, 0, 12)).toBe(notification);
    expect(renumberSseEvent(': keep-alive\n\n', 0, 12)).toBe(': keep-alive\n\n');
    expect(renumberSseEvent('data:{"jsonrpc":"2.0","id":0,"result":{}}\r\n\r\n', 0, 1)).toBe('data:{"jsonrpc":"2.0","id":1,"result":{}}\r\n\r\n');
  });
});

describe('the error body on an MCP route', () => {
  test("is a JSON-RPC error under the request's id, modeltape's own code for its own errors", () => {
    expect(mcpErrorBody({ status: 400, type: 'modeltape_replay_miss', message: 'Failed to replay', fromModeltape: true }, 4)).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: MODELTAPE_RPC_ERROR, message: 'Failed to replay', data: { type: 'modeltape_replay_miss', status: 400 } },
    });
    expect(mcpErrorBody({ status: 500, type: 'internal_error', message: 'Internal error' })).toMatchObject({ id: null, error: { code: -32603 } });
    expect(mcpErrorBody({ status: 429, type: 'rate_limited', message: 'Too many' })).toMatchObject({ error: { code: -32000 } });
  });
});
