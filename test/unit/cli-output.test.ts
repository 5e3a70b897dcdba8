import { describe, expect, it } from 'vitest';
import { formatFleet, formatSearch, formatSent, formatStatus, formatSurfaces } from '../../src/cli/conductor-format.js';
import {
  asTextBlock,
  displayWidth,
  exitCodeForError,
  formatError,
  formatResult,
  formatJsonLine,
  formatTable,
  humanText,
  UsageError,
} from '../../src/cli/output.js';
import stringWidth from '../../src/cli/string-width-lite.js';
import { errorFromRpc } from '../../src/rpc/client.js';
import { CorralError, EXIT, type FleetRow, type SurfaceStatus } from '../../src/contract/protocol.js';

const row = (over: Partial<FleetRow>): FleetRow => ({
  machine: null,
  pid: 100,
  tool: 'claude',
  state: 'thinking',
  agent_status: 'working',
  hooked: true,
  reason: 'hook',
  surface_id: 3,
  pane_id: 'w1:p2',
  surface_name: null,
  name: null,
  workspace: 'w1',
  active_tool_name: null,
  message: null,
  last_result: null,
  waiting_ms: null,
  idle_ms: null,
  state_change_seq: 1,
  completion_seq: null,
  ...over,
});

describe('tables', () => {
  it('pads every column but the last, two spaces apart', () => {
    expect(formatTable(['A', 'BB', 'C'], [['xxx', 'y', 'last'], ['1', '22222', '']])).toBe(
      'A    BB     C\nxxx  y      last\n1    22222\n',
    );
  });

  it('measures wide characters as two columns', () => {
    expect(displayWidth('ab')).toBe(2);
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(formatTable(['N', 'X'], [['日本', '1']])).toBe('N     X\n日本  1\n');
  });

  it('ps prints the fleet table, name falling back to the pane name', () => {
    const text = formatFleet({
      agents: [row({ name: 'reviewer' }), row({ surface_id: 12, pane_id: 'w2:p1', tool: 'codex', state: 'idle', surface_name: 'api', workspace: 'w2' })],
    });
    expect(text).toBe(
      [
        'SURFACE  PANE   TOOL    STATE     NAME      WORKSPACE',
        '3        w1:p2  claude  thinking  reviewer  w1',
        '12       w2:p1  codex   idle      api       w2',
        '',
      ].join('\n'),
    );
  });

  it('ps says so when there are no agents', () => {
    expect(formatFleet({ agents: [] })).toBe('No agents.\n');
  });

  it('ps says when a status came from unverified or generic rules, not from verified ones', () => {
    const text = formatFleet({
      agents: [row({ tool: 'amp', rules: 'unverified' }), row({ tool: 'newagent', state: 'idle', rules: 'generic' }), row({ tool: 'claude', rules: 'verified' })],
    });
    expect(text).toContain('amp       thinking (unverified)');
    expect(text).toContain('newagent  idle (generic)');
    expect(text).toMatch(/claude\s+thinking\s+reviewer|claude\s+thinking\s/);
    expect(text).not.toContain('(verified)');
  });

  it('ls marks the focused pane and shows - for missing values', () => {
    const text = formatSurfaces({
      surfaces: [
        { machine: null, surface_id: 1, pane_id: 'w1:p1', name: null, title: '', cwd: '/src', cmd: 'bash', workspace: 'w1', tab: 'w1:t1', focused: true },
      ],
    });
    expect(text.split('\n')[1]).toBe('1*       w1:p1  -     w1         w1:t1  /src  bash');
  });

  it('shows peer text with its control characters made visible, each row on its own line', () => {
    const text = formatSurfaces({
      surfaces: [
        { machine: null, surface_id: 1, pane_id: 'w1:p1', name: 'n\x1b]0;pwn\x07', title: '', cwd: '/x\x1b]52;c;cHduZWQ=\x07\x1b[2J', cmd: 'vi\nfake row', workspace: 'w1', tab: 'w1:t1', focused: false },
      ],
    });
    expect(text).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
    expect(text.trimEnd().split('\n')).toHaveLength(2);
    expect(text).toContain('/x^[]52;c;cHduZWQ=^G^[[2J');
    expect(text).toContain('n^[]0;pwn^G');
    expect(text).toContain('vi^Jfake row');
    const fleet = formatFleet({ agents: [row({ name: 'a\x9b2J' })] });
    expect(fleet).toContain('a\\x9b2J');
  });
});

describe('JSON for a terminal', () => {
  it('escapes DEL and C1 controls as well, keeping the same JSON value', () => {
    const value = { title: 'a\x9b2J\x7f\x1b]0;x\x07\x85' };
    const line = formatJsonLine(value);
    expect(line).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    expect(line).toContain('\\u009b');
    expect(JSON.parse(line)).toEqual(value);
    expect(JSON.parse(formatResult(value))).toEqual({ result: value });
    expect(formatError(new UsageError('x\x9by'))).not.toMatch(/\x9b/);
  });

  it('keeps line breaks in human text but nothing else', () => {
    expect(humanText('a\n\x1b[2Jb\r')).toBe('a\n^[[2Jb^M');
  });
});

