import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { captureRequest } from './capture-request.js';
import { SecretInTapeError } from './errors.js';
import { ModeltapeError } from '../core/internal.js';
import { compileKeyRules, exchangeKey, type CompiledKeyRules } from './exchange-key.js';
import type { Exchange } from './tape-format.js';
import { createHeader, serializeLine } from './tape-line.js';
import { loadTape, readTape } from './tape-reader.js';
import { TapeWriter } from './tape-writer.js';
import { FrameSplitter } from './frame-splitter.js';
import { chunkMessage, converseMessage } from '../test/support/event-stream-messages.js';
import { TAPE_SCHEMA_VERSION } from './tape-format.js';
import { WRITTEN_BY } from './version.js';

const FAKE = {
  openai: 'sk-proj-FAKEFAKEFAKEFAKEFAKEFAKEFAKE0000',
  anthropic: 'sk-ant-api03-FAKEFAKEFAKEFAKEFAKEFAKE0000',
  bearer: 'Bearer FAKEFAKEFAKEFAKEFAKE0000',
  google: 'AIzaFAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE000',
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'modeltape-writer-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function exchange(content: string, rules: CompiledKeyRules = compileKeyRules(), ordinal = 0): Exchange {
  const request = captureRequest(
    {
      method: 'POST',
      path: '/v1/chat/completions',
      query: '',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] })),
    },
    rules,
  );
  return {
    key: exchangeKey('openai', request, rules),
    ordinal,
    upstream: 'openai',
    source: 'live',
    request,
    response: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: { json: { choices: [{ message: { role: 'assistant', content: `re: ${content}` } }] } },
    },
  };
}

// The frames the recorder keeps of an AWS event stream made of `messages`.
function eventStream(e: Exchange, messages: Buffer[]): void {
  const splitter = new FrameSplitter('eventstream');
  messages.forEach((message, index) => splitter.push(message, index));
  delete e.response.body;
  e.response.stream = { format: 'eventstream', frames: splitter.finish(messages.length) };
}

function lines(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n');
}

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error, nothing was thrown');
}

