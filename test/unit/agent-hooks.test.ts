import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { guessHookAgent, lastAssistantText, mapHookEvent, parseAiEvent } from '../../src/agents/hook-events.js';
import { runHook } from '../../src/cli/hooks/hook-send.js';
import {
  HooksConfigError,
  addCodexTrust,
  codexTrustEntries,
  codexTrustHash,
  formatJsonConfig,
  hookCommand,
  hooksStatus,
  installHooks,
  installIntoDoc,
  isCorralCommand,
  parseJsonConfig,
  removeCodexTrust,
  uninstallFromDoc,
  uninstallHooks,
} from '../../src/cli/hooks/hooks-install.js';

/** Payloads as the real agents sent them (recorded against a scripted model; ids shortened). */
const PAYLOADS = {
  claude: {
    SessionStart: { session_id: 's', transcript_path: '/h/.claude/projects/p/s.jsonl', cwd: '/p', hook_event_name: 'SessionStart', source: 'startup', model: 'claude-opus-4-8[1m]' },
    UserPromptSubmit: { session_id: 's', transcript_path: '/t', cwd: '/p', prompt_id: 'x', permission_mode: 'default', hook_event_name: 'UserPromptSubmit', prompt: 'Please RUNTOOL now' },
    PreToolUse: { session_id: 's', cwd: '/p', permission_mode: 'default', effort: { level: 'high' }, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'touch /tmp/x', description: 'Create marker file' }, tool_use_id: 'toolu_1' },
    PostToolUse: { session_id: 's', cwd: '/p', hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'touch /tmp/x' }, tool_response: { stdout: '', stderr: '', interrupted: false }, tool_use_id: 'toolu_1', duration_ms: 126 },
    Notification: { session_id: 's', cwd: '/p', hook_event_name: 'Notification', message: 'Claude needs your permission', notification_type: 'permission_prompt' },
    Idle: { session_id: 's', cwd: '/p', hook_event_name: 'Notification', message: 'Claude is waiting for your input', notification_type: 'idle_prompt' },
    AskUser: { session_id: 's', cwd: '/p', hook_event_name: 'PreToolUse', tool_name: 'AskUserQuestion', tool_input: { questions: [{ question: 'Which color should the widget be?', options: [] }] } },
    Stop: { session_id: 's', cwd: '/p', hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'The command finished. All done.', background_tasks: [] },
    SessionEnd: { session_id: 's', cwd: '/p', hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' },
  },
  gemini: {
    BeforeTool: { session_id: 'g', transcript_path: '/t', cwd: '/p', hook_event_name: 'BeforeTool', timestamp: '2026-11-30T14:19:24.605Z', tool_name: 'run_shell_command', tool_input: { command: 'touch /tmp/x' } },
    Notification: { session_id: 'g', cwd: '/p', hook_event_name: 'Notification', timestamp: 't', notification_type: 'ToolPermission', message: 'Tool Confirm Shell Command requires execution', details: { type: 'exec' } },
    AfterAgent: { session_id: 'g', cwd: '/p', hook_event_name: 'AfterAgent', timestamp: 't', prompt: 'Please RUNTOOL now', prompt_response: 'I will use a tool now. \nThe command finished. All done.', stop_hook_active: false },
  },
  codex: {
    PermissionRequest: { session_id: 'c', turn_id: 'u', cwd: '/p', hook_event_name: 'PermissionRequest', model: 'gpt-fake', permission_mode: 'default', tool_name: 'Bash', tool_input: { command: 'touch /tmp/x', description: 'Create the marker file /tmp/x?' } },
    Stop: { session_id: 'c', turn_id: 'u', cwd: '/p', hook_event_name: 'Stop', model: 'gpt-fake', stop_hook_active: false, last_assistant_message: 'The command finished. All done.' },
  },
  // Qwen Code 0.24.4: Claude's events and fields, plus `timestamp` and `permission_mode`.
  qwen: {
    Notification: { session_id: 'q', transcript_path: '/h/.qwen/projects/-p/chats/q.jsonl', cwd: '/p', hook_event_name: 'Notification', timestamp: 't', permission_mode: 'default', message: 'Qwen Code needs your permission to use run_shell_command', notification_type: 'permission_prompt', title: 'Permission needed' },
    // Fires a second after every Stop, and even during a turn: never blocked.
    Idle: { session_id: 'q', cwd: '/p', hook_event_name: 'Notification', timestamp: 't', message: 'Qwen Code is waiting for your input', notification_type: 'idle_prompt', title: 'Waiting for input' },
    PreToolUse: { session_id: 'q', cwd: '/p', hook_event_name: 'PreToolUse', timestamp: 't', tool_name: 'run_shell_command', tool_input: { command: 'touch /tmp/x', description: 'Create marker file' }, tool_use_id: 'toolu_1' },
    Stop: { session_id: 'q', cwd: '/p', hook_event_name: 'Stop', timestamp: 't', stop_hook_active: false, last_assistant_message: 'The command finished. All done.', background_tasks: [], crons: [] },
  },
} as const;

