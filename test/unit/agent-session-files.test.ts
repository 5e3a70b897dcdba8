/**
 * findSessionId: the agent's own session id from its session files (SPEC §13), driven by each
 * kind's `[resume] session_files`. The trees below have the shapes of real files from the
 * pinned agents in the lab (names, first records, where the cwd is).
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAllRules, parseRules } from '../../src/agents/rules.js';
import { expandPath, findSessionId, idFromRecord, type AgentProcessFacts } from '../../src/agents/session-files.js';

const RULES = loadAllRules();
const specs = (kind: string) => RULES.get(kind)!.resume!.sessionFiles;
const U1 = '01a22f96-1bc4-71e2-b472-d9193b0a2467';
const U2 = 'c7902e81-589e-4c75-99f5-fe707e47952b';

let home: string;
let cwd: string;
const START = Date.now();

function put(path: string, text: string, mtime = START + 1000): void {
  const file = join(home, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  utimesSync(file, mtime / 1000, mtime / 1000);
}

function facts(over: Partial<AgentProcessFacts> = {}): AgentProcessFacts {
  return { pids: [4242, 4243], cwd, startedAt: START, env: { HOME: home }, claimed: new Set(), ...over };
}

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'corral-sessions-'));
  cwd = join(home, 'project');
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('session files per kind', () => {
  it('claude: the per-process file names the session', async () => {
    put('.claude/sessions/4242.json', JSON.stringify({ pid: 4242, sessionId: U1, cwd, kind: 'interactive' }));
    expect(await findSessionId(specs('claude'), facts())).toBe(U1);
  });

  it('claude: else the transcript named by the id whose records carry the cwd', async () => {
    put(`.claude/projects/-other/${U2}.jsonl`, `${JSON.stringify({ sessionId: U2, cwd: '/elsewhere' })}\n`);
    put(`.claude/projects/-project/${U1}.jsonl`, `${JSON.stringify({ type: 'user', sessionId: U1, cwd })}\n`);
    expect(await findSessionId(specs('claude'), facts())).toBe(U1);
  });

  it('codex: the rollout whose session_meta has the cwd, under CODEX_HOME, even when its first line is longer than the head read', async () => {
    const meta = (id: string, dir: string) =>
      `${JSON.stringify({ type: 'session_meta', payload: { session_id: id, id, cwd: dir, base_instructions: { text: 'x'.repeat(100_000) } } })}\n`;
    put(`codex-home/sessions/2026/12/01/rollout-2026-12-01T03-11-36-${U2}.jsonl`, meta(U2, '/elsewhere'));
    put(`codex-home/sessions/2026/12/01/rollout-2026-12-01T03-11-40-${U1}.jsonl`, meta(U1, cwd));
    expect(await findSessionId(specs('codex'), facts({ env: { HOME: home, CODEX_HOME: join(home, 'codex-home') } }))).toBe(U1);
    // Without CODEX_HOME: ~/.codex.
    expect(await findSessionId(specs('codex'), facts())).toBeNull();
  });

  it('gemini: the chat whose project directory has the cwd in .project_root', async () => {
    put('.gemini/tmp/project/.project_root', cwd);
    put('.gemini/tmp/project/chats/session-2026-12-01T03-12-ea770b2f.jsonl', `${JSON.stringify({ sessionId: U1, projectHash: 'c4c4', kind: 'main' })}\n{"$set":{}}\n`);
    put('.gemini/tmp/other/.project_root', '/elsewhere');
    put('.gemini/tmp/other/chats/session-2026-12-01T03-10-aaaaaaaa.jsonl', `${JSON.stringify({ sessionId: U2 })}\n`);
    expect(await findSessionId(specs('gemini'), facts())).toBe(U1);
  });

  it('qwen: the per-process file of its inner node (a descendant), else the chat named by the id', async () => {
    put('.qwen/sessions/4243.json', JSON.stringify({ pid: 4243, sessionId: U2, cwd }, null, 2));
    expect(await findSessionId(specs('qwen'), facts())).toBe(U2);
    rmSync(join(home, '.qwen/sessions'), { recursive: true });
    put(`.qwen/projects/-project/chats/${U1}.runtime.json`, '{}');
    put(`.qwen/projects/-project/chats/${U1}.jsonl`, `${JSON.stringify({ sessionId: U1, cwd, type: 'user' })}\n`);
    expect(await findSessionId(specs('qwen'), facts())).toBe(U1);
  });

  it('pi: the session file whose first record has the cwd', async () => {
    put(`.pi/agent/sessions/--project--/2026-12-01T03-13-42-323Z_${U1}.jsonl`, `${JSON.stringify({ type: 'session', version: 3, id: U1, cwd })}\n`);
    expect(await findSessionId(specs('pi'), facts())).toBe(U1);
  });

  it('kilo: the session created after the start that no other agent holds', async () => {
    put('data/kilo/storage/session_diff/ses_old000000000000000000000.json', '[]', START - 60_000);
    put('data/kilo/storage/session_diff/ses_first0000000000000000000.json', '[]', START + 1000);
    put('data/kilo/storage/session_diff/ses_second000000000000000000.json', '[]', START + 2000);
    const env = { HOME: home, XDG_DATA_HOME: join(home, 'data') };
    expect(await findSessionId(specs('kilo'), facts({ env }))).toBe('ses_first0000000000000000000');
    expect(await findSessionId(specs('kilo'), facts({ env, claimed: new Set(['ses_first0000000000000000000']) }))).toBe('ses_second000000000000000000');
  });
});

describe('opencode: sessions in SQLite, named in its log', () => {
  // Lines as opencode-ai 1.18.33 writes them to $XDG_DATA_HOME/opencode/log/opencode.log.
  const created = (time: number, id: string, dir: string) =>
    `timestamp=${new Date(time).toISOString()} level=INFO run=99e23301 message=created id=${id} slug=shiny-cabin version=1.18.33 projectID=global directory=${dir} path=${dir.slice(1)} workspaceID=undefined parentID=undefined title="New session - ${new Date(time).toISOString()}" agent=build`;
  const loop = (time: number, id: string) => `timestamp=${new Date(time).toISOString()} level=INFO run=99e23301 message=loop session.id=${id} step=0`;
  const env = () => ({ HOME: home, XDG_DATA_HOME: join(home, 'data') });

  it('takes the session created since the start in the cwd, the earliest no other agent holds', async () => {
    put(
      'data/opencode/log/opencode.log',
      [
        created(START - 60_000, 'ses_old0000000000000000000000', cwd),
        created(START + 1000, 'ses_elsewhere000000000000000', '/elsewhere'),
        created(START + 2000, 'ses_first00000000000000000000', cwd),
        loop(START + 2100, 'ses_first00000000000000000000'),
        created(START + 3000, 'ses_second0000000000000000000', cwd),
        '',
      ].join('\n'),
    );
    expect(await findSessionId(specs('opencode'), facts({ env: env() }))).toBe('ses_first00000000000000000000');
    expect(await findSessionId(specs('opencode'), facts({ env: env(), claimed: new Set(['ses_first00000000000000000000']) }))).toBe('ses_second0000000000000000000');
    // Its default place: ~/.local/share without XDG_DATA_HOME.
    expect(await findSessionId(specs('opencode'), facts())).toBeNull();
  });

  it('no session yet: only older ones in the log (a new opencode before its first prompt)', async () => {
    put('data/opencode/log/opencode.log', `${created(START - 60_000, 'ses_old0000000000000000000000', cwd)}\n${loop(START + 500, 'ses_old0000000000000000000000')}\n`);
    expect(await findSessionId(specs('opencode'), facts({ env: env() }))).toBeNull();
  });

  it('a quoted directory (spaces) is read as the cwd; a long log is read from its end', async () => {
    cwd = join(home, 'my project');
    const filler = `${loop(START - 60_000, 'ses_old0000000000000000000000')}\n`.repeat(4000);
    put('data/opencode/log/opencode.log', `${filler}${created(START + 2000, 'ses_spaced000000000000000000', JSON.stringify(cwd))}\n`);
    expect(await findSessionId(specs('opencode'), facts({ env: env() }))).toBe('ses_spaced000000000000000000');
  });
});

describe('choosing among files', () => {
  it('skips files untouched since before the start, takes an old session written since (resumed)', async () => {
    put(`.pi/agent/sessions/--p--/a_${U1}.jsonl`, `${JSON.stringify({ type: 'session', id: U1, cwd })}\n`, START - 3_600_000);
    expect(await findSessionId(specs('pi'), facts())).toBeNull();
    put(`.pi/agent/sessions/--p--/a_${U1}.jsonl`, `${JSON.stringify({ type: 'session', id: U1, cwd })}\n`, START + 500);
    expect(await findSessionId(specs('pi'), facts())).toBe(U1);
  });

  it('never gives an id that is not a plain word (no option look-alike, no control characters)', async () => {
    put('.claude/sessions/4242.json', JSON.stringify({ sessionId: '--dangerously-skip-permissions' }));
    put('.claude/sessions/4243.json', JSON.stringify({ sessionId: 'x\x1b[2J' }));
    expect(await findSessionId(specs('claude'), facts())).toBeNull();
  });

  it('is null where nothing is (no directory, unreadable JSON)', async () => {
    expect(await findSessionId(specs('gemini'), facts())).toBeNull();
    put('.claude/sessions/4242.json', '{not json');
    expect(await findSessionId(specs('claude'), facts())).toBeNull();
  });
});

describe('helpers', () => {
  it('expands ~, $NAME and ${NAME:-default} from the agent environment', () => {
    expect(expandPath('~/.x', { HOME: '/h' })).toBe('/h/.x');
    expect(expandPath('${CODEX_HOME:-~/.codex}/s', { HOME: '/h' })).toBe('/h/.codex/s');
    expect(expandPath('${CODEX_HOME:-~/.codex}/s', { HOME: '/h', CODEX_HOME: '/c' })).toBe('/c/s');
    expect(expandPath('$XDG_DATA_HOME/k', { XDG_DATA_HOME: '/d' })).toBe('/d/k');
  });

  it('reads a dotted key of the first record', () => {
    expect(idFromRecord('{"payload":{"id":"abc"}}\n{}', 'payload.id')).toBe('abc');
    expect(idFromRecord('{\n  "sessionId": "abc"\n}', 'sessionId')).toBe('abc');
    expect(idFromRecord('{"payload":{"session_id":"s","id":"abc","text":"cut', 'payload.id')).toBe('abc');
  });

  it('rejects malformed session_files naming the key', () => {
    const base = `kind = "demo"\n[[rule]]\nid = "w"\nstate = "working"\npriority = 1\nregion = "bottom:2"\ncontains = "x"\n[resume]\nargs = ["--resume", "{id}"]\nid_from = "files"\n`;
    expect(parseRules(`${base}session_files = [{ path = "~/s/{id}.json" }]\n`, 'demo.toml').resume!.sessionFiles).toEqual([{ path: '~/s/{id}.json', idKey: null, cwdIn: 'content' }]);
    expect(parseRules(`${base}session_files = [{ path = "~/log", line = '^(?<time>\\S+) (?<id>\\S+)' }]\n`, 'demo.toml').resume!.sessionFiles).toEqual([{ path: '~/log', idKey: null, cwdIn: 'none', line: /^(?<time>\S+) (?<id>\S+)/ }]);
    for (const bad of ['session_files = "x"', 'session_files = [{ path = "rel/{id}" }]', 'session_files = [{ path = "~/s/x.json" }]', 'session_files = [{ path = "~/{pid}/{id}" }]', 'session_files = [{ path = "~/{id}", cwd_in = "a/b" }]', 'session_files = [{ path = "~/{id}", extra = 1 }]', 'session_files = [{ path = "~/log", line = "id=(?<id>\\\\S+)" }]', 'session_files = [{ path = "~/log", line = "(?<id>x" }]', 'session_files = [{ path = "~/{id}.log", line = "(?<time>\\\\S+) (?<id>\\\\S+)" }]', 'session_files = [{ path = "~/log", line = "(?<time>\\\\S+) (?<id>\\\\S+)", id_key = "x" }]']) {
      expect(() => parseRules(`${base}${bad}\n`, 'demo.toml'), bad).toThrow(/session_files/);
    }
  });
});
