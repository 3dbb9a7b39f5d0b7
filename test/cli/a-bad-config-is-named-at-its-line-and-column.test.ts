import { writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

const modeltape = runMain;

describe('a bad modeltape.config.json', () => {
  const dir = tempDir();
  // The config is read before any tape, so the tape need not be one.
  const rekeyWith = async (config: string): Promise<{ code: number; stderr: string }> => {
    writeFileSync(`${dir}/any.jsonl`, '');
    return modeltape(['rekey', `${dir}/any.jsonl`, '--config', config]);
  };

  test('with a JSON syntax error is named at the real line and column, with the fix', async () => {
    const config = `${dir}/unquoted.config.json`;
    writeFileSync(config, '{\n  "_note": "volatile fields",\n  normalizers: [{ "path": ".metadata.request_id" }]\n}\n');
    const result = await rekeyWith(config);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      [
        `modeltape: Config file ${config} is not valid JSON:`,
        `  ${config}:3:3: the property name normalizers is not in double quotes`,
        '    3 |   normalizers: [{ "path": ".metadata.request_id" }]',
        '      |   ^',
        'Put the property name in double quotes: "normalizers".',
        '',
      ].join('\n'),
    );
  });

  test('with a pattern whose backslash is not escaped points at the backslash', async () => {
    const config = `${dir}/escape.config.json`;
    writeFileSync(config, '{\n  "normalizers": [\n    { "pattern": "\\d{4}-\\d{2}-\\d{2}", "placeholder": "<date>" }\n  ]\n}\n');
    const { code, stderr } = await rekeyWith(config);
    expect(code).toBe(1);
    expect(stderr).toContain(`${config}:3:19: invalid escape \\d`);
    expect(stderr).toContain('(a pattern\'s \\d is "\\\\d")');
  });

  test('with a trailing comma points at the comma', async () => {
    const config = `${dir}/comma.config.json`;
    writeFileSync(config, '{\n  "keyHeaders": ["openai-beta", "anthropic-version",]\n}\n');
    const { stderr } = await rekeyWith(config);
    expect(stderr).toContain(`${config}:2:52: a comma before "]"`);
    expect(stderr).toContain('Remove the trailing comma.');
  });

  test('that does not fit the schema names each bad field at its own line and column, in file order', async () => {
    const config = `${dir}/schema.config.json`;
    writeFileSync(
      config,
      [
        '{',
        '  "normalizers": [',
        '    { "path": ".metadata.request_id" },',
        '    { "pathh": ".user", "placeholder": 3 }',
        '  ],',
        '  "upstreams": { "vllm": 8000 }',
        '}',
        '',
      ].join('\n'),
    );
    const { code, stderr } = await rekeyWith(config);
    expect(code).toBe(1);
    const located = stderr.split('\n').filter((line) => line.startsWith(`  ${config}:`));
    expect(located).toEqual([
      `  ${config}:4:7: unknown field ".normalizers[1].pathh" in config; did you mean ".normalizers[1].path"? (Fields starting with "_" are notes and allowed anywhere.)`,
      `  ${config}:4:40: ".normalizers[1].placeholder" must be string (found 3)`,
      `  ${config}:6:26: ".upstreams.vllm" must be string (found 8000)`,
    ]);
    expect(stderr).toContain(`Config file ${config} has 3 problems:`);
    expect(stderr).toContain('    4 |     { "pathh": ".user", "placeholder": 3 }\n      |       ^');
    expect(stderr.trimEnd().split('\n').at(-1)).toMatch(/^Fix the fields named above .*, or pass another file with --config\.$/);
  });

  test('with a pattern that is no regular expression, or a credential as a key header, names the value', async () => {
    const config = `${dir}/meaning.config.json`;
    writeFileSync(config, '{\n  "normalizers": [{ "pattern": "(unclosed" }],\n  "keyHeaders": ["openai-beta", "Authorization"]\n}\n');
    const { stderr } = await rekeyWith(config);
    expect(stderr).toContain(`  ${config}:2:32: ".normalizers[0].pattern": an invalid pattern "(unclosed": Invalid regular expression`);
    expect(stderr).toContain(`  ${config}:3:33: ".keyHeaders[1]": "Authorization" carries a credential`);
  });

  test('that misses a required field is named at the object that misses it', async () => {
    const config = `${dir}/missing.config.json`;
    writeFileSync(config, '{\n  "normalizers": [\n    { "placeholder": "<id>" }\n  ]\n}\n');
    const { stderr } = await rekeyWith(config);
    expect(stderr).toContain(`  ${config}:3:5: ".normalizers[0]" must hold exactly one of path, pattern`);
  });
});
