/**
 * What agents spend (SPEC §18): each lab kind's `[usage]` read on real records captured in the
 * lab against corral's scripted model (test/fixtures/agents/<kind>/session-*.jsonl, and
 * usage.db for the two that keep SQLite), where every main call reports the same counts: a
 * turn of n calls must add up to n times them, each call once even where the record repeats
 * it (Claude writes a message once per content block, Gemini re-writes a reply with its tool
 * calls). Also: the incremental reader, the read-only SQLite reader, and the schema's errors.
 */
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { loadAllRules, parseRules, RuleFileError } from '../../src/agents/rules.js';
import { JsonlTail } from '../../src/agents/session-usage.js';
import { compactTokens, usageSummary } from '../../src/contract/usage-format.js';
import { UsageSource } from '../../src/agents/usage-source.js';
import { sqliteRecords } from '../../src/agents/sqlite-records.js';

const RULES = loadAllRules();
const FIXTURES = join(import.meta.dirname, '../fixtures/agents');

/** What the scripted model reports per main call, by the API each kind speaks in the lab. */
const PER_CALL: Record<string, { input: number; output: number }> = {
  claude: { input: 10, output: 30 },
  codex: { input: 10, output: 20 },
  gemini: { input: 10, output: 5 },
  qwen: { input: 10, output: 20 },
  pi: { input: 10, output: 20 },
  opencode: { input: 10, output: 30 },
  kilo: { input: 10, output: 20 },
};

function sourceFor(kind: string, file: string, session = ''): UsageSource {
  const rules = RULES.get(kind)!;
  expect(rules.usage, `${kind}.toml has [usage]`).toBeTruthy();
  return new UsageSource(rules, rules.usage!.sqlite ? { kind: 'sqlite', file, session } : { kind: 'record', file });
}

