import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { decodeBody, encodeBody, isJsonContentType, utf8OrUndefined, type BodyMismatch } from './body-encoding.js';
import type { Body, JsonBody } from './tape-format.js';

describe('isJsonContentType', () => {
  test('recognises application/json with parameters and +json types, in any case', () => {
    expect(isJsonContentType('application/json')).toBe(true);
    expect(isJsonContentType('application/json; charset=utf-8')).toBe(true);
    expect(isJsonContentType('Application/JSON')).toBe(true);
    expect(isJsonContentType('application/problem+json')).toBe(true);
    expect(isJsonContentType('application/vnd.api+json; charset=utf-8')).toBe(true);
  });

  test('refuses other and missing types', () => {
    expect(isJsonContentType(undefined)).toBe(false);
    expect(isJsonContentType('')).toBe(false);
    expect(isJsonContentType('text/plain')).toBe(false);
    expect(isJsonContentType('text/event-stream')).toBe(false);
    expect(isJsonContentType('application/x-ndjson')).toBe(false);
    expect(isJsonContentType('application/jsonp')).toBe(false);
  });
});

describe('encodeBody', () => {
  test('parses a JSON body declared as JSON', () => {
    expect(encodeBody(Buffer.from('{ "a": [1, "é"] }'), 'application/json')).toEqual({ json: { a: [1, 'é'] } });
    expect(encodeBody(Buffer.from('42'), 'application/json')).toEqual({ json: 42 });
    expect(encodeBody(Buffer.from('"text"'), 'application/problem+json')).toEqual({ json: 'text' });
  });

  test('parses an object or array body when no content type is given', () => {
    expect(encodeBody(Buffer.from('  {"a":1}'), undefined)).toEqual({ json: { a: 1 } });
    expect(encodeBody(Buffer.from('[1,2]'), undefined)).toEqual({ json: [1, 2] });
  });

  test('keeps an undeclared body that is not an object or array as text', () => {
    expect(encodeBody(Buffer.from('42'), undefined)).toEqual({ text: '42' });
    expect(encodeBody(Buffer.from('hello'), undefined)).toEqual({ text: 'hello' });
  });

  test('keeps invalid JSON declared as JSON as text, exactly', () => {
    const text = '{"model": "gpt-4o", "messages": [ \n';
    expect(encodeBody(Buffer.from(text), 'application/json')).toEqual({ text });
    expect(encodeBody(Buffer.from('{"a":1}}'), undefined)).toEqual({ text: '{"a":1}}' });
  });

  test('keeps JSON-looking text declared as another type as text', () => {
    expect(encodeBody(Buffer.from('{"a":1}'), 'text/plain')).toEqual({ text: '{"a":1}' });
  });

  test('keeps bytes that are not UTF-8 as base64, whatever the content type says', () => {
    const bytes = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x00, 0x80, 0x7d]);
    expect(encodeBody(bytes, 'application/json')).toEqual({ base64: bytes.toString('base64') });
    expect(encodeBody(bytes, 'application/octet-stream')).toEqual({ base64: bytes.toString('base64') });
  });

  test('keeps a genuine U+FFFD character as text', () => {
    expect(encodeBody(Buffer.from('replacement: \uFFFD'), 'text/plain')).toEqual({ text: 'replacement: \uFFFD' });
  });

  test('returns undefined for an empty payload', () => {
    expect(encodeBody(new Uint8Array(0), 'application/json')).toBeUndefined();
  });

  test('reads only the viewed bytes of a Uint8Array that is not a Buffer', () => {
    const backing = new TextEncoder().encode('xx{"a":1}yy');
    expect(encodeBody(backing.subarray(2, 9), 'application/json')).toEqual({ json: { a: 1 } });
  });
});

