import { describe, expect, test } from 'vitest';
import { TapeFormatError, type TapeProblem } from './errors.js';
import { checkExchangeLine, checkHeaderLine, pointerToPath } from './tape-schema.js';
import { parseTape } from './tape-reader.js';

const FILE = 'tapes/checkout.jsonl';

function header(): Record<string, unknown> {
  return {
    schemaVersion: 1,
    writtenBy: 'modeltape@0.1.0',
    keyRules: { headers: ['anthropic-version'], normalizers: [{ path: '.metadata.user_id' }, { pattern: '\\d+', flags: 'i', placeholder: 'N' }] },
  };
}

// Typed loosely on purpose: these tests tamper with every part of a line.
type Loose = Record<string, any>;

function exchange(): Loose {
  return {
    key: 'a'.repeat(64),
    ordinal: 0,
    upstream: 'openai',
    source: 'live',
    request: {
      method: 'POST',
      path: '/v1/chat/completions',
      query: [['alt', 'sse']],
      headers: { 'content-type': 'application/json' },
      body: { json: { model: 'gpt-4o' } },
      bodySha256: 'b'.repeat(64),
    },
    response: { status: 200, headers: { 'content-type': 'application/json', 'set-later': ['a', 'b'] }, body: { json: { ok: true } } },
  };
}

function streamed(): Loose {
  const value = exchange();
  delete value.response.body;
  value.response.stream = {
    format: 'sse',
    frames: [
      { atMs: 0, text: 'data: {}\n\n' },
      { atMs: 5, base64: 'AAE=' },
    ],
  };
  return value;
}