describe('mapHookEvent', () => {
  it('maps Claude events', () => {
    expect(mapHookEvent('session_start', PAYLOADS.claude.SessionStart, 'claude')?.params).toMatchObject({ kind: 'claude', source: 'startup' });
    expect(mapHookEvent('prompt_submit', PAYLOADS.claude.UserPromptSubmit, 'claude')?.params.prompt).toBe('Please RUNTOOL now');
    expect(mapHookEvent('tool_use', PAYLOADS.claude.PreToolUse, 'claude')).toEqual({
      event: 'tool_use',
      params: { kind: 'claude', hook_event_name: 'PreToolUse', session_id: 's', cwd: '/p', tool_name: 'Bash', active_tool_name: 'Bash', phase: 'pre' },
    });
    expect(mapHookEvent('tool_use', PAYLOADS.claude.PostToolUse, 'claude')?.params).toMatchObject({ phase: 'post' });
    expect(mapHookEvent('tool_use', PAYLOADS.claude.PostToolUse, 'claude')?.params.active_tool_name).toBeUndefined();
    expect(mapHookEvent('notification', PAYLOADS.claude.Notification, 'claude')?.params).toMatchObject({ message: 'Claude needs your permission', notification_type: 'permission_prompt' });
    expect(mapHookEvent('stop', PAYLOADS.claude.Stop, 'claude')).toMatchObject({ event: 'stop', params: { last_result: 'The command finished. All done.' } });
    expect(mapHookEvent('session_end', PAYLOADS.claude.SessionEnd, 'claude')?.params.reason).toBe('prompt_input_exit');
  });

  it('sends nothing for Claude idle reminders; a question tool means blocked', () => {
    expect(mapHookEvent('notification', PAYLOADS.claude.Idle, 'claude')).toBeNull();
    expect(mapHookEvent('tool_use', PAYLOADS.claude.AskUser, 'claude')).toMatchObject({
      event: 'notification',
      params: { message: 'Which color should the widget be?', notification_type: 'question' },
    });
  });

  it('maps Gemini and Codex events', () => {
    expect(mapHookEvent('tool_use', PAYLOADS.gemini.BeforeTool, 'gemini')?.params.active_tool_name).toBe('run_shell_command');
    expect(mapHookEvent('notification', PAYLOADS.gemini.Notification, 'gemini')?.params.message).toBe('Tool Confirm Shell Command requires execution');
    expect(mapHookEvent('stop', PAYLOADS.gemini.AfterAgent, 'gemini')?.params.last_result).toBe('I will use a tool now. \nThe command finished. All done.');
    expect(mapHookEvent('notification', PAYLOADS.codex.PermissionRequest, 'codex')?.params).toMatchObject({
      message: 'Create the marker file /tmp/x?',
      notification_type: 'permission_request',
      tool_name: 'Bash',
    });
    expect(mapHookEvent('stop', PAYLOADS.codex.Stop, 'codex')?.params.last_result).toBe('The command finished. All done.');
  });

  it('maps Qwen events as Claude\'s: idle reminders send nothing', () => {
    expect(mapHookEvent('notification', PAYLOADS.qwen.Notification, 'qwen')?.params).toMatchObject({
      kind: 'qwen',
      session_id: 'q',
      message: 'Qwen Code needs your permission to use run_shell_command',
      notification_type: 'permission_prompt',
    });
    expect(mapHookEvent('notification', PAYLOADS.qwen.Idle, 'qwen')).toBeNull();
    expect(mapHookEvent('tool_use', PAYLOADS.qwen.PreToolUse, 'qwen')?.params.active_tool_name).toBe('run_shell_command');
    expect(mapHookEvent('stop', PAYLOADS.qwen.Stop, 'qwen')?.params.last_result).toBe('The command finished. All done.');
  });

  it('asks for the transcript only when a stop has no final text', () => {
    expect(mapHookEvent('stop', { transcript_path: '/t.jsonl' }, 'claude')?.transcriptPath).toBe('/t.jsonl');
    expect(mapHookEvent('stop', PAYLOADS.claude.Stop, 'claude')?.transcriptPath).toBeUndefined();
  });

  it('carries exit codes, caps long text, guesses the agent', () => {
    expect(mapHookEvent('exit', {}, undefined, { exitCode: 130 })?.params.exit_code).toBe(130);
    expect(String(mapHookEvent('prompt_submit', { prompt: 'x'.repeat(10_000) })?.params.prompt).length).toBe(4001);
    expect(guessHookAgent(PAYLOADS.gemini.BeforeTool)).toBe('gemini');
    expect(guessHookAgent(PAYLOADS.codex.Stop)).toBe('codex');
    expect(guessHookAgent(PAYLOADS.claude.Stop)).toBe('claude');
    expect(parseAiEvent('session-start')).toBe('session_start');
    expect(parseAiEvent('bogus')).toBeUndefined();
  });
});

