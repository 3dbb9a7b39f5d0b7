import { describe, expect, test } from 'vitest';
import type { Difference } from '../core/internal.js';
import { renderDriftHtml } from './render-drift-html.js';
import { formatDriftReport, type DriftItem, type DriftReport, type DriftRequest } from './drift-report.js';

// Fixtures are built by hand: a request per wire format, a drift around it, a report around that.

function request(
  path: string,
  upstream: string,
  body: DriftRequest['body'],
  headers: Record<string, string> = { 'content-type': 'application/json' },
): DriftRequest {
  return { method: 'POST', path, upstream, query: [], headers, body };
}

function drift(fields: {
  sent: DriftRequest;
  recorded?: DriftRequest;
  differences?: Difference[];
  reason?: DriftItem['reason'];
  index?: number;
  line?: number;
}): DriftItem {
  const differences = fields.differences ?? [];
  return {
    index: fields.index ?? 0,
    endpoint: `${fields.sent.method} ${fields.sent.path} (${fields.sent.upstream})`,
    reason: fields.reason ?? 'unrecorded',
    key: 'a'.repeat(64),
    sent: fields.sent,
    nearest: fields.recorded === undefined ? undefined : { line: fields.line ?? 3, key: 'b'.repeat(64), request: fields.recorded },
    differences,
    totalDifferences: differences.length,
    message: `Failed to replay ${fields.sent.method} ${fields.sent.path}: no recorded exchange matches.`,
  };
}

function report(drifts: DriftItem[], tape = 'tapes/weather.jsonl'): DriftReport {
  const byEndpoint = new Map<string, number>();
  for (const item of drifts) byEndpoint.set(item.endpoint, (byEndpoint.get(item.endpoint) ?? 0) + 1);
  return {
    tape,
    command: ['node', 'agent.mjs'],
    totals: { requests: drifts.length + 4, hits: 4, drifted: drifts.length },
    endpoints: [...byEndpoint].map(([endpoint, drifted]) => ({
      endpoint,
      drifted,
      topPaths: drifts
        .filter((item) => item.endpoint === endpoint)
        .flatMap((item) => item.differences.map((difference) => ({ path: difference.path, count: 1 }))),
    })),
    drifts: drifts.map((item, index) => ({ ...item, index })),
  };
}

const chatTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

function chatBody(city: string): DriftRequest['body'] {
  return {
    json: {
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: 'You are a concise weather assistant.' },
        { role: 'user', content: `What's the weather in ${city}?` },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temperature_c":18}' },
      ],
      tools: [chatTool],
      temperature: 0.2,
    },
  };
}

/** The text a reader sees in an HTML fragment: tags dropped, entities decoded. */
function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

/** The outer HTML of every element with this opening-tag prefix (elements of one tag name, nested or not). */
function elements(html: string, openingTag: RegExp): string[] {
  const found: string[] = [];
  for (const match of html.matchAll(new RegExp(openingTag.source, 'g'))) {
    const tag = /^<(\w+)/.exec(match[0])![1]!;
    let depth = 0;
    const pattern = new RegExp(`<(/?)${tag}\\b[^>]*>`, 'g');
    pattern.lastIndex = match.index;
    for (let next = pattern.exec(html); next !== null; next = pattern.exec(html)) {
      depth += next[1] === '/' ? -1 : 1;
      if (depth === 0) {
        found.push(html.slice(match.index, pattern.lastIndex));
        break;
      }
    }
  }
  return found;
}

/** The table cells of one side. */
function cells(html: string, side: 'recorded' | 'sent'): string[] {
  return elements(html, new RegExp(`<td data-side="${side}"`));
}