describe('usage from real records', () => {
  const JSONL = ['claude', 'codex', 'gemini', 'qwen', 'pi'];
  for (const kind of JSONL) {
    it(`${kind}: one text turn is one call`, () => {
      const source = sourceFor(kind, join(FIXTURES, kind, 'session-answer.jsonl'));
      expect(source.refresh()).toBe(true);
      const { input, output } = PER_CALL[kind]!;
      const usage = source.usage();
      expect({ in: usage.input + usage.cache_read + usage.cache_write, out: usage.output, calls: usage.calls }).toEqual({ in: input, out: output, calls: 1 });
      expect(usage.total).toBe(input + output);
      expect(usage.context_tokens).toBe(input);
      const turns = source.turns();
      expect(turns.map((t) => [t.turn, t.prompt, t.calls, t.total])).toEqual([[1, 'Say hello please', 1, input + output]]);
      expect(turns[0]!.started_at).toEqual(expect.any(Number));
    });

    it(`${kind}: a text turn, then a turn that ran a tool (two calls), each call once`, () => {
      const source = sourceFor(kind, join(FIXTURES, kind, 'session-tool.jsonl'));
      source.refresh();
      const { input, output } = PER_CALL[kind]!;
      const usage = source.usage();
      expect(usage.calls).toBe(3);
      expect(usage.input + usage.cache_read + usage.cache_write).toBe(3 * input);
      expect(usage.output).toBe(3 * output);
      expect(source.turns().map((t) => [t.turn, t.calls, t.input + t.cache_read + t.cache_write, t.output])).toEqual([
        [1, 1, input, output],
        [2, 2, 2 * input, 2 * output],
      ]);
    });
  }

  it('claude: the repeated lines of one message are one call (the fixture has one)', () => {
    const lines = readFileSync(join(FIXTURES, 'claude', 'session-tool.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; message?: { id?: string } });
    const ids = lines.filter((r) => r.type === 'assistant').map((r) => r.message!.id);
    expect(ids.length).toBeGreaterThan(new Set(ids).size);
  });

  it('codex: the context window comes from the record; claude and gemini from their rule files', () => {
    const codex = sourceFor('codex', join(FIXTURES, 'codex', 'session-tool.jsonl'));
    codex.refresh();
    expect(codex.usage().context_window).toBe(258400);
    const claude = sourceFor('claude', join(FIXTURES, 'claude', 'session-tool.jsonl'));
    claude.refresh();
    expect(claude.usage().context_window).toBe(200000);
    expect(usageSummary({ ...claude.usage(), total: 48_000, context_tokens: 62_000 })).toBe('48k · ctx 31%');
  });

  it('pi: the cost its record carries; kinds whose record has none have no cost_usd', () => {
    const pi = sourceFor('pi', join(FIXTURES, 'pi', 'session-tool.jsonl'));
    pi.refresh();
    expect(pi.usage().cost_usd).toBe(0);
    const qwen = sourceFor('qwen', join(FIXTURES, 'qwen', 'session-tool.jsonl'));
    qwen.refresh();
    expect(qwen.usage()).not.toHaveProperty('cost_usd');
  });

  for (const [kind, session] of [
    ['opencode', 'ses_daf6ac017ffeDuFfyny70C2gRb'],
    ['kilo', 'ses_daf6a4159ffe35NHXpEXSh5FOZ'],
  ] as const) {
    it(`${kind}: from its SQLite store, one step-finish per call, turns by its user messages`, () => {
      const source = sourceFor(kind, join(FIXTURES, kind, 'usage.db'), session);
      expect(source.refresh()).toBe(true);
      const { input, output } = PER_CALL[kind]!;
      const usage = source.usage();
      expect({ calls: usage.calls, input: usage.input, output: usage.output, cost: usage.cost_usd }).toEqual({ calls: 3, input: 3 * input, output: 3 * output, cost: 0 });
      expect(source.turns().map((t) => [t.turn, t.prompt, t.calls])).toEqual([
        [1, '"hello there"', 1],
        [2, '"RUNTOOL please"', 2],
      ]);
      // Nothing changed: nothing read again.
      expect(source.refresh()).toBe(false);
    });

    it(`${kind}: another session's id reads nothing`, () => {
      const source = sourceFor(kind, join(FIXTURES, kind, 'usage.db'), 'ses_other');
      source.refresh();
      expect(source.usage().calls).toBe(0);
    });
  }

  it('every lab kind has [usage] and interrupt keys; a kind without [usage] has none', () => {
    for (const kind of Object.keys(PER_CALL)) {
      expect(RULES.get(kind)!.usage, kind).not.toBeNull();
      expect(RULES.get(kind)!.interruptKeys.length, kind).toBeGreaterThan(0);
    }
    expect(RULES.get('generic')!.usage).toBeNull();
  });
});

describe('reading records as they grow', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'corral-usage-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads only appended lines, waits for a line to end, and starts over when the file is replaced', () => {
    const file = join(dir, 's.jsonl');
    const lines = readFileSync(join(FIXTURES, 'claude', 'session-tool.jsonl'), 'utf8').split('\n').filter(Boolean);
    writeFileSync(file, lines.slice(0, 8).join('\n') + '\n');
    const source = sourceFor('claude', file);
    source.refresh();
    expect(source.usage().calls).toBe(1);
    const rest = lines.slice(8).join('\n') + '\n';
    appendFileSync(file, rest.slice(0, 40));
    expect(source.usage().calls).toBe(1);
    source.refresh();
    appendFileSync(file, rest.slice(40));
    source.refresh();
    expect(source.usage().calls).toBe(3);
    expect(source.refresh()).toBe(false);
    writeFileSync(file, lines.slice(0, 8).join('\n') + '\n');
    expect(source.refresh()).toBe(true);
    expect(source.usage().calls).toBe(1);
  });

  it('a line that is not JSON, or counts that are not numbers, count nothing', () => {
    const tail = new JsonlTail(join(dir, 'x.jsonl'));
    expect(tail.read()).toBeNull();
    writeFileSync(join(dir, 'x.jsonl'), 'not json\n{"type":"assistant","message":{"id":"m","usage":{"input_tokens":"lots","output_tokens":-5}}}\n');
    const source = sourceFor('claude', join(dir, 'x.jsonl'));
    source.refresh();
    expect(source.usage().calls).toBe(0);
  });

  it('SQLite: read-only, never creates a database, and reads beside a writer holding a WAL transaction', () => {
    expect(sqliteRecords(join(dir, 'missing.db'), 'SELECT 1', 's')).toBeNull();
    expect(() => readFileSync(join(dir, 'missing.db'))).toThrow();
    const db = join(dir, 'opencode.db');
    copyFileSync(join(FIXTURES, 'opencode', 'usage.db'), db);
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (f: string) => { pragma(s: string): unknown; exec(s: string): void; close(): void };
    const writer = new Database(db);
    writer.pragma('journal_mode = WAL');
    writer.exec('BEGIN IMMEDIATE');
    writer.exec(`INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_zzz', 'msg_x', 'ses_daf6ac017ffeDuFfyny70C2gRb', 1, 1, '{"type":"step-finish","tokens":{"input":1,"output":1,"reasoning":0,"cache":{"read":0,"write":0}},"cost":0}')`);
    const started = Date.now();
    const source = sourceFor('opencode', db, 'ses_daf6ac017ffeDuFfyny70C2gRb');
    source.refresh();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(source.usage().calls).toBe(3);
    writer.exec('COMMIT');
    // A write the reader's connection must not be able to make.
    expect(sqliteRecords(db, "DELETE FROM part RETURNING id", 's')).toBeNull();
    writer.close();
    const after = sourceFor('opencode', db, 'ses_daf6ac017ffeDuFfyny70C2gRb');
    after.refresh();
    expect(after.usage().calls).toBe(4);
  });

  it('compact counts', () => {
    expect([950, 1500, 48_000, 1_200_000].map(compactTokens)).toEqual(['950', '1.5k', '48k', '1.2M']);
  });
});

describe('[usage] schema', () => {
  const base = 'kind = "demo"\nverified_with = "x"\n';
  const issues = (text: string): string[] => {
    try {
      parseRules(text, 'demo.toml');
      return [];
    } catch (err) {
      return (err as RuleFileError).issues.map((i) => i.message).filter((m) => !m.includes('no [[rule]] entries'));
    }
  };

  it('names the file, line and key of each problem', () => {
    expect(issues(`${base}[usage]\nsqlite = "x.db"\nquery = "SELECT 1"\nmatch = { kind = "call" }\ninput = "a"\noutput = "b"\nbogus = 1\n`)).toEqual(['demo.toml:9: unknown key "bogus" in [usage]']);
    expect(issues(`${base}[usage]\nsqlite = "x.db"\nquery = "DELETE FROM t"\nmatch = { kind = "call" }\ninput = "a"\noutput = "b"\n`)[0]).toMatch(/demo.toml:5: key "query" must be a SELECT/);
    expect(issues(`${base}[usage]\nmatch = { type = "a" }\ninput = "a..b"\noutput = "b"\n`).join('\n')).toMatch(/bad record path "a\.\.b"/);
    expect(issues(`${base}[usage]\nmatch = { type = "a" }\ninput = "a"\noutput = "b"\n`).join('\n')).toMatch(/needs \[answer_session\]/);
    expect(issues(`${base}[keys]\ninterrupt = "esc"\n`).join('\n')).toMatch(/demo.toml:4: key "interrupt" must be a list/);
  });
});