describe('lastAssistantText', () => {
  const line = (o: unknown): string => JSON.stringify(o);
  it('finds the last assistant text, skipping tool-only entries and a torn first line', () => {
    const tail = [
      'tail": "of a torn line"}',
      line({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'I will use a tool now.' }] } }),
      line({ type: 'user', message: { role: 'user', content: 'hi' } }),
      line({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'The command finished. All done.' }] } }),
      line({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', name: 'Bash' }] } }),
      line({ type: 'system', subtype: 'turn_duration' }),
      '',
    ].join('\n');
    expect(lastAssistantText(tail)).toBe('The command finished. All done.');
    expect(lastAssistantText('nothing here')).toBeUndefined();
  });
});

// ---------------------------------------------------------------- install / uninstall

/** A user's settings as Claude Code writes them (JSON.stringify, 2 spaces), with their own hook. */
const USER_SETTINGS = `${JSON.stringify(
  {
    model: 'opus',
    permissions: { allow: ['Bash(ls:*)'] },
    hooks: {
      Stop: [{ hooks: [{ type: 'command', command: '~/bin/notify-me.sh' }] }],
      PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit.sh' }] }],
    },
  },
  null,
  2,
)}\n`;

function roundTrip(text: string, agent: 'claude' | 'gemini' | 'codex'): { installed: string; restored: string } {
  const a = parseJsonConfig(text, 'f');
  installIntoDoc(a.doc, agent);
  const installed = formatJsonConfig(a.doc, a.style);
  const b = parseJsonConfig(installed, 'f');
  uninstallFromDoc(b.doc, agent);
  return { installed, restored: formatJsonConfig(b.doc, b.style) };
}

