import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { diffJson, renderDriftHtml, type Difference, type DriftItem, type DriftReport, type DriftRequest } from 'modeltape/replay';
import { findChromium } from '../support/find-chromium.js';
import { tempDir } from '../support/temp-dir.js';

const SCREENSHOT = fileURLToPath(new URL('../../test-output/drift-report.png', import.meta.url));

// A run of an agent against tapes/trip.jsonl: 9 requests, 6 answered, 3 drifted.

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  },
};

function openaiChat(city: string): DriftRequest {
  return {
    method: 'POST',
    path: '/v1/chat/completions',
    upstream: 'openai',
    query: [],
    headers: { 'content-type': 'application/json' },
    body: {
      json: {
        model: 'gpt-4.1-mini',
        messages: [
          { role: 'system', content: 'You are a concise weather assistant. Use the tool, then answer in one line.' },
          { role: 'user', content: `What's the weather in ${city} this afternoon?` },
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_7Qx2', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
          },
          { role: 'tool', tool_call_id: 'call_7Qx2', content: '{"temperature_c":18,"sky":"light rain"}' },
        ],
        tools: [weatherTool],
        tool_choice: 'auto',
        temperature: 0.2,
      },
    },
  };
}

function anthropicMessages(system: string): DriftRequest {
  return {
    method: 'POST',
    path: '/v1/messages',
    upstream: 'anthropic',
    query: [],
    headers: { 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: {
      json: {
        model: 'claude-sonnet-4-5',
        max_tokens: 1024,
        system: [{ type: 'text', text: system }],
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Find me a flight from Lyon to Rome on Friday.' }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'Let me search.' },
              { type: 'tool_use', id: 'toolu_01', name: 'search_flights', input: { from: 'LYS', to: 'FCO', date: '2025-06-13' } },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'AZ 351 dep 09:40 arr 11:15, 129 EUR' }] },
        ],
        tools: [
          {
            name: 'search_flights',
            description: 'Search direct flights',
            input_schema: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' }, date: { type: 'string' } } },
          },
        ],
      },
    },
  };
}

function bodyDifferences(recorded: DriftRequest, sent: DriftRequest): Difference[] {
  const json = (request: DriftRequest) => (request.body !== undefined && 'json' in request.body ? request.body.json : undefined);
  return diffJson(json(recorded), json(sent));
}

function driftItem(index: number, reason: DriftItem['reason'], sent: DriftRequest, nearest?: { line: number; request: DriftRequest }): DriftItem {
  const differences = nearest === undefined ? [] : bodyDifferences(nearest.request, sent);
  return {
    index,
    endpoint: `${sent.method} ${sent.path} (${sent.upstream})`,
    reason,
    key: `${index}`.repeat(64),
    sent,
    nearest: nearest === undefined ? undefined : { line: nearest.line, key: 'f'.repeat(64), request: nearest.request },
    differences,
    totalDifferences: differences.length,
    message: `Failed to replay ${sent.method} ${sent.path}: no recorded exchange matches.`,
  };
}

function tripReport(): DriftReport {
  const drifts = [
    driftItem(0, 'unrecorded', openaiChat('Lyon'), { line: 4, request: openaiChat('Paris') }),
    driftItem(1, 'unrecorded', anthropicMessages('You are a travel agent. Answer in two sentences.'), {
      line: 7,
      request: anthropicMessages('You are a travel agent. Answer in one sentence.'),
    }),
    driftItem(2, 'unrecorded', {
      method: 'POST',
      path: '/v1/embeddings',
      upstream: 'openai',
      query: [],
      headers: { 'content-type': 'application/json' },
      body: { json: { model: 'text-embedding-3-small', input: ['Rome', 'Lyon'] } },
    }),
  ];
  return {
    tape: 'tapes/trip.jsonl',
    command: ['node', 'agent.mjs', '--city', 'Lyon'],
    totals: { requests: 9, hits: 6, drifted: 3 },
    endpoints: [
      { endpoint: 'POST /v1/chat/completions (openai)', drifted: 1, topPaths: [{ path: '.messages[1].content', count: 1 }] },
      { endpoint: 'POST /v1/messages (anthropic)', drifted: 1, topPaths: [{ path: '.system[0].text', count: 1 }] },
      { endpoint: 'POST /v1/embeddings (openai)', drifted: 1, topPaths: [] },
    ],
    drifts,
  };
}