// OpenAI's way: two-space indentation, non-ASCII escaped, a trailing newline.
const OPENAI_STYLE =
  '{\n  "id": "chatcmpl-1",\n  "created": 9007199254740993,\n  "scores": {\n    "10": 0.5,\n    "2": 1.0,\n    "a": []\n  },\n  "content": "caf\\u00e9 \\ud83d\\udc4b",\n  "empty": {}\n}\n';

const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

// What a tape line holds: the body written as JSON and read back.
const throughTape = (body: Body | undefined): Body | undefined => (body === undefined ? undefined : (JSON.parse(JSON.stringify(body)) as Body));

describe('encodeBody with exact (response bodies)', () => {
  test('keeps an indented, ASCII-escaped body parsed, with the layout and sha256 that give back its bytes', () => {
    const bytes = Buffer.from(OPENAI_STYLE);
    const body = encodeBody(bytes, 'application/json', { exact: true }) as JsonBody;
    expect(body.json).toEqual({ id: 'chatcmpl-1', created: 9007199254740992, scores: { '2': 1, '10': 0.5, a: [] }, content: 'café 👋', empty: {} });
    expect(body.sha256).toBe(sha256(bytes));
    expect(body.layout).toEqual({
      indent: '  ',
      ascii: true,
      trailing: '\n',
      keyOrder: { '.scores': ['10', '2', 'a'] },
      literals: { '.created': '9007199254740993', '.scores["2"]': '1.0' },
    });
    expect(decodeBody(throughTape(body)).equals(bytes)).toBe(true);
  });

  test('writes no layout for compact JSON, only the sha256', () => {
    const bytes = Buffer.from('{"id":"chatcmpl-1","choices":[{"index":0}]}');
    expect(encodeBody(bytes, 'application/json; charset=utf-8', { exact: true })).toEqual({
      json: { id: 'chatcmpl-1', choices: [{ index: 0 }] },
      sha256: sha256(bytes),
    });
  });

  test.each([
    ['spacing no layout describes', '{"a" : 1}'],
    ['a duplicate name', '{"a":1,"a":2}'],
    ['leading whitespace', ' {"a":1}'],
    ['a name escaped unusually', '{"\\u0061":1}'],
    ['CRLF line ends', '{\r\n  "a": 1\r\n}'],
    ['mixed indentation', '{\n  "a": {\n      "b": 1\n  }\n}'],
  ])('keeps bytes with %s as text, exactly', (_what, text) => {
    expect(encodeBody(Buffer.from(text), 'application/json', { exact: true })).toEqual({ text });
  });

  test('keeps as text a body whose literals would outweigh it (a server writing every number its own way)', () => {
    const text = `[${Array.from({ length: 200 }, (_, index) => `${index}.50`).join(',')}]`;
    expect(encodeBody(Buffer.from(text), 'application/json', { exact: true })).toEqual({ text });
    // A few odd numbers in a large body stay as literals.
    const mostlyPlain = `[${Array.from({ length: 200 }, (_, index) => (index % 50 === 0 ? `${index}.0` : `${index}.25`)).join(',')}]`;
    expect(encodeBody(Buffer.from(mostlyPlain), 'application/json', { exact: true })).toMatchObject({
      layout: { literals: { '[0]': '0.0', '[50]': '50.0', '[100]': '100.0', '[150]': '150.0' } },
    });
  });

  test('without exact (request bodies, keyed from json alone) stores the parsed JSON only', () => {
    const plain = OPENAI_STYLE.replace('9007199254740993', '9007199254740992');
    expect(encodeBody(Buffer.from(plain), 'application/json')).toEqual({ json: JSON.parse(plain) });
  });

  test('without exact, a body with a number JSON.parse changes (1e400, -0, 9007199254740993) is kept and keyed as its text', () => {
    for (const text of [OPENAI_STYLE, '{"a":1e400}', '{"a":-0}', '{"a":123456789012345678901234567890}'])
      expect(encodeBody(Buffer.from(text), 'application/json')).toEqual({ text });
    expect(encodeBody(Buffer.from('{"a":1.0,"b":1E5}'), 'application/json')).toEqual({ json: { a: 1, b: 100000 } });
  });

  test('gives back every generated body byte for byte, parsed whenever it has no odd number', () => {
    let parsed = 0;
    fc.assert(
      fc.property(document(), style(), (value, layout) => {
        const bytes = Buffer.from(writeStyled(value, layout), 'utf8');
        const body = encodeBody(bytes, 'application/json', { exact: true });
        expect(decodeBody(throughTape(body)).equals(bytes)).toBe(true);
        if (!hasRawToken(value)) expect(body).toHaveProperty('json');
        if (body !== undefined && 'json' in body) parsed++;
      }),
      { numRuns: 400, seed: 10 },
    );
    expect(parsed).toBeGreaterThan(300);
  });
});