describe('hook config edits', () => {
  it.each(['claude', 'gemini', 'codex'] as const)('%s: install then uninstall gives back the same bytes', (agent) => {
    const { installed, restored } = roundTrip(USER_SETTINGS, agent);
    expect(installed).toContain(`corral hook stop --agent ${agent}`);
    expect(restored).toBe(USER_SETTINGS);
  });

  it('keeps the user entries and appends one group per event', () => {
    const a = parseJsonConfig(USER_SETTINGS, 'f');
    installIntoDoc(a.doc, 'claude');
    const hooks = a.doc.hooks as Record<string, Array<{ hooks: Array<{ command: string; timeout?: number }> }>>;
    expect(hooks.Stop).toHaveLength(2);
    expect(hooks.Stop[0].hooks[0].command).toBe('~/bin/notify-me.sh');
    expect(hooks.Stop[1].hooks[0]).toEqual({ type: 'command', command: '[ -z "$CORRAL_PANE_ID" ] || corral hook stop --agent claude', timeout: 5 });
    expect(Object.keys(hooks)).toEqual(['Stop', 'PreToolUse', 'SessionStart', 'UserPromptSubmit', 'PostToolUse', 'Notification', 'SessionEnd']);
  });

  it('is idempotent, and replaces an outdated corral entry in place of adding a second', () => {
    const once = roundTrip(USER_SETTINGS, 'gemini').installed;
    const a = parseJsonConfig(once, 'f');
    expect(installIntoDoc(a.doc, 'gemini').every((r) => r.status === 'present')).toBe(true);
    expect(formatJsonConfig(a.doc, a.style)).toBe(once);
    const old = once.replace('corral hook stop --agent gemini', 'corral hook stop --agent gemini --old');
    const b = parseJsonConfig(old, 'f');
    expect(installIntoDoc(b.doc, 'gemini').find((r) => r.event === 'AfterAgent')?.status).toBe('updated');
    expect(formatJsonConfig(b.doc, b.style).match(/corral hook stop/g)).toHaveLength(1);
  });

  it('keeps indentation style; other layouts come back semantically identical', () => {
    const tabs = JSON.stringify(JSON.parse(USER_SETTINGS), null, '\t');
    expect(roundTrip(tabs, 'claude').restored).toBe(tabs);
    const four = `${JSON.stringify(JSON.parse(USER_SETTINGS), null, 4)}\n`;
    expect(roundTrip(four, 'claude').restored).toBe(four);
    const compact = '{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]}}';
    expect(JSON.parse(roundTrip(compact, 'claude').restored)).toEqual(JSON.parse(compact));
    expect(roundTrip('', 'claude').restored).toBe('{}\n');
  });

  it('recognises only corral commands', () => {
    expect(isCorralCommand(hookCommand('codex', 'Stop'))).toBe(true);
    expect(isCorralCommand('corral hook stop --agent claude', 'claude')).toBe(true);
    expect(isCorralCommand('corral hook stop --agent claude', 'gemini')).toBe(false);
    expect(isCorralCommand('my-corral hook stop --agent claude')).toBe(false);
    expect(isCorralCommand('echo corral')).toBe(false);
  });
});

describe('codex trust', () => {
  it('computes the hash Codex 0.171 wrote for "Trust all and continue"', () => {
    // Recorded from ~/.codex/config.toml after trusting a hooks.json handler in the real TUI.
    expect(codexTrustHash('PreToolUse', '/tmp/cprobe/hooklog.sh PreToolUse codex', 5)).toBe(
      'sha256:fb48d8c8339c2878af4b8a6e25a202de636e1489589e00221c7774769bb5aee3',
    );
    expect(codexTrustHash('Stop', '/tmp/cprobe/hooklog.sh Stop codex', 5)).toBe(
      'sha256:38864c3b1a3fc0a6b40634648951e4c6521481b1fe0f3368f3f325dc663927f1',
    );
  });

  const USER_TOML = '# my settings\nmodel = "gpt-5" # inline comment\n\n[projects."/p"]\ntrust_level = "trusted"\n';

  it('adds and removes trust tables without touching the rest', () => {
    const doc = parseJsonConfig('', 'f').doc;
    installIntoDoc(doc, 'codex');
    const entries = codexTrustEntries('/h/.codex/hooks.json', doc);
    expect(entries.map((e) => e.key)).toContain('/h/.codex/hooks.json:pre_tool_use:0:0');
    const trusted = addCodexTrust(USER_TOML, entries);
    expect(trusted.startsWith(USER_TOML)).toBe(true);
    expect(addCodexTrust(trusted, entries)).toBe(trusted);
    expect(removeCodexTrust(trusted, entries)).toBe(USER_TOML);
  });

  it('rewrites a stale hash in a table Codex wrote, and keeps the user settings there', () => {
    const doc = parseJsonConfig('', 'f').doc;
    installIntoDoc(doc, 'codex');
    const [entry] = codexTrustEntries('/h/hooks.json', doc);
    const stale = `${USER_TOML}\n[hooks.state."${entry.key}"]\nenabled = true\ntrusted_hash = "sha256:old"\n`;
    const fixed = addCodexTrust(stale, [entry]);
    expect(fixed).toContain(`trusted_hash = "${entry.hash}"`);
    expect(fixed).not.toContain('sha256:old');
    expect(removeCodexTrust(fixed, [entry])).toBe(`${USER_TOML}\n[hooks.state."${entry.key}"]\nenabled = true\n`);
  });

  it('refuses malformed TOML', () => {
    expect(() => addCodexTrust('model = ', [])).toThrow(HooksConfigError);
  });
});

