/**
 * `agent read --answer` (issue 29): each kind's `[answer_session]` read on a real session file
 * captured in the lab (test/fixtures/agents/<kind>/session-answer.jsonl, from
 * test/agents/answer.live.test.ts with CORRAL_ANSWER_CAPTURE), each kind's `[answer_screen]` on
 * its real done screen (done-text-turn.txt), the record path language, the session record
 * finder, and the schema's file:line:key errors.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAllRules, parseRules, RuleFileError } from '../../src/agents/rules.js';
import { parseRecordPath, textsAt } from '../../src/agents/record-path.js';
import { findSessionRecord, readTail, recordsOf, SESSION_ANSWER_LIMITS, sessionTurns, turnsOf } from '../../src/agents/session-answers.js';
import { answersFromScreen, cleanAnswerRows } from '../../src/agents/screen-answer.js';

const RULES = loadAllRules();
const FIXTURES = join(import.meta.dirname, '../fixtures/agents');
const ANSWER = [
  'Here is a slowly streamed answer from the fake model.',
  'Line two of the answer arrives a bit later.',
  'Line three: still streaming, the agent should look busy.',
  'Line four: chunks keep coming over a few seconds.',
  'Line five: almost there.',
  'Final line: Done.',
].join('\n');

describe('answers from real session records', () => {
  for (const kind of ['claude', 'codex', 'gemini', 'qwen', 'pi']) {
    it(`${kind}: one turn, the prompt typed and the model's six lines`, async () => {
      const spec = RULES.get(kind)!.answerSession!;
      expect(spec, `${kind}.toml has [answer_session]`).toBeTruthy();
      const turns = await sessionTurns(join(FIXTURES, kind, 'session-answer.jsonl'), spec);
      expect(turns).toEqual([{ prompt: 'Say hello please', answer: ANSWER }]);
    });
  }

  for (const kind of ['claude', 'codex', 'gemini', 'qwen', 'pi']) {
    it(`${kind}: two turns, the second ran a tool (approved): the model's words only, no tool call or output`, async () => {
      const spec = RULES.get(kind)!.answerSession!;
      const turns = await sessionTurns(join(FIXTURES, kind, 'session-tool.jsonl'), spec);
      expect(turns).toEqual([
        { prompt: 'Say hello please', answer: ANSWER },
        { prompt: 'Please RUNTOOL now', answer: 'I will use a tool now.\n\nThe command finished. All done.' },
      ]);
    });
  }

  it('gemini: without record_id its re-written reply would count twice', async () => {
    const spec = RULES.get('gemini')!.answerSession!;
    const text = readFileSync(join(FIXTURES, 'gemini', 'session-tool.jsonl'), 'utf8');
    const turns = turnsOf(recordsOf(text, { ...spec, recordId: null }, false), { ...spec, recordId: null });
    expect(turns[1]!.answer.split('I will use a tool now.').length - 1).toBe(2);
  });

  it('claude: tool results are no prompt, tool calls no text, sidechains and meta records left out', () => {
    const spec = RULES.get('claude')!.answerSession!;
    const records = [
      { type: 'user', message: { role: 'user', content: 'Run it' } },
      { type: 'assistant', message: { content: [{ type: 'text', text: 'Running it.' }, { type: 'tool_use', name: 'Bash', input: { command: 'ls' } }] } },
      { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', content: 'a.txt' }] } },
      { type: 'assistant', isSidechain: true, message: { content: [{ type: 'text', text: 'a subagent' }] } },
      { type: 'user', isMeta: true, message: { role: 'user', content: '<local-command-caveat>' } },
      { type: 'assistant', message: { content: [{ type: 'text', text: 'It listed a.txt.' }] } },
    ];
    expect(turnsOf(records, spec)).toEqual([{ prompt: 'Run it', answer: 'Running it.\n\nIt listed a.txt.' }]);
  });

  it('codex: its own context messages are no turns; several turns, oldest first', () => {
    const spec = RULES.get('codex')!.answerSession!;
    const lines = readFileSync(join(FIXTURES, 'codex', 'session-answer.jsonl'), 'utf8');
    const twice = lines + lines.replaceAll('Say hello please', 'Say hello again').replaceAll('Final line: Done.', 'Final line: Done again.');
    const turns = turnsOf(recordsOf(twice, spec, false), spec);
    expect(turns.map((t) => t.prompt)).toEqual(['Say hello please', 'Say hello again']);
    expect(turns[1]!.answer.endsWith('Final line: Done again.')).toBe(true);
  });

  it('control characters in a record are made visible; line breaks and tabs stay', () => {
    const spec = RULES.get('pi')!.answerSession!;
    const records = [
      { type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'Hi' }] } },
      { type: 'message', message: { role: 'assistant', content: [{ type: 'text', text: 'a\x1b]52;c;cHduZWQ=\x07b\r\n\tc\x03\x9b' }] } },
    ];
    expect(turnsOf(records, spec)[0]!.answer).toBe('a^[]52;c;cHduZWQ=^Gb\n\tc^C\\x9b');
  });

  it('format = "json": one document, its records where `records` says (an older Gemini chat file)', () => {
    const spec = parseRules(
      ['kind = "x"', '[[rule]]', 'id = "r"', 'state = "idle"', 'priority = 1', 'region = "bottom:1"', 'contains = "x"', '[resume]', 'args = ["--resume", "{id}"]', 'id_from = "f"', 'session_files = [{ path = "~/.x/{id}.json" }]', '[answer_session]', 'format = "json"', 'records = "messages"', 'prompt = { match = { type = "user" }, text = "content[].text" }', 'reply = { match = { type = "gemini" }, text = "content" }'].join('\n'),
      'x.toml',
    ).answerSession!;
    const document = JSON.stringify({ sessionId: 's', messages: [{ type: 'user', content: [{ text: 'Hi' }] }, { type: 'gemini', content: 'Hello' }] }, null, 2);
    expect(turnsOf(recordsOf(document, spec, false), spec)).toEqual([{ prompt: 'Hi', answer: 'Hello' }]);
    expect(recordsOf('{"messages": "not a list"}', spec, false)).toEqual([]);
    expect(recordsOf('{ cut', spec, false)).toEqual([]);
  });

  it('a tail read drops the cut first line and lines that are not JSON', () => {
    const spec = RULES.get('pi')!.answerSession!;
    const text = 'ole":"user"}}\n{"type":"message","message":{"role":"user","content":[{"type":"text","text":"Hi"}]}}\nnot json\n{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"Hello"}]}}\n{"type":"mes';
    expect(turnsOf(recordsOf(text, spec, true), spec)).toEqual([{ prompt: 'Hi', answer: 'Hello' }]);
  });
});

describe('reading session files is bounded', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'corral-answers-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads only the tail of a JSONL file larger than the limit', async () => {
    const file = join(dir, 'big.jsonl');
    const filler = `${JSON.stringify({ type: 'filler', pad: 'x'.repeat(1000) })}\n`;
    const last = '{"type":"message","message":{"role":"user","content":[{"type":"text","text":"Last"}]}}\n';
    writeFileSync(file, filler.repeat(Math.ceil(SESSION_ANSWER_LIMITS.tailBytes / filler.length) + 100) + last);
    const tail = await readTail(file, 'jsonl');
    expect(tail!.cut).toBe(true);
    expect(tail!.text.length).toBeLessThanOrEqual(SESSION_ANSWER_LIMITS.tailBytes);
    expect(tail!.text.endsWith(last)).toBe(true);
  });

  it('refuses a JSON document larger than the limit (it cannot be read from its middle)', async () => {
    const file = join(dir, 'big.json');
    writeFileSync(file, `{"messages":[],"pad":"${'x'.repeat(SESSION_ANSWER_LIMITS.tailBytes)}"}`);
    expect(await readTail(file, 'json')).toBeNull();
  });

  it('finds the record by {id} in the name, by the id in the name, or by id_key in the first record', async () => {
    const id = 'bcc4acc2-6031-429b-901b-ea804c1f9ac0';
    mkdirSync(join(dir, '.gemini/tmp/project/chats'), { recursive: true });
    writeFileSync(join(dir, '.gemini/tmp/project/chats/session-2026-12-06T07-06-other.jsonl'), '{"sessionId":"someone-else"}\n');
    const mine = join(dir, '.gemini/tmp/project/chats/session-2026-12-06T07-06-bcc4acc2.jsonl');
    writeFileSync(mine, `{"sessionId":"${id}"}\n`);
    expect(await findSessionRecord(RULES.get('gemini')!.resume!.sessionFiles, id, { HOME: dir })).toBe(mine);
    mkdirSync(join(dir, '.claude/projects/-p'), { recursive: true });
    const claude = join(dir, '.claude/projects/-p', `${id}.jsonl`);
    writeFileSync(claude, '{}\n');
    expect(await findSessionRecord(RULES.get('claude')!.resume!.sessionFiles, id, { HOME: dir })).toBe(claude);
    mkdirSync(join(dir, 'codex/sessions/2026/12/06'), { recursive: true });
    const codex = join(dir, 'codex/sessions/2026/12/06', `rollout-2026-12-06T07-06-21-${id}.jsonl`);
    writeFileSync(codex, '{}\n');
    expect(await findSessionRecord(RULES.get('codex')!.resume!.sessionFiles, id, { HOME: dir, CODEX_HOME: join(dir, 'codex') })).toBe(codex);
    expect(await findSessionRecord(RULES.get('codex')!.resume!.sessionFiles, 'not-there', { HOME: dir, CODEX_HOME: join(dir, 'codex') })).toBeNull();
    // An id that is no plain word never becomes a path.
    expect(await findSessionRecord(RULES.get('claude')!.resume!.sessionFiles, '../*', { HOME: dir })).toBeNull();
  });
});

describe('answers from real screens', () => {
  for (const kind of ['claude', 'codex', 'gemini', 'qwen', 'pi', 'kilo', 'opencode']) {
    it(`${kind}: the six lines of done-text-turn.txt, no banner, tips, input box or footer`, () => {
      const lines = readFileSync(join(FIXTURES, kind, 'done-text-turn.txt'), 'utf8').split('\n');
      const answers = answersFromScreen(lines, ['Say hello please'], RULES.get(kind)!.answerScreen, 1);
      expect(answers).toEqual([ANSWER]);
    });
  }

  it('kilo on a wide pane: its sidebar beside the answer is cut off (a transcript read live)', () => {
    const lines = readFileSync(join(FIXTURES, 'kilo', 'answer-sidebar.txt'), 'utf8').split('\n');
    expect(lines.some((line) => /Final line: Done\.\s+▼ Token Usage/.test(line))).toBe(true);
    expect(answersFromScreen(lines, ['Say hello please'], RULES.get('kilo')!.answerScreen, 1)).toEqual([ANSWER]);
  });

  it('two turns: each answer ends at the next prompt', () => {
    const lines = readFileSync(join(FIXTURES, 'claude', 'done-text-turn.txt'), 'utf8').split('\n');
    const start = lines.findIndex((line) => line.startsWith('❯ Say hello please'));
    const second = [...lines.slice(0, start), '❯ First', '● One.', '', '✻ Baked for 2s', '', ...lines.slice(start)];
    const spec = RULES.get('claude')!.answerScreen;
    expect(answersFromScreen(second, ['First', 'Say hello please'], spec, 2)).toEqual(['One.', ANSWER]);
    expect(answersFromScreen(second, ['First', 'Say hello please'], spec, 1)).toEqual([ANSWER]);
  });

  it('a prompt typed and not sent sits in the input box: the answer before it is the last', () => {
    const lines = readFileSync(join(FIXTURES, 'claude', 'done-text-turn.txt'), 'utf8').split('\n').map((line) => (line.trim() === '❯' ? '❯ Next task, not sent yet' : line));
    expect(lines).toContain('❯ Next task, not sent yet');
    expect(answersFromScreen(lines, ['Say hello please', 'Next task, not sent yet'], RULES.get('claude')!.answerScreen, 1)).toEqual([ANSWER]);
    // A newest prompt that is nowhere (scrolled away) is not skipped for an older one.
    const pi = readFileSync(join(FIXTURES, 'pi', 'done-text-turn.txt'), 'utf8').split('\n');
    expect(answersFromScreen(pi, ['Say hello please', 'Scrolled away'], RULES.get('pi')!.answerScreen, 1)).toBeNull();
  });

  it('no prompt corral typed on screen: the row the input pattern echoes is taken as the prompt', () => {
    for (const kind of ['claude', 'codex', 'gemini']) {
      const lines = readFileSync(join(FIXTURES, kind, 'done-text-turn.txt'), 'utf8').split('\n');
      expect(answersFromScreen(lines, [], RULES.get(kind)!.answerScreen, 1), kind).toEqual([ANSWER]);
    }
  });

  it('no prompt on screen and no echo the input pattern knows: no answer', () => {
    // pi echoes a prompt with no glyph; Kilo's input pattern is its answer footer (chrome).
    for (const kind of ['pi', 'kilo']) {
      const lines = readFileSync(join(FIXTURES, kind, 'done-text-turn.txt'), 'utf8').split('\n');
      expect(answersFromScreen(lines, ['Something else entirely'], RULES.get(kind)!.answerScreen, 1), kind).toBeNull();
    }
  });

  it('a long prompt wrapped over rows: the answer starts below its last row', () => {
    const prompt = 'Please write a very long prompt that wraps over two rows of this narrow pane';
    const lines = ['> Please write a very long prompt that wraps', '  over two rows of this narrow pane', '', '• over two rows: an answer', '', '> '];
    expect(answersFromScreen(lines, [prompt], null, 1)).toEqual(['over two rows: an answer']);
  });

  it('cleans rows: frame rows and chrome out, bullet and indent gone, inner blank lines kept', () => {
    expect(cleanAnswerRows(['', '  ◆︎ First', '', '    second', '────', '  ✻ Cooked for 3s', ''], [/Cooked for/])).toBe('First\n\nsecond');
  });
});

describe('the record path language', () => {
  it('keys, every element, elements where a key holds a value', () => {
    const record = { message: { content: [{ type: 'text', text: 'a' }, { type: 'tool_use', text: 'no' }, { type: 'text', text: 'b' }] } };
    expect(textsAt(record, parseRecordPath('message.content[type=text].text') as never)).toEqual(['a', 'b']);
    expect(textsAt(record, parseRecordPath('message.content[].text') as never)).toEqual(['a', 'no', 'b']);
    expect(textsAt(record, parseRecordPath('message.missing.text') as never)).toEqual([]);
    expect(textsAt('not an object', parseRecordPath('message') as never)).toEqual([]);
  });

  it('says what is wrong with a bad path', () => {
    expect(parseRecordPath('')).toBe('empty path');
    expect(parseRecordPath('a..b')).toMatch(/bad segment ""/);
    expect(parseRecordPath('a[b')).toMatch(/bad segment "a\[b"/);
  });
});

describe('[answer_session] and [answer_screen] in rule files', () => {
  const base = ['kind = "x"', '[[rule]]', 'id = "r"', 'state = "idle"', 'priority = 1', 'region = "bottom:1"', 'contains = "x"'];
  const resume = ['[resume]', 'args = ["--resume", "{id}"]', 'id_from = "file"', 'session_files = [{ path = "~/.x/{id}.jsonl" }]'];
  const issues = (lines: string[]) => {
    try {
      parseRules(lines.join('\n'), 'x.toml');
      return [];
    } catch (error) {
      if (!(error instanceof RuleFileError)) throw error;
      return error.issues.map((issue) => issue.message);
    }
  };

  it('accepts a valid table', () => {
    const rules = parseRules(
      [...base, ...resume, '[answer_session]', 'format = "jsonl"', 'prompt = { match = { type = "user" }, text = "text" }', 'reply = { match = { type = "bot", meta = false }, text = "parts[].text" }', '[answer_screen]', "input = '^> '", "chrome = ['^Worked']"].join('\n'),
      'x.toml',
    );
    expect(rules.answerSession?.format).toBe('jsonl');
    expect(rules.answerScreen?.chrome).toHaveLength(1);
  });

  it('rejects unknown keys, bad formats, paths and regexes with file:line:key', () => {
    const found = issues([
      ...base,
      ...resume,
      '[answer_session]',
      'format = "xml"',
      'records = "messages"',
      'colour = "red"',
      'prompt = { match = { type = "user" }, text = "a..b" }',
      'reply = { match = { type = 3 }, text = "t", extra = 1 }',
      '[answer_screen]',
      "input = '('",
      'chrome = "x"',
    ]);
    expect(found).toEqual([
      'x.toml:13: key "format" must be "jsonl" or "json", got "xml" in [answer_session]',
      'x.toml:14: key "records" is only meaningful for format = "json" in [answer_session]',
      'x.toml:15: unknown key "colour" in [answer_session]',
      'x.toml:16: bad record path "a..b" (bad segment "": use name, name[] or name[key=value]) in [answer_session]',
      'x.toml:17: unknown key "extra" in reply of [answer_session]',
      'x.toml:17: match "type" of reply must be a string, a boolean or an array of them, got 3 in [answer_session]',
      expect.stringMatching(/^x\.toml:19: invalid regex "\(": .* in \[answer_screen\]$/),
      'x.toml:20: key "chrome" must be an array of regexes in [answer_screen]',
    ]);
  });

  it('[answer_session] needs [resume] session_files', () => {
    expect(issues([...base, '[answer_session]', 'format = "jsonl"', 'prompt = { match = { t = "u" }, text = "t" }', 'reply = { match = { t = "a" }, text = "t" }'])).toEqual([
      'x.toml:8: [answer_session] needs [resume] session_files: they locate the session record by its id',
    ]);
  });
});