function eventStreamed(): Loose {
  const value = exchange();
  delete value.response.body;
  const headers = (type: string): Record<string, string> => ({ ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' });
  value.response.stream = {
    format: 'eventstream',
    frames: [
      { atMs: 0, event: { headers: headers('messageStart'), json: { role: 'assistant', p: 'abc' } } },
      { atMs: 4, event: { headers: headers('contentBlockDelta'), json: { contentBlockIndex: 0, delta: { text: 'Hi' }, p: 'abcd' } } },
      { atMs: 9, event: { headers: headers('chunk'), json: { p: 'ab' }, bytes: { json: { type: 'message_stop' } } } },
      { atMs: 9, event: { headers: headers('chunk'), json: {}, bytes: { text: 'not json' } } },
      { atMs: 12, event: { headers: {}, text: '' } },
    ],
  };
  return value;
}

function problemsOf(value: unknown, line = 7): TapeProblem[] {
  return checkExchangeLine(value, FILE, line);
}

describe('the closed exchange schema', () => {
  test('accepts a plain and a streamed exchange', () => {
    expect(problemsOf(exchange())).toEqual([]);
    expect(problemsOf(streamed())).toEqual([]);
    const noBody = exchange();
    delete noBody.request.body;
    delete noBody.response.body;
    expect(problemsOf(noBody)).toEqual([]);
  });

  test('names an unknown field by file, line and path, and suggests the known field it was meant to be', () => {
    const value = exchange();
    value.request.bodySha265 = value.request.bodySha256;
    delete value.request.bodySha256;
    const problems = problemsOf(value, 14);
    expect(problems).toContainEqual({
      file: FILE,
      line: 14,
      field: '.request.bodySha265',
      message:
        'unknown field ".request.bodySha265" in exchange; did you mean ".request.bodySha256"? (Fields starting with "_" are notes and allowed anywhere.)',
    });
    expect(problems).toContainEqual({
      file: FILE,
      line: 14,
      field: '.request.bodySha256',
      message: 'missing required field ".request.bodySha256" in exchange',
    });
    expect(problems).toHaveLength(2);
  });

  test('suggests "ordinal" for "ordinl" at the top level', () => {
    const value = exchange();
    value.ordinl = 0;
    const problems = problemsOf(value);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.field).toBe('.ordinl');
    expect(problems[0]!.message).toContain('did you mean ".ordinal"?');
  });

  test('lists the known fields when an unknown field resembles none of them', () => {
    const value = exchange();
    value.response.temperature_reading = 1;
    const [problem] = problemsOf(value);
    expect(problem!.field).toBe('.response.temperature_reading');
    expect(problem!.message).toContain('known fields here: status, headers, body, stream, answeredModel.');
  });

  test('names an unknown field whose name needs quoting in JSON access syntax', () => {
    const value = exchange();
    value.request['body-sha'] = 1;
    const [problem] = problemsOf(value);
    expect(problem!.field).toBe('.request["body-sha"]');
  });

  test('allows "_" notes on every object of the format', () => {
    const value = streamed();
    value._why = 'recorded for the checkout test';
    value.request._note = { any: ['value'] };
    value.request.body = { json: { model: 'm' }, _note: 'body note' };
    value.response._note = 1;
    value.response.stream._note = null;
    value.response.stream.frames[0]._note = 'first frame';
    expect(problemsOf(value)).toEqual([]);
    const head = header();
    head._note = 'header';
    (head.keyRules as Loose)._note = 'rules';
    ((head.keyRules as Loose).normalizers as Loose[])[0]!._note = 'normalizer';
    expect(checkHeaderLine(head, FILE, 1)).toEqual([]);
  });

  test('reports each missing required field', () => {
    const value = exchange();
    delete value.key;
    delete value.request.method;
    delete value.response.status;
    expect(problemsOf(value).map(({ field, message }) => [field, message])).toEqual([
      ['.key', 'missing required field ".key" in exchange'],
      ['.request.method', 'missing required field ".request.method" in exchange'],
      ['.response.status', 'missing required field ".response.status" in exchange'],
    ]);
  });

  test('reports wrong types with what was found', () => {
    const value = exchange();
    value.ordinal = '0';
    value.response.status = 'ok';
    value.request.headers = { 'content-type': ['application/json'] };
    const problems = problemsOf(value);
    expect(problems.map(({ field }) => field)).toEqual(['.ordinal', '.request.headers["content-type"]', '.response.status']);
    expect(problems[0]!.message).toBe('".ordinal" must be integer (found "0")');
    expect(problems[2]!.message).toBe('".response.status" must be integer (found "ok")');
  });

  test.each([
    ['a key that is not a sha256', (value: Loose) => (value.key = 'ABC'), '.key'],
    ['a negative ordinal', (value: Loose) => (value.ordinal = -1), '.ordinal'],
    ['an uppercase upstream', (value: Loose) => (value.upstream = 'OpenAI'), '.upstream'],
    ['an unknown source', (value: Loose) => (value.source = 'recorded'), '.source'],
    ['a lowercase method', (value: Loose) => (value.request.method = 'post'), '.request.method'],
    ['a path without a leading slash', (value: Loose) => (value.request.path = 'v1/chat'), '.request.path'],
    ['a query pair of three', (value: Loose) => (value.request.query = [['a', 'b', 'c']]), '.request.query[0]'],
    ['a query value that is a number', (value: Loose) => (value.request.query = [['a', 1]]), '.request.query[0][1]'],
    ['a status below 100', (value: Loose) => (value.response.status = 42), '.response.status'],
    ['base64 with invalid characters', (value: Loose) => (value.response.body = { base64: 'not base64!' }), '.response.body.base64'],
    [
      'a frame with a negative time',
      (value: Loose) => ((value.response = streamed().response), (value.response.stream.frames[0].atMs = -1)),
      '.response.stream.frames[0].atMs',
    ],
    [
      'an unknown stream format',
      (value: Loose) => ((value.response = streamed().response), (value.response.stream.format = 'websocket')),
      '.response.stream.format',
    ],
  ])('refuses %s at its field', (_what, tamper, field) => {
    const value = exchange();
    tamper(value);
    const problems = problemsOf(value);
    expect(problems.map((problem) => problem.field)).toEqual([field]);
    expect(problems[0]!.message).toContain(`"${field}"`);
  });

  test('refuses a body with both json and text', () => {
    const value = exchange();
    value.request.body = { json: { a: 1 }, text: '{"a":1}' };
    expect(problemsOf(value)).toEqual([
      { file: FILE, line: 7, field: '.request.body', message: '".request.body" must hold exactly one of json, text, base64' },
    ]);
  });

  test('refuses an empty body', () => {
    const value = exchange();
    value.response.body = {};
    expect(problemsOf(value).map(({ field }) => field)).toEqual(['.response.body']);
  });

  test('refuses a response with both body and stream', () => {
    const value = streamed();
    value.response.body = { text: 'x' };
    expect(problemsOf(value)).toEqual([{ file: FILE, line: 7, field: '.response', message: '".response" must not hold both body and stream' }]);
  });

  test('reports a frame with neither text nor base64 as one problem', () => {
    const value = streamed();
    value.response.stream.frames[1] = { atMs: 3 };
    expect(problemsOf(value)).toEqual([
      { file: FILE, line: 7, field: '.response.stream.frames[1]', message: '".response.stream.frames[1]" must hold exactly one of text, base64, event' },
    ]);
  });

  test('accepts event stream frames: JSON, text, and a chunk with the payload inside it decoded', () => {
    const value = eventStreamed();
    expect(problemsOf(value)).toEqual([]);
    expect(value.response.stream.frames).toHaveLength(5);
  });

  test('names a malformed event stream frame by line and field', () => {
    const headers = eventStreamed();
    headers.response.stream.frames[2].event.headers[':event-type'] = 3;
    expect(problemsOf(headers, 9)).toEqual([
      {
        file: FILE,
        line: 9,
        field: '.response.stream.frames[2].event.headers[":event-type"]',
        message: '".response.stream.frames[2].event.headers[\":event-type\"]" must be string (found 3)',
      },
    ]);
    const missing = eventStreamed();
    delete missing.response.stream.frames[2].event.headers;
    expect(problemsOf(missing, 9)).toEqual([
      {
        file: FILE,
        line: 9,
        field: '.response.stream.frames[2].event.headers',
        message: 'missing required field ".response.stream.frames[2].event.headers" in exchange',
      },
    ]);
    const both = eventStreamed();
    both.response.stream.frames[0].event.text = '{}';
    expect(problemsOf(both)).toEqual([
      { file: FILE, line: 7, field: '.response.stream.frames[0].event', message: '".response.stream.frames[0].event" must hold exactly one of json, text' },
    ]);
    const unknown = eventStreamed();
    unknown.response.stream.frames[3].event.payload = {};
    expect(problemsOf(unknown).map(({ field, message }) => [field, message])).toEqual([
      [
        '.response.stream.frames[3].event.payload',
        'unknown field ".response.stream.frames[3].event.payload" in exchange; known fields here: headers, json, text, bytes. (Fields starting with "_" are notes and allowed anywhere.)',
      ],
    ]);
    const bytesAlone = eventStreamed();
    bytesAlone.response.stream.frames[4].event = { headers: {}, text: '', bytes: { json: {} } };
    expect(problemsOf(bytesAlone).map(({ field }) => field)).toContain('.response.stream.frames[4].event.bytes');
    const frameAndEvent = eventStreamed();
    frameAndEvent.response.stream.frames[1].base64 = 'AAAA';
    expect(problemsOf(frameAndEvent).map(({ message }) => message)).toEqual(['".response.stream.frames[1]" must hold exactly one of text, base64, event']);
  });

  test('reports a body with both json and text even when the line has another problem', () => {
    const value = exchange();
    value.request.body = { json: { a: 1 }, text: '{"a":1}' };
    value.response.body = { text: 'x' };
    value.response.stream = { format: 'sse', frames: [] };
    value.ordinl = 0;
    const fields = problemsOf(value).map(({ field }) => field);
    expect(fields).toContain('.ordinl');
    expect(fields).toContain('.request.body');
    expect(fields).toContain('.response');
  });
});

describe('the closed schema of an exact JSON response body', () => {
  const SHA = 'c'.repeat(64);
  const exact = (layout?: Loose): Loose => {
    const value = exchange();
    value.response.body = { json: { '2': 'two', '10': 'ten' }, sha256: SHA, ...(layout === undefined ? {} : { layout }) };
    return value;
  };

  test('accepts a sha256 alone, and with every layout field', () => {
    expect(problemsOf(exact())).toEqual([]);
    expect(
      problemsOf(
        exact({
          indent: '  ',
          ascii: true,
          trailing: '\n',
          keyOrder: { '': ['10', '2'] },
          literals: { '["10"]': '"ten"', '.id': '9007199254740993' },
          _why: 'OpenAI',
        }),
      ),
    ).toEqual([]);
    expect(problemsOf(exact({ spaced: true, trailing: '\r\n' }))).toEqual([]);
  });

  test.each([
    [
      'an unknown layout field, suggesting the one meant',
      { indnt: '  ' },
      '.response.body.layout.indnt',
      'unknown field ".response.body.layout.indnt" in exchange; did you mean ".response.body.layout.indent"?',
    ],
    ['an indent that is not whitespace', { indent: '--' }, '.response.body.layout.indent', '".response.body.layout.indent" must match pattern'],
    ['trailing text that is not whitespace', { trailing: 'x' }, '.response.body.layout.trailing', '".response.body.layout.trailing" must match pattern'],
    ['spaced set to false', { spaced: false }, '.response.body.layout.spaced', '".response.body.layout.spaced" must be true (found false)'],
    ['both indent and spaced', { indent: '  ', spaced: true }, '.response.body.layout', '".response.body.layout" must not hold both indent and spaced'],
    [
      'a key order that names a member twice',
      { keyOrder: { '': ['10', '10'] } },
      '.response.body.layout.keyOrder[""]',
      '".response.body.layout.keyOrder[""]" must NOT have duplicate items',
    ],
    [
      'a literal that is not a string',
      { literals: { '.id': 1 } },
      '.response.body.layout.literals[".id"]',
      '".response.body.layout.literals[".id"]" must be string',
    ],
    [
      'a literal whose path is not a JSON path',
      { literals: { id: '1' } },
      '.response.body.layout.literals.id',
      '".response.body.layout.literals" names "id", which is not a JSON path into the body (write ".id"',
    ],
  ])('refuses %s', (_what, layout, field, message) => {
    const problems = problemsOf(exact(layout));
    expect(problems.map((problem) => problem.field)).toEqual([field]);
    expect(problems[0]!.message).toContain(message);
  });

  test('refuses a layout without the sha256 it was checked against, and a sha256 beside text', () => {
    const value = exact({ indent: '  ' });
    delete value.response.body.sha256;
    expect(problemsOf(value)).toEqual([
      { file: FILE, line: 7, field: '.response.body.layout', message: '".response.body.layout" needs ".response.body.sha256" beside it' },
    ]);
    const text = exchange();
    text.response.body = { text: '{}', sha256: SHA };
    expect(problemsOf(text)).toEqual([
      { file: FILE, line: 7, field: '.response.body.sha256', message: '".response.body.sha256" needs ".response.body.json" beside it' },
    ]);
    const short = exact();
    short.response.body.sha256 = 'abc';
    expect(problemsOf(short).map(({ field }) => field)).toEqual(['.response.body.sha256']);
  });

  test('refuses a layout or sha256 on a request body, which is keyed from its json alone', () => {
    const value = exchange();
    value.request.body = { json: { model: 'gpt-4o' }, sha256: SHA, layout: { indent: '  ' } };
    expect(
      problemsOf(value)
        .map(({ field }) => field)
        .sort(),
    ).toEqual(['.request.body.layout', '.request.body.sha256']);
  });
});

describe('recordedAt', () => {
  test('takes a real UTC day, and names one no calendar has or another format', () => {
    expect(problemsOf({ ...exchange(), recordedAt: '2024-02-29' })).toEqual([]);
    expect(problemsOf({ ...exchange(), recordedAt: '2026-02-30' })).toEqual([
      { file: FILE, line: 7, field: '.recordedAt', message: expect.stringContaining('"2026-02-30", a day no calendar has') },
    ]);
    expect(problemsOf({ ...exchange(), recordedAt: '2026-12-03T10:00:00Z' })).toEqual([expect.objectContaining({ field: '.recordedAt' })]);
  });
});

describe('the closed header schema', () => {
  test('accepts a header with normalizers', () => {
    expect(checkHeaderLine(header(), FILE, 1)).toEqual([]);
  });

  test('reads version 1, 2, 3 and 4 headers, and refuses any other schemaVersion, saying which versions this modeltape reads', () => {
    expect(checkHeaderLine({ ...header(), schemaVersion: 1 }, FILE, 1)).toEqual([]);
    expect(checkHeaderLine({ ...header(), schemaVersion: 2 }, FILE, 1)).toEqual([]);
    expect(checkHeaderLine({ ...header(), schemaVersion: 3 }, FILE, 1)).toEqual([]);
    expect(checkHeaderLine({ ...header(), schemaVersion: 4 }, FILE, 1)).toEqual([]);
    const refused = [5, 0, '1'];
    for (const version of refused) {
      const value = { ...header(), schemaVersion: version };
      expect(checkHeaderLine(value, FILE, 1)).toEqual([
        {
          file: FILE,
          line: 1,
          field: '.schemaVersion',
          message: `".schemaVersion" must be 1, 2, 3 or 4 (found ${JSON.stringify(version)}); this modeltape reads tape schemaVersion 1, 2, 3 or 4. A newer tape needs a newer modeltape.`,
        },
      ]);
    }
    expect(refused).toHaveLength(3);
  });

  test('suggests "writtenBy" for "writenBy"', () => {
    const value = header();
    value.writenBy = value.writtenBy;
    const problems = checkHeaderLine(value, FILE, 1);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toContain('unknown field ".writenBy" in header; did you mean ".writtenBy"?');
  });

  test('refuses missing key rules, uppercase key headers and a normalizer with both path and pattern', () => {
    const missing = header();
    delete missing.keyRules;
    expect(checkHeaderLine(missing, FILE, 1).map(({ field }) => field)).toEqual(['.keyRules']);
    const upper = header();
    upper.keyRules = { headers: ['Anthropic-Version'], normalizers: [] };
    expect(checkHeaderLine(upper, FILE, 1).map(({ field }) => field)).toEqual(['.keyRules.headers[0]']);
    const both = header();
    both.keyRules = { headers: [], normalizers: [{ path: '.a', pattern: 'b' }] };
    expect(checkHeaderLine(both, FILE, 1).map(({ field }) => field)).toEqual(['.keyRules.normalizers[0]']);
  });

  test('is the reason loadTape-style readers refuse a tape, with every problem in the message', () => {
    const value = exchange();
    value.ordinl = 0;
    const text = `${JSON.stringify({ ...header(), schemaVersion: 5 })}\n${JSON.stringify(value)}\n`;
    const contents = parseTape(text, FILE);
    expect(contents.header).toBeUndefined();
    const error = new TapeFormatError(contents.problems);
    expect(error.code).toBe('tape_format');
    expect(error.message).toContain(`Invalid tape: 2 problems.`);
    expect(error.message).toContain(`${FILE}:1: ".schemaVersion" must be 1, 2, 3 or 4 (found 5)`);
    expect(error.message).toContain(`${FILE}:2: unknown field ".ordinl"`);
  });
});

describe('pointerToPath', () => {
  test('turns a JSON pointer into JSON access syntax', () => {
    expect(pointerToPath('')).toBe('');
    expect(pointerToPath('/request/query/0/1')).toBe('.request.query[0][1]');
    expect(pointerToPath('/response/headers/x-request-id')).toBe('.response.headers["x-request-id"]');
    expect(pointerToPath('/a~1b/c~0d')).toBe('["a/b"]["c~d"]');
  });
});