describe('hook config files', () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    home = mkdtempSync(path.join(os.tmpdir(), 'corral-hooks-'));
    env = { HOME: home };
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it('claude: install, status, uninstall round trip on disk', () => {
    const file = path.join(home, '.claude/settings.json');
    mkdirSync(path.dirname(file));
    writeFileSync(file, USER_SETTINGS);
    expect(installHooks('claude', { env }).changed).toBe(true);
    expect(installHooks('claude', { env }).changed).toBe(false);
    expect(hooksStatus('claude', { env }).events.every((e) => e.status === 'installed')).toBe(true);
    uninstallHooks('claude', { env });
    expect(readFileSync(file, 'utf8')).toBe(USER_SETTINGS);
    expect(hooksStatus('claude', { env }).events.every((e) => e.status === 'missing')).toBe(true);
  });

  it('qwen: ~/.qwen/settings.json, $QWEN_HOME, or ./.qwen with --project; Claude\'s event names', () => {
    expect(installHooks('qwen', { env }).file).toBe(path.join(home, '.qwen/settings.json'));
    const doc = JSON.parse(readFileSync(path.join(home, '.qwen/settings.json'), 'utf8'));
    expect(Object.keys(doc.hooks)).toEqual(['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Notification', 'Stop', 'SessionEnd']);
    expect(doc.hooks.Stop[0].hooks[0]).toEqual({ type: 'command', command: '[ -z "$CORRAL_PANE_ID" ] || corral hook stop --agent qwen', timeout: 5 });
    expect(installHooks('qwen', { env: { ...env, QWEN_HOME: path.join(home, 'qh') } }).file).toBe(path.join(home, 'qh/settings.json'));
    expect(installHooks('qwen', { env, project: true, cwd: path.join(home, 'proj') }).file).toBe(path.join(home, 'proj/.qwen/settings.json'));
    uninstallHooks('qwen', { env });
    expect(existsSync(path.join(home, '.qwen/settings.json')) ? JSON.parse(readFileSync(path.join(home, '.qwen/settings.json'), 'utf8')) : {}).toEqual({});
  });

  it('--project writes into the current directory', () => {
    const report = installHooks('gemini', { env, project: true, cwd: home });
    expect(report.file).toBe(path.join(home, '.gemini/settings.json'));
    expect(JSON.parse(readFileSync(report.file, 'utf8')).hooks.AfterAgent[0].hooks[0].timeout).toBe(5000);
  });

  it('codex: hooks.json plus trust in config.toml, both undone', () => {
    const codexHome = path.join(home, 'codex-home');
    mkdirSync(codexHome);
    const toml = '# mine\nmodel = "m"\n';
    writeFileSync(path.join(codexHome, 'config.toml'), toml);
    const report = installHooks('codex', { env: { ...env, CODEX_HOME: codexHome } });
    expect(report.events.every((e) => e.trusted)).toBe(true);
    expect(hooksStatus('codex', { env: { ...env, CODEX_HOME: codexHome } }).events.every((e) => e.trusted)).toBe(true);
    uninstallHooks('codex', { env: { ...env, CODEX_HOME: codexHome } });
    expect(readFileSync(path.join(codexHome, 'config.toml'), 'utf8')).toBe(toml);
  });

  it('a malformed file is an error naming it, and nothing is written', () => {
    const file = path.join(home, '.claude/settings.json');
    mkdirSync(path.dirname(file));
    writeFileSync(file, '{ "model": "opus", }');
    expect(() => installHooks('claude', { env })).toThrow(/settings\.json: not valid JSON.*nothing was written/);
    expect(readFileSync(file, 'utf8')).toBe('{ "model": "opus", }');
    writeFileSync(file, '{"hooks": []}');
    expect(() => installHooks('claude', { env })).toThrow(/"hooks" is not an object/);
    const codexHome = path.join(home, 'ch');
    mkdirSync(codexHome);
    writeFileSync(path.join(codexHome, 'config.toml'), 'model = \n');
    expect(() => installHooks('codex', { env: { ...env, CODEX_HOME: codexHome } })).toThrow(/config\.toml: not valid TOML/);
    expect(existsSync(path.join(codexHome, 'hooks.json'))).toBe(false);
  });
});