describe('decodeBody', () => {
  test('gives back a body from a version 1 tape (json, no sha256) as compact JSON', () => {
    expect(decodeBody({ json: JSON.parse(OPENAI_STYLE) }).toString('utf8')).toBe(JSON.stringify(JSON.parse(OPENAI_STYLE)));
  });

  test('serves a hand edit as edited and reports it, at the member a literal or key order no longer fits', () => {
    const recorded = encodeBody(Buffer.from(OPENAI_STYLE), 'application/json', { exact: true }) as JsonBody & { json: Record<string, any> };
    const mismatches: BodyMismatch[] = [];
    const onMismatch = (mismatch: BodyMismatch): number => mismatches.push(mismatch);
    expect(decodeBody(throughTape(recorded), { onMismatch }).toString('utf8')).toBe(OPENAI_STYLE);
    expect(mismatches).toEqual([]);

    const bigint = throughTape(recorded) as typeof recorded;
    bigint.json.created = 9007199254740994;
    const served = decodeBody(bigint, { onMismatch }).toString('utf8');
    expect(served).toContain('"created": 9007199254740994,');
    const content = throughTape(recorded) as typeof recorded;
    content.json.content = 'tea';
    decodeBody(content, { onMismatch });
    const order = throughTape(recorded) as typeof recorded;
    order.json.scores.b = 2;
    decodeBody(order, { onMismatch });

    expect(mismatches.map(({ path, detail }) => [path, detail])).toEqual([
      ['.json.created', 'json holds 9007199254740994; layout.literals[".created"] was recorded as 9007199254740993'],
      ['.json', 'edited by hand (json or its layout)'],
      ['.json.scores', 'json holds ["2","10","a","b"]; layout.keyOrder[".scores"] was recorded as ["10","2","a"]'],
    ]);
    expect(mismatches[0]).toMatchObject({ recordedSha256: sha256(OPENAI_STYLE), actualSha256: sha256(served), actualLength: Buffer.byteLength(served) });
  });

  test('gives back text and base64 bodies byte for byte', () => {
    const bytes = Buffer.from([0, 1, 2, 0xff, 0x80]);
    expect(decodeBody({ base64: bytes.toString('base64') }).equals(bytes)).toBe(true);
    expect(decodeBody({ text: 'héllo\r\n' }).equals(Buffer.from('héllo\r\n', 'utf8'))).toBe(true);
  });

  test('gives back a JSON body without layout as compact JSON', () => {
    expect(decodeBody({ json: { b: 1, a: ['é'] } }).toString('utf8')).toBe('{"b":1,"a":["é"]}');
  });

  test('gives no bytes for no body', () => {
    expect(decodeBody(undefined).length).toBe(0);
  });

  test('round-trips what encodeBody chose, for text and base64', () => {
    const payloads = [Buffer.from('plain text'), Buffer.from([0xc3, 0x28]), Buffer.from('{broken json', 'utf8')];
    for (const payload of payloads) expect(decodeBody(encodeBody(payload, 'application/json')).equals(payload)).toBe(true);
    expect(payloads).toHaveLength(3);
  });
});

