import { describe, expect, test } from 'vitest';
import { refuseGenerateRequest } from './refusals.js';

const user = (text: string) => ({ role: 'user', parts: [{ text }] });
const call = { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] };
const response = { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'rain' } } }] };
const declarations = [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object' } }] }];

describe('refuseGenerateRequest', () => {
  test('accepts a well-formed function-calling conversation', () => {
    expect(refuseGenerateRequest({ contents: [user('Weather?'), call, response], tools: declarations })).toBeUndefined();
  });

  test.each([
    ['no contents', {}, '* GenerateContentRequest.contents: contents is not specified\n'],
    ['empty contents', { contents: [] }, '* GenerateContentRequest.contents: contents is not specified\n'],
    ['a bad role', { contents: [{ role: 'assistant', parts: [{ text: 'Hi' }] }] }, 'Please use a valid role: user, model.'],
    ['empty parts', { contents: [{ role: 'user', parts: [] }] }, '* GenerateContentRequest.contents[0].parts: contents.parts must not be empty.\n'],
    [
      'a function response with no call before it',
      { contents: [user('Hi'), response] },
      'Please ensure that function response turn comes immediately after a function call turn.',
    ],
    [
      'a conversation opening with a function call',
      { contents: [call, response] },
      'Please ensure that function call turn comes immediately after a user turn or after a function response turn.',
    ],
    [
      'fewer responses than calls',
      { contents: [user('Hi'), { role: 'model', parts: [call.parts[0], call.parts[0]] }, response] },
      'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
    ],
    [
      'a field the request has not',
      { contents: [user('Hi')], temperature: 1 },
      'Invalid JSON payload received. Unknown name "temperature": Cannot find field.',
    ],
    [
      'ANY without declarations',
      { contents: [user('Hi')], toolConfig: { functionCallingConfig: { mode: 'ANY' } } },
      'Function calling config is set without function_declarations.',
    ],
  ])('refuses %s with 400 INVALID_ARGUMENT', (_name, body, message) => {
    expect(refuseGenerateRequest(body as Record<string, unknown>)).toEqual({ status: 400, type: 'INVALID_ARGUMENT', message });
  });

  test.each([-0.1, 2.1])('refuses temperature %s, outside 0..2, and accepts both ends', (temperature) => {
    expect(refuseGenerateRequest({ contents: [user('Hi')], generationConfig: { temperature } })?.message).toContain('generation_config.temperature');
    expect(refuseGenerateRequest({ contents: [user('Hi')], generationConfig: { temperature: 0 } })).toBeUndefined();
    expect(refuseGenerateRequest({ contents: [user('Hi')], generationConfig: { temperature: 2 } })).toBeUndefined();
  });

  test('refuses a response schema without a JSON mime type, and an invalid function name', () => {
    expect(refuseGenerateRequest({ contents: [user('Hi')], generationConfig: { responseSchema: { type: 'OBJECT' } } })?.message).toContain(
      'response_mime_type',
    );
    expect(refuseGenerateRequest({ contents: [user('Hi')], tools: [{ functionDeclarations: [{ name: '1-starts-with-a-digit' }] }] })?.message).toContain(
      'tools[0].function_declarations[0].name: Invalid function name.',
    );
  });
});