// ---------------------------------------------------------------- corral hook

describe('runHook', () => {
  let dir: string;
  let server: net.Server;
  let lines: string[];
  let answer: boolean;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'corral-hook-'));
    lines = [];
    answer = true;
    // Answers each request as the server does, once it has placed the sender.
    server = net.createServer((c) =>
      c.on('data', (d) => {
        for (const line of String(d).split('\n').filter(Boolean)) {
          lines.push(line);
          if (answer) c.write(`${JSON.stringify({ jsonrpc: '2.0', id: JSON.parse(line).id, result: { ok: true } })}\n`);
        }
      }),
    );
    await new Promise<void>((resolve) => server.listen(path.join(dir, 's.sock'), resolve));
  });
  afterEach(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function stdinOf(text: string): PassThrough {
    const s = new PassThrough();
    s.end(text);
    return s;
  }

  it('sends one request with the pane and returns once the server answered (so it can be placed, SPEC §8)', async () => {
    const env = { CORRAL_PANE_ID: 'w1:p2', CORRAL_SOCKET: path.join(dir, 's.sock') };
    const sent = await runHook({ event: 'tool_use', agent: 'claude', env, stdin: stdinOf(JSON.stringify(PAYLOADS.claude.PreToolUse)) });
    expect(sent).toMatchObject({ jsonrpc: '2.0', method: 'ai.tool_use', params: { pane_id: 'w1:p2', active_tool_name: 'Bash' } });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).id).toBe(1);
  });

  it('waits for the answer no longer than its deadline', async () => {
    answer = false;
    const started = Date.now();
    const env = { CORRAL_PANE_ID: 'w1:p2', CORRAL_SOCKET: path.join(dir, 's.sock') };
    expect(await runHook({ event: 'stop', agent: 'claude', env, stdin: stdinOf('{}') })).toBeNull();
    expect(lines).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('reads last_result from the transcript when the stop has none', async () => {
    const transcript = path.join(dir, 't.jsonl');
    writeFileSync(transcript, `${JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'Done here.' }] } })}\n`);
    const env = { CORRAL_PANE_ID: 'w1:p2', CORRAL_SOCKET: path.join(dir, 's.sock') };
    const sent = await runHook({ event: 'stop', agent: 'claude', env, stdin: stdinOf(JSON.stringify({ hook_event_name: 'Stop', transcript_path: transcript })) });
    expect((sent?.params as Record<string, unknown>).last_result).toBe('Done here.');
  });

  it('sends nothing outside corral or without a server, and stays within its deadline', async () => {
    expect(await runHook({ event: 'stop', env: {}, stdin: stdinOf('{}') })).toBeNull();
    const started = Date.now();
    expect(await runHook({ event: 'stop', env: { CORRAL_PANE_ID: 'w1:p1', CORRAL_SOCKET: path.join(dir, 'none.sock') }, stdin: stdinOf('{}') })).toBeNull();
    // A stdin that never ends: the event still goes out after the stdin timeout.
    const open = new PassThrough();
    const sent = await runHook({ event: 'stop', env: { CORRAL_PANE_ID: 'w1:p1', CORRAL_SOCKET: path.join(dir, 's.sock') }, stdin: open });
    expect(sent?.method).toBe('ai.stop');
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