describe('TapeWriter.open', () => {
  test('creates a tape holding exactly one header line, with the header notes', () => {
    const file = join(dir, 'nested', 'deeper', 'new.jsonl');
    const rules = compileKeyRules();
    const writer = TapeWriter.open(file, { keyRules: rules, headerNotes: { _purpose: 'checkout flow' } });
    writer.close();
    expect(readFileSync(file, 'utf8')).toBe(serializeLine(createHeader(rules.rules, { _purpose: 'checkout flow' })));
    expect(writer.header).toEqual({ _purpose: 'checkout flow', schemaVersion: TAPE_SCHEMA_VERSION, writtenBy: WRITTEN_BY, keyRules: rules.rules });
  });

  test('writes one header however many writers open the same new tape', () => {
    const file = join(dir, 'shared.jsonl');
    const rules = compileKeyRules();
    const writers = [TapeWriter.open(file, { keyRules: rules }), TapeWriter.open(file, { keyRules: rules }), TapeWriter.open(file, { keyRules: rules })];
    writers[0]!.append(exchange('one'));
    writers[2]!.append(exchange('two'));
    for (const writer of writers) writer.close();
    const contents = loadTape(file);
    expect(contents.lineCount).toBe(3);
    expect(lines(file).filter((line) => line.includes('"schemaVersion"'))).toHaveLength(1);
    expect(contents.exchanges.map(({ line }) => line)).toEqual([2, 3]);
  });

  test('leaves no temporary file behind', () => {
    TapeWriter.open(join(dir, 'a.jsonl'), { keyRules: compileKeyRules() }).close();
    TapeWriter.open(join(dir, 'a.jsonl'), { keyRules: compileKeyRules() }).close();
    expect(readdirSync(dir)).toEqual(['a.jsonl']);
  });

  test('keeps the existing header of a tape it reopens', () => {
    const file = join(dir, 'a.jsonl');
    TapeWriter.open(file, { keyRules: compileKeyRules(), headerNotes: { _first: true } }).close();
    const writer = TapeWriter.open(file, { keyRules: compileKeyRules(), headerNotes: { _second: true } });
    writer.close();
    expect(writer.header).toMatchObject({ _first: true });
    expect(writer.header).not.toHaveProperty('_second');
    expect(lines(file)).toHaveLength(2);
  });

  test('takes over an empty tape keyed with other rules: the new rules reach its header, every other byte is kept', () => {
    const file = join(dir, 'a.jsonl');
    TapeWriter.open(file, { keyRules: compileKeyRules(), headerNotes: { _purpose: 'kept' } }).close();
    const other = compileKeyRules({ headers: ['anthropic-version'], normalizers: [{ path: '.metadata' }] });
    const writer = TapeWriter.open(file, { keyRules: other });
    writer.close();
    const { header, exchanges } = loadTape(file);
    expect(header.keyRules).toEqual(other.rules);
    expect(header._purpose).toBe('kept');
    expect(exchanges).toHaveLength(0);
  });

  test('refuses to reopen a tape one of whose keys the other rules change, naming the line, and changes nothing', () => {
    const file = join(dir, 'a.jsonl');
    const writer = TapeWriter.open(file, { keyRules: compileKeyRules() });
    writer.append(exchange('hello'));
    writer.close();
    const before = readFileSync(file, 'utf8');
    const error = thrown(() =>
      TapeWriter.open(file, { keyRules: compileKeyRules({ headers: compileKeyRules().rules.headers, normalizers: [{ path: '.messages[0].content' }] }) }),
    );
    expect(error).toBeInstanceOf(ModeltapeError);
    expect((error as ModeltapeError).code).toBe('key_rules_mismatch');
    expect((error as Error).message).toContain(`${file}:2 POST /v1/chat/completions (openai)`);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  test('reopens a tape with the same rules written in another order', () => {
    const file = join(dir, 'a.jsonl');
    TapeWriter.open(file, {
      keyRules: compileKeyRules({ headers: ['openai-beta', 'anthropic-version'], normalizers: [{ pattern: 'x', flags: 'i' }] }),
    }).close();
    const writer = TapeWriter.open(file, {
      keyRules: compileKeyRules({ normalizers: [{ flags: 'i', pattern: 'x' }], headers: ['Anthropic-Version', 'openai-beta'] }),
    });
    writer.close();
    expect(writer.header.keyRules.headers).toEqual(['anthropic-version', 'openai-beta']);
  });

  test('refuses to append to a file whose header is not a tape header', () => {
    const file = join(dir, 'a.jsonl');
    writeFileSync(file, '{"hello":"world"}\n');
    const error = thrown(() => TapeWriter.open(file, { keyRules: compileKeyRules() }));
    expect((error as ModeltapeError).code).toBe('tape_header_invalid');
    expect((error as Error).message).toContain(`${file}:1:`);
    expect(readFileSync(file, 'utf8')).toBe('{"hello":"world"}\n');
  });

  test('can write a tape whose pattern normalizer names the g flag, and read it back', () => {
    const file = join(dir, 'flags.jsonl');
    const rules = compileKeyRules({ headers: [], normalizers: [{ pattern: 'run-\\d+', flags: 'gi' }] });
    const writer = TapeWriter.open(file, { keyRules: rules });
    writer.append(exchange('RUN-1', rules));
    writer.close();
    expect(loadTape(file).exchanges).toHaveLength(1);
  });
});

describe('TapeWriter.append', () => {
  test('writes each exchange as one canonical line at the end of the turn', async () => {
    const file = join(dir, 'a.jsonl');
    const writer = TapeWriter.open(file, { keyRules: compileKeyRules() });
    const first = exchange('héllo 👋');
    const second = exchange('second', compileKeyRules(), 0);
    writer.append(first);
    writer.append(second);
    expect(lines(file)).toHaveLength(2);
    expect(writer.written).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writer.written).toBe(2);
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(serializeLine(writer.header) + serializeLine(first) + serializeLine(second));
    writer.close();
  });

  test('writes queued lines at once on flush and on close', () => {
    const file = join(dir, 'a.jsonl');
    const writer = TapeWriter.open(file, { keyRules: compileKeyRules() });
    writer.append(exchange('a'));
    writer.flush();
    expect(lines(file)).toHaveLength(3);
    writer.append(exchange('b'));
    writer.close();
    writer.close();
    expect(
      loadTape(file).exchanges.map(
        ({ exchange: { request } }) => (request.body as { json: { messages: Array<{ content: string }> } }).json.messages[0]!.content,
      ),
    ).toEqual(['a', 'b']);
    expect(writer.written).toBe(2);
  });

  test('refuses to append after close', () => {
    const writer = TapeWriter.open(join(dir, 'a.jsonl'), { keyRules: compileKeyRules() });
    writer.close();
    expect((thrown(() => writer.append(exchange('late'))) as ModeltapeError).code).toBe('tape_closed');
  });

  test('continues a tape whose last line was torn on a fresh line, so the new exchange is readable', () => {
    const file = join(dir, 'torn.jsonl');
    const writer = TapeWriter.open(file, { keyRules: compileKeyRules() });
    writer.append(exchange('kept'));
    writer.close();
    const torn = serializeLine(exchange('torn'));
    appendFileSync(file, torn.slice(0, Math.floor(torn.length / 2)));

    const next = TapeWriter.open(file, { keyRules: compileKeyRules() });
    next.append(exchange('after'));
    next.close();
    const contents = loadTape(file);
    expect(contents.exchanges.map(({ line }) => line)).toEqual([2, 4]);
    expect(contents.warnings).toHaveLength(1);
    expect(contents.warnings[0]!.line).toBe(3);
    expect(contents.warnings[0]!.message).toContain('line 3 is torn');
  });

  test.each([
    [
      'request body message content',
      '.request.body.json.messages[0].content',
      (e: Exchange) => ((e.request.body as { json: { messages: Array<{ content: string }> } }).json.messages[0]!.content = `please use ${FAKE.openai}`),
    ],
    [
      'request body property name',
      '.request.body.json["[anthropic-key',
      (e: Exchange) => ((e.request.body as { json: Record<string, unknown> }).json[FAKE.anthropic] = 1),
    ],
    [
      'response body',
      '.response.body.json.choices[0].message.content',
      (e: Exchange) =>
        ((e.response.body as { json: { choices: Array<{ message: { content: string } }> } }).json.choices[0]!.message.content = `Your key: ${FAKE.google}`),
    ],
    [
      'stream frame text',
      '.response.stream.frames[1].text',
      (e: Exchange) => {
        delete e.response.body;
        e.response.stream = {
          format: 'sse',
          frames: [
            { atMs: 0, text: 'data: {}\n\n' },
            { atMs: 1, text: `data: {"delta":"${FAKE.anthropic}"}\n\n` },
          ],
        };
      },
    ],
    [
      'event stream payload',
      '.response.stream.frames[0].event.json.delta.text',
      (e: Exchange) => eventStream(e, [converseMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: `use ${FAKE.openai}` } })]),
    ],
    [
      'model event inside an event stream chunk',
      '.response.stream.frames[1].event.bytes.json.delta.text',
      (e: Exchange) =>
        eventStream(e, [
          chunkMessage({ type: 'message_start' }),
          chunkMessage({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: FAKE.openai } }),
        ]),
    ],
    [
      'event stream message kept as base64 (its CRC fails)',
      '.response.stream.frames[0].base64 (decoded)',
      (e: Exchange) => {
        const message = converseMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text: FAKE.openai } });
        message[message.length - 1]! ^= 0xff;
        eventStream(e, [message]);
        expect(Object.keys(e.response.stream!.frames[0]!)).toContain('base64');
      },
    ],
    [
      'event stream deltas, split across two of them',
      '.response.stream.frames[*] "text" (joined)',
      (e: Exchange) =>
        eventStream(
          e,
          [FAKE.openai.slice(0, 14), FAKE.openai.slice(14)].map((text) => converseMessage('contentBlockDelta', { contentBlockIndex: 0, delta: { text } })),
        ),
    ],
    [
      'remaining response header value',
      '.response.headers["x-echo-authorization"]',
      (e: Exchange) => (e.response.headers['x-echo-authorization'] = FAKE.bearer),
    ],
    ['query value', '.request.query[0][1]', (e: Exchange) => e.request.query.push(['session', FAKE.openai])],
  ])('refuses an exchange with a key in the %s, naming its path and writing nothing', (_place, path, taint) => {
    const file = join(dir, 'secret.jsonl');
    const writer = TapeWriter.open(file, { keyRules: compileKeyRules() });
    const before = readFileSync(file, 'utf8');
    const tainted = exchange('hello');
    taint(tainted);
    const error = thrown(() => writer.append(tainted));
    writer.close();
    expect(error).toBeInstanceOf(SecretInTapeError);
    expect((error as SecretInTapeError).code).toBe('secret_in_tape');
    expect((error as SecretInTapeError).locations).toHaveLength(1);
    expect((error as SecretInTapeError).locations[0]!.path.startsWith(path)).toBe(true);
    expect((error as Error).message).toContain(`Refused to write POST /v1/chat/completions (openai) to ${file}`);
    expect((error as Error).message).toContain(`at ${path}`);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(writer.written).toBe(0);
  });

  test('refuses a key that follows a newline in a message', () => {
    const file = join(dir, 'secret.jsonl');
    const writer = TapeWriter.open(file, { keyRules: compileKeyRules() });
    const before = readFileSync(file, 'utf8');
    const error = (() => {
      try {
        writer.append(exchange(`Here are my keys:\n${FAKE.openai}`));
        return undefined;
      } catch (caught) {
        return caught;
      } finally {
        writer.close();
      }
    })();
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(error).toBeInstanceOf(SecretInTapeError);
    expect((error as SecretInTapeError).locations[0]!.path).toBe('.request.body.json.messages[0].content');
  });

  test('keeps writing after refusing an exchange', () => {
    const file = join(dir, 'a.jsonl');
    const writer = TapeWriter.open(file, { keyRules: compileKeyRules() });
    expect(() => writer.append(exchange(FAKE.openai))).toThrow(SecretInTapeError);
    writer.append(exchange('clean'));
    writer.close();
    expect(readTape(file).exchanges).toHaveLength(1);
    expect(readFileSync(file, 'utf8')).not.toContain('FAKEFAKE');
    expect(existsSync(file)).toBe(true);
  });
});
