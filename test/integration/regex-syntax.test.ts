/**
 * The seed's regex syntax (Rust regex, here RE2) for every regex over pane text, through the
 * real CLI against real bash panes: `pane wait-output --regex`, `search --regex`,
 * `wait --pattern`, a flow's `ready.pattern` — and the regex bomb that froze the server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestServer } from './harness.js';

describe('regexes over pane text use the seed syntax (RE2)', () => {
  let server: TestServer;
  let pane: string;
  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
    const created = await server.json(['workspace', 'create', '--cwd', server.home]);
    pane = created.result.root_pane.pane_id;
    // A script prints the lines, so the command line the terminal echoes never matches.
    writeFileSync(join(server.home, 'report.sh'), "printf 'tests: 3 passed, 12 passed\\ncode 2024\\nLAST-LINE-END\\n'\n");
    await server.cli(['pane', 'run', pane, 'bash report.sh']);
    const ready = await server.cli(['pane', 'wait-output', pane, '--regex', '^LAST-LINE-END$', '--timeout', '10000']);
    expect(ready.code, ready.stderr).toBe(0);
  });
  afterAll(async () => {
    await server.stop();
  });

  const waitOutput = async (regex: string) => {
    const result = await server.cli(['pane', 'wait-output', pane, '--regex', regex, '--timeout', '5000']);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout).result.matched_line as string;
  };
  const search = async (regex: string) => {
    const result = await server.cli(['search', pane, regex, '--regex', '--json']);
    expect(result.code, result.stderr).toBe(0);
    return (JSON.parse(result.stdout).matches as Array<{ text: string }>).map((m) => m.text);
  };

  it('(?i) makes the match case-insensitive', async () => {
    expect(await waitOutput('(?i)3 PASSED')).toBe('tests: 3 passed, 12 passed');
    expect(await search('(?i)^TESTS: 3 PASSED')).toEqual(['tests: 3 passed, 12 passed']);
  });

  it('(?P<name>…) named groups compile and match', async () => {
    expect(await waitOutput('(?P<n>\\d+) passed')).toBe('tests: 3 passed, 12 passed');
    expect(await search('^code (?P<year>\\d{4})$')).toEqual(['code 2024']);
  });

  it('POSIX classes like [[:digit:]] match', async () => {
    expect(await waitOutput('^code [[:digit:]]+$')).toBe('code 2024');
    expect(await search('^code [[:digit:]]{4}$')).toEqual(['code 2024']);
  });

  it('\\z anchors at the end of the line', async () => {
    expect(await waitOutput('LINE-END\\z')).toBe('LAST-LINE-END');
    expect(await search('^LAST-LINE-END\\z')).toEqual(['LAST-LINE-END']);
  });

  it('wait --pattern speaks the same syntax for output that appears after it began', async () => {
    const waiting = server.cli(['wait', '--match', pane, '--pattern', '(?i)^LATER [[:digit:]]+ DONE\\z', '--timeout', '10', '--json']);
    // The wait reads its baseline first (the same way as conductor.test.ts); the line follows.
    writeFileSync(join(server.home, 'later.sh'), "sleep 0.5; printf 'later %d done\\n' 7\n");
    await server.cli(['pane', 'run', pane, 'bash later.sh']);
    const result = await waiting;
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).matches[0].lines).toEqual(['later 7 done']);
  });

  it('a flow ready.pattern speaks the same syntax and is checked before anything runs', async () => {
    const good = join(server.home, 'rust-syntax.toml');
    writeFileSync(
      good,
      [
        'name = "rx"',
        '[[step]]',
        'id = "p"',
        'pane = { command = "printf \'%s OK\\\\n\' BUILD; sleep 60" }',
        'ready = { pattern = "(?i)^build [[:upper:]]{2}\\\\z", timeout_secs = 20 }',
      ].join('\n'),
    );
    const run = await server.cli(['flow', 'run', good, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).status).toBe('ready');
    const bad = join(server.home, 'lookahead.toml');
    writeFileSync(bad, '[[step]]\nid = "p"\npane = {}\nready = { pattern = "a(?=b)", timeout_secs = 5 }\n');
    const refused = await server.cli(['flow', 'run', bad]);
    expect(refused.code).not.toBe(0);
    expect(JSON.parse(refused.stderr).error.message).toMatch(/:4: key "pattern" in ready of \[\[step\]\] "p": invalid regex "a\(\?=b\)": invalid perl operator: \(\?=/);
  });

  it('a pattern RE2 does not support is invalid_regex with RE2\'s reason, from every verb', async () => {
    const refusal = async (args: string[]) => {
      const result = await server.cli(args);
      expect(result.code).not.toBe(0);
      return JSON.parse(result.stderr).error as { code: string; message: string };
    };
    const searched = await refusal(['search', pane, '(a)\\1', '--regex']);
    expect(searched.code).toBe('invalid_regex');
    expect(searched.message).toMatch(/^invalid regex "\(a\)\\\\1": invalid escape sequence: \\1 \(RE2 syntax/);
    const waited = await refusal(['pane', 'wait-output', pane, '--regex', 'x(?<=y)', '--timeout', '1000']);
    expect(waited.code).toBe('invalid_regex');
    expect(waited.message).toContain('invalid perl operator: (?<');
    const waitPattern = await refusal(['wait', '--match', pane, '--pattern', '(', '--timeout', '1']);
    expect(waitPattern.code).toBe('invalid_regex');
    expect(waitPattern.message).toMatch(/^invalid --pattern "\(": missing \)/);
  });

  it('--help of every verb that takes a regex names the syntax', async () => {
    for (const verb of [['search'], ['pane', 'wait-output'], ['wait']]) {
      const help = await server.cli([...verb, '--help']);
      expect(help.stdout.replace(/\s+/g, ' '), verb.join(' ')).toContain("RE2 syntax, as Rust's regex crate: (?i), (?P<name>…), [[:digit:]], \\z");
    }
  });

  it('regex bomb: ^(d+)+$ over a long line answers at once and never stalls another client', async () => {
    await server.cli(['pane', 'run', pane, "printf 'd%.0s' $(seq 3000); printf 'x\\nBOMB-READY\\n'"]);
    await waitOutput('^BOMB-READY$');
    const bomber = await server.connect();
    const other = await server.connect();
    try {
      // A backtracking engine would not answer before the test's timeout (and would stall `other`).
      const bomb = bomber.call('surface.search', { target: pane, pattern: '^(d+)+$', regex: true });
      // wait-output reads wrapped rows: 80 d's per row, none followed by y (exponential for a backtracker).
      const waitBomb = bomber.request('pane.wait_for_output', { pane_id: pane, match: { type: 'regex', value: '^(d+)+y$' }, timeout_ms: 300 });
      const status = await other.call('surface.status', { target: pane });
      expect(status.pane_id).toBe(pane);
      expect((await bomb).matches).toEqual([]);
      expect((await waitBomb).error.data.code).toBe('timeout');
    } finally {
      bomber.close();
      other.close();
    }
    // And through the CLI.
    const searched = await server.cli(['search', pane, '^(d+)+$', '--regex', '--json']);
    expect(searched.code, searched.stderr).toBe(0);
    expect(JSON.parse(searched.stdout).matches).toEqual([]);
    expect((await server.cli(['pane', 'wait-output', pane, '--regex', '^(d+)+y$', '--timeout', '300'])).code).toBe(4);
  }, 30_000);
});