/** A computed style property of the element, as the browser resolved it. */
async function computedStyle(locator: Locator, property: 'backgroundColor' | 'boxShadow'): Promise<string> {
  // The project compiles without the DOM library; in the page, getComputedStyle exists.
  type Window = { getComputedStyle(element: unknown): Record<typeof property, string> };
  return locator.evaluate((element, name) => (globalThis as unknown as Window).getComputedStyle(element)[name], property);
}

describe('the drift report opened in headless Chromium', () => {
  const dir = tempDir();
  let browser: Browser | undefined;
  let page: Page | undefined;
  const requests: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    // CHROMIUM_PATH, else a system Chromium, else the one the @sparticuz/chromium dev dependency ships.
    const { executablePath } = await findChromium();
    browser = await chromium.launch({
      executablePath,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
      headless: true,
    });
  });
  afterEach(async () => {
    await page?.close();
    page = undefined;
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Writes the report into this test's directory and opens it; returns the page and the file's URL. */
  async function openReport(): Promise<{ page: Page; url: string }> {
    const file = join(dir, 'drift.html');
    writeFileSync(file, renderDriftHtml(tripReport()));
    const url = pathToFileURL(file).href;
    requests.length = 0;
    consoleErrors.length = 0;
    page = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await page.goto(url, { waitUntil: 'load' });
    return { page, url };
  }

  test('loads from the file alone: no other request, no console error', async () => {
    const { url } = await openReport();
    expect(requests).toEqual([url]);
    expect(consoleErrors).toEqual([]);
  });

  test('shows the tape, the totals with "3 drifted", the endpoints and a working index of drifts', async () => {
    const { page } = await openReport();
    expect(await page.getByRole('heading', { name: 'Drift report', level: 1 }).isVisible()).toBe(true);
    expect(await page.locator('.totals').innerText()).toMatch(/9\s+requests\s+6\s+hits\s+3\s+drifted/);
    expect(await page.getByText('3 drifted', { exact: true }).isVisible()).toBe(true);
    const endpoints = page.getByRole('table', { name: 'Drift by endpoint' });
    expect(await endpoints.getByRole('row').count()).toBe(4);
    expect(await endpoints.getByRole('row', { name: /anthropic/ }).innerText()).toContain('.system[0].text');

    await page.getByRole('navigation', { name: 'Drifts' }).getByRole('link', { name: 'POST /v1/embeddings (openai)' }).click();
    expect(page.url()).toMatch(/#drift-2$/);
    const heading = await page.locator('#drift-2 h2').boundingBox();
    expect(heading!.y).toBeGreaterThanOrEqual(0);
    expect(heading!.y).toBeLessThan(900);
  });

  test('shows the changed user message as "Paris" recorded beside "Lyon" sent, each in a visible highlight', async () => {
    const { page } = await openReport();
    const drift = page.locator('#drift-0');
    expect(await drift.getByRole('columnheader', { name: /^Recorded/ }).isVisible()).toBe(true);
    expect(await drift.getByRole('columnheader', { name: /^Sent/ }).isVisible()).toBe(true);
    expect(await drift.locator('.tape-line').innerText()).toBe('tapes/trip.jsonl:4');
    expect(await drift.locator('ul.differences li').allInnerTexts()).toEqual([
      `at .messages[1].content: recorded "What's the weather in Paris this afternoon?" sent "What's the weather in Lyon this afternoon?" (first differs at character 22)`,
    ]);

    const highlighted = { recorded: drift.locator('td[data-side="recorded"] .bubble.diff'), sent: drift.locator('td[data-side="sent"] .bubble.diff') };
    expect(await highlighted.recorded.count()).toBe(1);
    expect(await highlighted.sent.count()).toBe(1);
    expect(await highlighted.recorded.innerText()).toContain("What's the weather in Paris this afternoon?");
    expect(await highlighted.sent.innerText()).toContain("What's the weather in Lyon this afternoon?");

    const paris = highlighted.recorded.locator('mark', { hasText: 'Paris' });
    const lyon = highlighted.sent.locator('mark', { hasText: 'Lyon' });
    expect(await paris.isVisible()).toBe(true);
    expect(await lyon.isVisible()).toBe(true);
    expect(await paris.innerText()).toBe('Paris');
    expect(await lyon.innerText()).toBe('Lyon');
    // Red for what was recorded, green for what was sent; the bubble itself is ringed.
    expect(await computedStyle(paris, 'backgroundColor')).toBe('rgb(255, 210, 207)');
    expect(await computedStyle(lyon, 'backgroundColor')).toBe('rgb(199, 240, 208)');
    expect(await computedStyle(highlighted.sent, 'boxShadow')).not.toBe('none');
    expect(await highlighted.sent.getByText('changed', { exact: true }).isVisible()).toBe(true);
    // Nothing else in this drift is highlighted.
    expect(await drift.locator('mark').count()).toBe(2);
  });

  test('renders the tool call as get_weather({"city":"Paris"}) and the tool result under its tool name', async () => {
    const { page } = await openReport();
    const sent = page.locator('#drift-0 td[data-side="sent"]');
    const call = sent.locator('.card.call .signature');
    expect(await call.count()).toBe(1);
    expect(await call.innerText()).toBe('get_weather({"city":"Paris"})');
    expect(await call.isVisible()).toBe(true);
    const result = sent.locator('.bubble.tool');
    expect(await result.innerText()).toMatch(/tool result\s+get_weather\s+call_7Qx2\s+\{"temperature_c":18,"sky":"light rain"\}/i);
    expect(await sent.locator('.bubble').evaluateAll((bubbles) => bubbles.map((bubble) => bubble.className.split(' ')[1]))).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
    ]);
  });

  test('marks the changed Anthropic system prompt, beside an unchanged tool_use card', async () => {
    const { page } = await openReport();
    const drift = page.locator('#drift-1');
    const recorded = drift.locator('td[data-side="recorded"] .bubble.system.diff mark');
    const sent = drift.locator('td[data-side="sent"] .bubble.system.diff mark');
    expect(await recorded.innerText()).toBe('one sentence');
    expect(await sent.innerText()).toBe('two sentences');
    expect(await sent.isVisible()).toBe(true);
    expect(await drift.locator('td[data-side="sent"] .signature').innerText()).toBe('search_flights({"from":"LYS","to":"FCO","date":"2025-06-13"})');
    expect(await drift.locator('td[data-side="sent"] .card.result').innerText()).toMatch(/result of\s+search_flights\s+toolu_01\s+AZ 351/);
  });

  test('says the embeddings request had no recording and shows only what was sent', async () => {
    const { page } = await openReport();
    const drift = page.locator('#drift-2');
    const note = drift.getByRole('note');
    expect(await note.isVisible()).toBe(true);
    expect(await note.innerText()).toContain('No recording to compare with. The tape holds no recording of POST /v1/embeddings (openai).');
    expect(await drift.locator('td[data-side="recorded"]').count()).toBe(0);
    expect(await drift.getByRole('columnheader').allInnerTexts()).toEqual(['Sent by this run']);
    expect(await drift.locator('td[data-side="sent"]').getByText('text-embedding-3-small').isVisible()).toBe(true);
  });

  test('saves a full-page screenshot as a PNG in test-output/', async () => {
    const { page } = await openReport();
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    const png = readFileSync(SCREENSHOT);
    expect(png.length).toBeGreaterThan(10_000);
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  });
});
