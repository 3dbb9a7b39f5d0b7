import { existsSync } from 'node:fs';
import { afterEach, describe, expect, test } from 'vitest';
import { RecordInCiError, isCi, startProxy, type RunningProxy } from 'modeltape/proxy';
import { startStandInUpstream } from '../support/stand-in-upstream.js';
import { tempDir } from '../support/temp-dir.js';

describe('recording where CI is set', () => {
  const dir = tempDir();
  let proxy: RunningProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  test.each(['record', 'auto'] as const)('refuses --mode %s before any request goes upstream, and creates no tape', async (mode) => {
    const standIn = await startStandInUpstream();
    const tape = `${dir}/ci-${mode}.jsonl`;
    const attempt = startProxy({ tape, mode, env: { CI: 'true' }, upstreams: { openai: standIn.url } });
    await expect(attempt).rejects.toBeInstanceOf(RecordInCiError);
    await expect(attempt).rejects.toThrow(/Refusing to record.*in CI \(CI="true"\).*--allow-record-in-ci/s);
    expect(existsSync(tape)).toBe(false);
    expect(standIn.connections()).toBe(0);
    await standIn.close();
  });

  test('records with allowRecordInCi, and replay is always allowed', async () => {
    const tape = `${dir}/ci-allowed.jsonl`;
    proxy = await startProxy({ tape, mode: 'record', env: { CI: '1' }, allowRecordInCi: true });
    expect(proxy.options.mode).toBe('record');
    await proxy.close();
    // Nothing was recorded, so there is no tape: replay it as an empty one.
    proxy = await startProxy({ tape, mode: 'replay', env: { CI: 'true' }, missingTape: 'empty' });
    expect(proxy.options.mode).toBe('replay');
  });

  test('treats CI as set unless it is empty, 0 or false', () => {
    expect(isCi({ CI: 'true' })).toBe(true);
    expect(isCi({ CI: '1' })).toBe(true);
    expect(isCi({ CI: 'woodpecker' })).toBe(true);
    expect(isCi({ CI: '' })).toBe(false);
    expect(isCi({ CI: '0' })).toBe(false);
    expect(isCi({ CI: 'false' })).toBe(false);
    expect(isCi({ CI: 'FALSE' })).toBe(false);
    expect(isCi({})).toBe(false);
  });

  test('an invalid mode is refused with the list of valid modes', async () => {
    await expect(startProxy({ tape: `${dir}/x.jsonl`, mode: 'recrod' as never })).rejects.toThrow(
      'Invalid proxy mode "recrod": expected one of replay, record, auto, passthrough',
    );
    await expect(startProxy({ tape: `${dir}/x.jsonl`, repeat: 'always' as never })).rejects.toThrow(
      'Invalid repeat policy "always": expected one of none, last',
    );
    await expect(startProxy({ tape: `${dir}/x.jsonl`, pace: 'slow' as never })).rejects.toThrow('Invalid pace "slow": expected one of instant, recorded');
  });

  test('replay of a tape that does not exist says how to record it', async () => {
    // On a developer's machine, and in CI, which only replays.
    await expect(startProxy({ tape: `${dir}/missing.jsonl`, env: {} })).rejects.toThrow(
      /does not exist\. Record it first: modeltape run --tape .*missing\.jsonl --mode record/,
    );
    await expect(startProxy({ tape: `${dir}/missing.jsonl`, env: { CI: 'true' } })).rejects.toThrow(
      /does not exist\. CI only replays: record it on your machine with modeltape run --tape .*missing\.jsonl --mode record -- <your command>, then commit the tape\./,
    );
  });
});