describe('renderDriftHtml', () => {
  test('shows a prompt containing a script tag as text and never as a tag, wherever report text lands', () => {
    const attack = '<script>alert(1)</script>';
    const sent = request(
      '/v1/chat/completions',
      'openai',
      { json: { model: attack, messages: [{ role: 'user', content: `Hi ${attack}` }], [`odd"key`]: attack } },
      { 'x-note': attack },
    );
    const recorded = request('/v1/chat/completions', 'openai', { json: { model: attack, messages: [{ role: 'user', content: 'Hi' }] } }, { 'x-note': 'plain' });
    const differences: Difference[] = [
      { path: '.messages[0].content', change: 'changed', recorded: 'Hi', sent: `Hi ${attack}` },
      { path: '["odd\\"key"]', change: 'added', sent: attack },
      { path: 'header x-note', change: 'changed', recorded: 'plain', sent: attack },
    ];
    // The reason is a closed union in TypeScript, but a report read back from JSON could hold anything.
    const item = { ...drift({ sent, recorded, differences }), endpoint: attack, message: attack, key: attack, reason: attack as DriftItem['reason'] };
    const html = renderDriftHtml({ ...report([item], attack), command: [attack] });

    expect(html).not.toMatch(/<script/i);
    // Tape, command, endpoint and reason (index and section), model on two sides, message,
    // difference list, header, odd key value, miss message, key, title: every one is escaped text.
    expect(html.split('&lt;script&gt;alert(1)&lt;/script&gt;').length - 1).toBeGreaterThanOrEqual(16);
    expect(html).toContain('data-path="[&quot;odd\\&quot;key&quot;]"');
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`);
  });

  test('renders the same report to the same bytes, and a copy of it too', () => {
    const item = drift({
      sent: request('/v1/chat/completions', 'openai', chatBody('Lyon')),
      recorded: request('/v1/chat/completions', 'openai', chatBody('Paris')),
      differences: [{ path: '.messages[1].content', change: 'changed', recorded: "What's the weather in Paris?", sent: "What's the weather in Lyon?" }],
    });
    const first = renderDriftHtml(report([item]));
    expect(renderDriftHtml(report([item]))).toBe(first);
    expect(renderDriftHtml(structuredClone(report([item])))).toBe(first);
    expect(first.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
  });

  test('draws an OpenAI chat tool loop as bubbles by role, a name(args) card and a tool result named after its call', () => {
    const body = chatBody('Paris');
    const html = renderDriftHtml(
      report([drift({ sent: request('/v1/chat/completions', 'openai', body), recorded: request('/v1/chat/completions', 'openai', body) })]),
    );
    const sent = cells(html, 'sent').join('\n');

    const bubbles = elements(sent, /<div class="bubble /);
    expect(bubbles.map((bubble) => /class="bubble (\w+)/.exec(bubble)![1])).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(visibleText(bubbles[1]!)).toContain("What's the weather in Paris?");
    const signatures = elements(sent, /<code class="signature"/);
    expect(signatures.map(visibleText)).toEqual(['get_weather({"city":"Paris"})']);
    expect(visibleText(bubbles[3]!)).toMatch(/^tool result get_weather call_1\{"temperature_c":18\}$/);
    expect(sent).toContain('<span class="k">model</span><span class="v">gpt-4.1-mini</span>');
    expect(sent).toContain('<span class="k">temperature</span><span class="v">0.2</span>');
    expect(elements(sent, /<details class="tool/).map((tool) => /<span class="tool-name">([^<]*)/.exec(tool)![1])).toEqual(['get_weather']);
    expect(html).toContain('Conversation · OpenAI Chat Completions');
    expect(html).not.toMatch(/class="[^"]*\bdiff\b/);
  });

  test('draws an OpenAI Responses body: instructions, input_text, function_call and function_call_output', () => {
    const body = {
      json: {
        model: 'gpt-4.1-mini',
        instructions: 'Answer with the tool.',
        input: [
          { role: 'user', content: [{ type: 'input_text', text: 'Weather in Oslo?' }] },
          { type: 'function_call', call_id: 'call_9', name: 'get_weather', arguments: '{"city":"Oslo"}' },
          { type: 'function_call_output', call_id: 'call_9', output: 'snow, -3°C' },
          { role: 'assistant', content: [{ type: 'output_text', text: 'It snows in Oslo.' }] },
          { type: 'reasoning', id: 'rs_1', summary: [] },
        ],
        tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }, { type: 'web_search' }],
      },
    };
    const html = renderDriftHtml(report([drift({ sent: request('/v1/responses', 'openai', body) })]));
    const bubbles = elements(cells(html, 'sent').join('\n'), /<div class="bubble /);

    expect(bubbles.map((bubble) => [/class="bubble (\w+)/.exec(bubble)![1], /data-path="([^"]*)"/.exec(bubble)![1]])).toEqual([
      ['system', '.instructions'],
      ['user', '.input[0]'],
      ['assistant', '.input[1]'],
      ['tool', '.input[2]'],
      ['assistant', '.input[3]'],
      ['other', '.input[4]'],
    ]);
    expect(visibleText(bubbles[0]!)).toBe('instructionsAnswer with the tool.');
    expect(visibleText(elements(bubbles[2]!, /<code class="signature"/)[0]!)).toBe('get_weather({"city":"Oslo"})');
    expect(visibleText(bubbles[3]!)).toBe('tool result get_weather call_9snow, -3°C');
    expect(visibleText(bubbles[4]!)).toContain('It snows in Oslo.');
    expect(html).toContain('Conversation · OpenAI Responses');
    expect([...html.matchAll(/<span class="tool-name">([^<]*)<\/span>(?: <span class="muted">[^<]*<\/span>)?<\/summary>/g)].map((match) => match[1])).toEqual([
      'get_weather',
      'web_search',
    ]);
  });

  test('draws an Anthropic body: system blocks, tool_use as a card, tool_result under the tool it answers', () => {
    const body = {
      json: {
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
        system: [{ type: 'text', text: 'You are a travel agent.' }],
        messages: [
          { role: 'user', content: 'Book Rome.' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Checking flights.' },
              { type: 'tool_use', id: 'toolu_1', name: 'search_flights', input: { to: 'FCO', passengers: 2 } },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'AZ 611 at 09:40' }], is_error: false }] },
        ],
        tools: [{ name: 'search_flights', description: 'Find flights', input_schema: { type: 'object', properties: {} } }],
      },
    };
    const sent = request('/v1/messages', 'anthropic', body, { 'anthropic-version': '2023-06-01', 'content-type': 'application/json' });
    const html = renderDriftHtml(report([drift({ sent, recorded: sent })]));
    const bubbles = elements(cells(html, 'recorded').join('\n'), /<div class="bubble /);

    expect(bubbles.map((bubble) => /class="bubble (\w+)/.exec(bubble)![1])).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(visibleText(bubbles[0]!)).toBe('systemYou are a travel agent.');
    expect(visibleText(elements(bubbles[2]!, /<code class="signature"/)[0]!)).toBe('search_flights({"to":"FCO","passengers":2})');
    const result = elements(bubbles[3]!, /<div class="card result/)[0]!;
    expect(visibleText(result)).toBe('result of search_flights toolu_1AZ 611 at 09:40');
    expect(html).toContain('Conversation · Anthropic Messages');
    expect(html).toContain('<span class="k">anthropic-version:</span><span class="v">2023-06-01</span>');
  });

  test('outlines a changed message on both sides and marks the changed word in red and green', () => {
    const differences: Difference[] = [
      { path: '.messages[1].content', change: 'changed', recorded: "What's the weather in Paris?", sent: "What's the weather in Lyon?" },
    ];
    const html = renderDriftHtml(
      report([
        drift({
          sent: request('/v1/chat/completions', 'openai', chatBody('Lyon')),
          recorded: request('/v1/chat/completions', 'openai', chatBody('Paris')),
          differences,
        }),
      ]),
    );

    const changed = (side: 'recorded' | 'sent') => cells(html, side).flatMap((cell) => elements(cell, /<div class="bubble [^"]*\bdiff\b/));
    expect(changed('recorded')).toHaveLength(1);
    expect(changed('sent')).toHaveLength(1);
    expect(changed('recorded')[0]).toMatch(
      /^<div class="bubble user diff" data-path="\.messages\[1\]" data-diff="changed" title="differs at \.messages\[1\]\.content">/,
    );
    expect(changed('recorded')[0]).toContain('What&#39;s the weather in <mark class="del">Paris</mark>?');
    expect(changed('sent')[0]).toContain('What&#39;s the weather in <mark class="ins">Lyon</mark>?');
    expect(html.match(/<mark/g)).toHaveLength(2);
    expect(html).toContain(
      `<li data-path=".messages[1].content" data-diff="changed"><code>at .messages[1].content: recorded &quot;What&#39;s the weather in Paris?&quot; sent &quot;What&#39;s the weather in Lyon?&quot; (first differs at character 22)</code></li>`,
    );
    expect(html).toContain('<code class="tape-line">tapes/weather.jsonl:3</code>');
  });

  test('marks a changed system prompt, tool parameter and header, and a message only the run sent', () => {
    const body = (system: string, cityType: string, extra: boolean) => ({
      json: {
        model: 'claude-sonnet-4-5',
        max_tokens: 512,
        system,
        messages: [{ role: 'user', content: 'Weather in Bergen?' }, ...(extra ? [{ role: 'user', content: 'And tomorrow?' }] : [])],
        tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: cityType } } } }],
      },
    });
    const recorded = request('/v1/messages', 'anthropic', body('You are terse.', 'string', false), { 'anthropic-version': '2023-06-01' });
    const sent = request('/v1/messages', 'anthropic', body('You are verbose.', 'array', true), { 'anthropic-version': '2024-01-01' });
    const differences: Difference[] = [
      { path: '.system', change: 'changed', recorded: 'You are terse.', sent: 'You are verbose.' },
      { path: '.messages[1]', change: 'added', sent: { role: 'user', content: 'And tomorrow?' } },
      { path: '.tools[0].input_schema.properties.city.type', change: 'changed', recorded: 'string', sent: 'array' },
      { path: 'header anthropic-version', change: 'changed', recorded: '2023-06-01', sent: '2024-01-01' },
    ];
    const html = renderDriftHtml(report([drift({ sent, recorded, differences })]));
    const recordedHtml = cells(html, 'recorded').join('\n');
    const sentHtml = cells(html, 'sent').join('\n');

    expect(recordedHtml).toContain('data-path=".system" data-diff="changed"');
    expect(recordedHtml).toContain('You are <mark class="del">terse</mark>.');
    expect(sentHtml).toContain('You are <mark class="ins">verbose</mark>.');
    expect(sentHtml).toMatch(
      /<div class="bubble user diff" data-path="\.messages\[1\]" data-diff="added"[^>]*><div class="who"><span class="role">user<\/span><span class="badge">not recorded<\/span>/,
    );
    expect(recordedHtml).toContain('<td data-side="recorded" class="absent"><span>no message here</span></td>');
    // The tool whose schema changed opens by itself, with the changed value marked.
    expect(recordedHtml).toMatch(/<details class="tool diff" data-path="\.tools\[0\]" data-diff="changed"[^>]*open>/);
    expect(recordedHtml).toContain('&quot;type&quot;: &quot;<mark class="del">string</mark>&quot;');
    expect(sentHtml).toContain('&quot;type&quot;: &quot;<mark class="ins">array</mark>&quot;');
    expect(sentHtml).toContain(
      '<div class="kv diff" data-path="header anthropic-version" data-diff="changed" title="differs at header anthropic-version"><span class="k">anthropic-version:</span><span class="v"><mark class="ins">2024-01</mark>-01</span>',
    );
    expect(html.match(/class="[^"]*\bdiff\b/g)).toHaveLength(7);
  });

  test('says there is no recording and shows only the sent side when the drift has no nearest', () => {
    const sent = request('/v1/embeddings', 'openai', { json: { model: 'text-embedding-3-small', input: 'hello' } });
    const html = renderDriftHtml(report([drift({ sent })]));

    expect(visibleText(html)).toContain(
      'No recording to compare with. The tape holds no recording of POST /v1/embeddings (openai). Only the request as sent is shown.',
    );
    expect(cells(html, 'recorded')).toHaveLength(0);
    expect(cells(html, 'sent').length).toBeGreaterThan(0);
    expect(html).toContain('<table class="compare single">');
    expect(html).not.toContain('<ul class="differences">');
    // A body of no known format is shown as pretty-printed JSON, field by field.
    expect(html).toContain('Body (JSON)');
    expect(html).toContain('<span class="k">input</span><span class="v">&quot;hello&quot;</span>');
  });

  test('shows text and binary bodies as text and as a byte count', () => {
    const text = request('/upload', 'local', { text: 'line one\n<b>line two</b>' });
    const binary = request('/upload', 'local', { base64: 'AAECAwQ=' });
    const html = renderDriftHtml(report([drift({ sent: text }), drift({ sent: binary })]));

    expect(html).toContain('line one\n&lt;b&gt;line two&lt;/b&gt;');
    expect(html).toContain('Body · text');
    expect(html).toContain('5 bytes of binary data (base64)');
  });

  test('folds a long unchanged stretch of a prompt and keeps the changed part in view', () => {
    const long = (word: string) => `${'Follow the policy. '.repeat(200)}Ship to ${word}. ${'Be brief. '.repeat(200)}`;
    const differences: Difference[] = [{ path: '.messages[0].content', change: 'changed', recorded: long('Paris'), sent: long('Lyon') }];
    const chat = (word: string) => request('/v1/chat/completions', 'openai', { json: { model: 'm', messages: [{ role: 'user', content: long(word) }] } });
    const html = renderDriftHtml(report([drift({ sent: chat('Lyon'), recorded: chat('Paris'), differences })]));
    const sent = cells(html, 'sent').join('\n');

    expect(sent).toContain('Ship to <mark class="ins">Lyon</mark>.');
    expect(sent).toMatch(/<details class="fold"><summary>…3,5\d\d earlier characters<\/summary>/);
    expect(sent).toMatch(/<details class="fold"><summary>1,\d{3} more characters…<\/summary>/);
  });

  test('says, on the page and in the terminal, when more requests drifted than the report kept', () => {
    const kept = report([
      drift({ sent: request('/v1/chat/completions', 'openai', chatBody('Lyon')), recorded: request('/v1/chat/completions', 'openai', chatBody('Paris')) }),
    ]);
    const cut: DriftReport = { ...kept, totals: { ...kept.totals, requests: 1504, drifted: 1500 } };

    expect(visibleText(renderDriftHtml(cut))).toContain('Details are kept for the first 1 drifted requests; the other 1,499 are counted but not shown.');
    expect(formatDriftReport(cut)).toContain('the other 1499 drifted requests are counted but not kept');
    expect(visibleText(renderDriftHtml(kept))).not.toContain('counted but not shown');
    expect(formatDriftReport(kept)).not.toContain('counted but not kept');
  });

  test('renders a no-drift page for a report without drifts', () => {
    const html = renderDriftHtml({ tape: 'tapes/ok.jsonl', command: ['npm', 'test'], totals: { requests: 5, hits: 5, drifted: 0 }, endpoints: [], drifts: [] });

    expect(visibleText(html)).toContain('No drift');
    expect(visibleText(html)).toContain('Every request the run sent was on the tape: 5 requests, 5 hits.');
    expect(visibleText(html)).toMatch(/5\s+requests\s+5\s+hits\s+0\s+drifted/);
    expect(html).not.toContain('<section class="drift"');
    expect(html).toContain('<title>modeltape drift: No drift — tapes/ok.jsonl</title>');
  });
});