describe('utf8OrUndefined', () => {
  test('decodes valid UTF-8 and refuses invalid sequences', () => {
    expect(utf8OrUndefined(Buffer.from('héllo 👋'))).toBe('héllo 👋');
    expect(utf8OrUndefined(Buffer.from([0xe2, 0x82]))).toBeUndefined();
    expect(utf8OrUndefined(Buffer.from([0xed, 0xa0, 0x80]))).toBeUndefined();
    expect(utf8OrUndefined(Buffer.from([0xef, 0xbf, 0xbd]))).toBe('\uFFFD');
  });
});

// A generated document: JSON values, plus numbers written otherwise than JavaScript writes them.
type Doc = null | boolean | number | string | { raw: string } | Doc[] | { members: Array<[string, Doc]> };

const RAW_NUMBERS = ['1.0', '1e-05', '-0', '1E5', '0.10', '9007199254740993', '-9223372036854775808', '1.5e+300', '12345678901234567890'];

function document(): fc.Arbitrary<Doc> {
  const { tree } = fc.letrec<{ tree: Doc; leaf: Doc }>((tie) => ({
    leaf: fc.oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: 'binary' }),
      fc.constantFrom(...RAW_NUMBERS).map((raw) => ({ raw })),
    ),
    tree: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('leaf'),
      fc.array(tie('tree'), { maxLength: 5 }),
      fc
        .uniqueArray(fc.tuple(fc.oneof(fc.string(), fc.nat(30).map(String), fc.string({ unit: 'grapheme' })), tie('tree')), {
          maxLength: 5,
          selector: ([name]) => name,
        })
        .map((members) => ({ members })),
    ),
  }));
  return tree;
}

interface Style {
  indent?: string;
  spaced?: boolean;
  ascii?: boolean;
  trailing: string;
}

function style(): fc.Arbitrary<Style> {
  return fc.oneof(
    fc.record({ trailing: fc.constantFrom('', '\n') }),
    fc.record({ indent: fc.constantFrom('  ', '    ', '\t'), ascii: fc.boolean(), trailing: fc.constantFrom('', '\n', '\r\n') }),
    fc.record({ spaced: fc.constant(true), ascii: fc.boolean(), trailing: fc.constantFrom('', '\n') }),
  );
}

function hasRawToken(value: Doc): boolean {
  if (Array.isArray(value)) return value.some(hasRawToken);
  if (value !== null && typeof value === 'object') return 'raw' in value || value.members.some(([, item]) => hasRawToken(item));
  return false;
}

// Written independently of the code under test, the way the servers do: JSON.stringify for
// strings and numbers, Python's json.dumps escaping for ascii.
function writeStyled(value: Doc, layout: Style): string {
  const quote = (text: string): string => {
    const quoted = JSON.stringify(text);
    return layout.ascii ? quoted.replace(/[\u007f-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`) : quoted;
  };
  const colon = layout.indent !== undefined || layout.spaced ? ': ' : ':';
  const comma = layout.spaced ? ', ' : ',';
  const write = (item: Doc, depth: number): string => {
    if (item === null || typeof item !== 'object') return typeof item === 'string' ? quote(item) : JSON.stringify(item);
    if ('raw' in item) return item.raw;
    const parts = Array.isArray(item)
      ? item.map((child) => write(child, depth + 1))
      : item.members.map(([name, child]) => `${quote(name)}${colon}${write(child, depth + 1)}`);
    const [open, close] = Array.isArray(item) ? ['[', ']'] : ['{', '}'];
    if (parts.length === 0) return `${open}${close}`;
    if (layout.indent === undefined) return `${open}${parts.join(comma)}${close}`;
    const inner = `\n${layout.indent.repeat(depth + 1)}`;
    return `${open}${inner}${parts.join(`,${inner}`)}\n${layout.indent.repeat(depth)}${close}`;
  };
  return write(value, 0) + layout.trailing;
}