describe('status and search', () => {
  const status: SurfaceStatus = {
    surface_id: 3,
    pane_id: 'w1:p2',
    state: 'waiting_for_input',
    agent_status: 'blocked',
    hooked: true,
    tool: 'claude',
    active_tool_name: null,
    message: 'Allow Bash(rm)?',
    last_result: null,
    waiting_ms: 1200,
    idle_ms: null,
    output_generation: 9,
  };

  it('status shows set fields only, the canonical status in parentheses', () => {
    expect(formatStatus(status)).toBe(
      [
        'surface            3',
        'pane               w1:p2',
        'state              waiting_for_input (blocked)',
        'tool               claude',
        'hooked             true',
        'message            Allow Bash(rm)?',
        'waiting_ms         1200',
        'output_generation  9',
        '',
      ].join('\n'),
    );
  });

  it('status of a pane without an agent is just idle', () => {
    const text = formatStatus({ ...status, state: 'idle', agent_status: 'idle', tool: null, hooked: false, message: null, waiting_ms: null });
    expect(text).toContain('state              idle\n');
    expect(text).not.toContain('hooked');
  });

  it('search prints line: text and notes truncation', () => {
    expect(formatSearch({ matches: [{ line: 4, text: 'ok' }], truncated: true })).toBe('4: ok\n… more matches not shown (raise --max)\n');
    expect(formatSearch({ matches: [], truncated: false })).toBe('');
  });
});

describe('errors and exit codes', () => {
  it('maps codes to exit codes (SPEC §6)', () => {
    expect(exitCodeForError(new CorralError('target_not_found', 'x'))).toBe(EXIT.target);
    expect(exitCodeForError(new CorralError('target_ambiguous', 'x'))).toBe(EXIT.target);
    expect(exitCodeForError(new CorralError('pane_not_found', 'x'))).toBe(EXIT.target);
    expect(exitCodeForError(new CorralError('timeout', 'x'))).toBe(EXIT.timeout);
    expect(exitCodeForError(new CorralError('server_not_running', 'x'))).toBe(EXIT.runtime);
    expect(exitCodeForError(new CorralError('scripting_disabled', 'x'))).toBe(EXIT.runtime);
    expect(exitCodeForError(new UsageError('x'))).toBe(EXIT.usage);
    expect(exitCodeForError(new Error('boom'))).toBe(EXIT.runtime);
  });

  it('a param the server refused is a usage error only when the params came from flags', () => {
    for (const code of ['invalid_params', 'invalid_agent_timeout'] as const) {
      expect(exitCodeForError(new CorralError(code, 'x'), { paramsFromFlags: true })).toBe(EXIT.usage);
      // up / flow run: the params came from a file.
      expect(exitCodeForError(new CorralError(code, 'x'))).toBe(EXIT.runtime);
    }
    expect(exitCodeForError(new CorralError('timeout', 'x'), { paramsFromFlags: true })).toBe(EXIT.timeout);
  });

  it('keeps the code of a CorralError from another bundle copy', () => {
    const foreign = Object.assign(new Error('busy'), { name: 'CorralError', code: 'timeout' });
    expect(exitCodeForError(foreign)).toBe(EXIT.timeout);
    expect(formatError(foreign)).toBe('{"error":{"code":"timeout","message":"busy"}}');
  });

  it('prints errors as one JSON line', () => {
    expect(formatError(new CorralError('target_not_found', 'no pane "x"'))).toBe(
      '{"error":{"code":"target_not_found","message":"no pane \\"x\\""}}',
    );
    expect(formatError(new Error('boom'))).toBe('{"error":{"code":"internal_error","message":"boom"}}');
  });

  it('builds CorralErrors from JSON-RPC errors, preferring data.code', () => {
    const e = errorFromRpc({ code: -32000, message: 'ambiguous', data: { code: 'target_ambiguous', candidates: ['a', 'b'] } });
    expect(e).toBeInstanceOf(CorralError);
    expect(e.code).toBe('target_ambiguous');
    expect(e.data).toEqual({ candidates: ['a', 'b'] });
    expect(errorFromRpc({ code: -32601, message: 'nope' }).code).toBe('method_not_found');
    expect(errorFromRpc({ code: -32700, message: 'bad json' }).code).toBe('parse_error');
    expect(errorFromRpc({ code: 42, message: '?' }).code).toBe('internal_error');
  });
});

describe('small printers', () => {
  it('wraps herdr results in {"result":…}', () => {
    expect(formatResult({ sent: true })).toBe('{"result":{"sent":true}}');
  });

  it('ends text with exactly one newline', () => {
    expect(asTextBlock('a\nb')).toBe('a\nb\n');
    expect(asTextBlock('a\n')).toBe('a\n');
    expect(asTextBlock('')).toBe('');
  });

  it('the string-width stand-in ignores ANSI escapes', () => {
    expect(stringWidth('\u001b[1mbold\u001b[22m')).toBe(4);
    expect(stringWidth('\u001b]8;;http://x\u0007link\u001b]8;;\u0007')).toBe(4);
    expect(stringWidth('')).toBe(0);
  });
});

describe('send', () => {
  it('says what was sent, and to how many panes with --all', () => {
    expect(formatSent({ sent: true, length: 5, submitted: false, paste: false })).toBe('sent 5 chars\n');
    expect(
      formatSent({
        sent: true,
        length: 5,
        submitted: true,
        paste: true,
        surfaces: [
          { surface_id: 1, sent: true, length: 5, submitted: true, paste: true },
          { surface_id: 2, sent: true, length: 5, submitted: true, paste: false },
        ],
      }),
    ).toBe('sent 5 chars to 2 panes, submitted (bracketed paste)\n');
  });
});
