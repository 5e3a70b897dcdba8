/**
 * `corral mcp`'s tool table (SPEC §19): the fixed names, a schema for each written only in the
 * keywords the argument check knows, the check itself, and tool errors that name a code and a
 * next step.
 */
import { describe, expect, it } from 'vitest';
import { CorralError } from '../../src/contract/protocol.js';
import { checkArgs, type ArgSchema } from '../../src/mcp/tool-args.js';
import { prepareCall, toolErrorText, TOOLS } from '../../src/mcp/tools.js';

const KNOWN_KEYWORDS = new Set(['type', 'description', 'enum', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'items', 'minItems', 'maxItems', 'anyOf']);

function walk(schema: ArgSchema, visit: (s: ArgSchema) => void): void {
  visit(schema);
  if ('anyOf' in schema) schema.anyOf.forEach((s) => walk(s, visit));
  else if (schema.type === 'array') walk(schema.items, visit);
}

describe('mcp tools', () => {
  it('are the nine SPEC §19 names, each described, with an object schema whose required args exist', () => {
    expect(TOOLS.map((t) => t.name)).toEqual(['fleet', 'agent_start', 'agent_prompt', 'agent_wait', 'agent_read', 'agent_usage', 'pane_read', 'pane_send', 'worktree_diff']);
    for (const tool of TOOLS) {
      expect(tool.description.length, tool.name).toBeGreaterThan(60);
      for (const name of tool.inputSchema.required ?? []) expect(tool.inputSchema.properties, `${tool.name}.${name}`).toHaveProperty(name);
    }
  });

  it('every schema uses only the keywords the argument check knows', () => {
    for (const tool of TOOLS) {
      for (const [name, prop] of Object.entries(tool.inputSchema.properties)) {
        walk(prop, (s) => {
          for (const key of Object.keys(s)) expect(KNOWN_KEYWORDS.has(key), `${tool.name}.${name}: ${key}`).toBe(true);
        });
      }
    }
  });

  it('SPEC §19 arguments', () => {
    const props = (name: string) => Object.keys(TOOLS.find((t) => t.name === name)!.inputSchema.properties);
    expect(props('agent_start')).toEqual(expect.arrayContaining(['name', 'kind', 'cwd', 'worktree', 'command', 'args']));
    expect(props('agent_prompt')).toEqual(expect.arrayContaining(['name', 'text', 'wait', 'timeout_ms', 'max_tokens']));
    expect(props('agent_wait')).toEqual(expect.arrayContaining(['name', 'until', 'timeout_ms']));
    expect(props('agent_read')).toEqual(expect.arrayContaining(['name', 'answer', 'lines']));
    expect(props('pane_read')).toEqual(['pane', 'lines']);
    expect(props('pane_send')).toEqual(['pane', 'text', 'submit']);
    expect(props('worktree_diff')).toEqual(['name']);
  });

  it('checks arguments: missing, unknown, wrong type, out of range, enum, anyOf', () => {
    const fail = (name: string, args: unknown) => {
      try {
        prepareCall(name, args);
      } catch (error) {
        expect(error).toBeInstanceOf(CorralError);
        expect((error as CorralError).code).toBe('invalid_params');
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(fail('pane_read', {})).toBe('pane_read: missing argument "pane"');
    expect(fail('pane_read', { pane: 'a', x: 1 })).toMatch(/unknown argument "x"; it takes pane, lines/);
    expect(fail('pane_read', { pane: 'a', lines: 1.5 })).toBe('pane_read: lines must be a whole number');
    expect(fail('pane_read', { pane: 'a', lines: 10_001 })).toBe('pane_read: lines must be 1..10000');
    expect(fail('pane_read', 'text')).toBe('pane_read: arguments must be an object');
    expect(fail('agent_start', { name: 'Bad Name', kind: 'claude' })).toMatch(/name must match/);
    expect(fail('agent_start', { name: 'a', kind: 'vim' })).toMatch(/kind must be one of pi, claude/);
    expect(fail('agent_start', { name: 'a', kind: 'generic', command: ['sh', 3] })).toBe('agent_start: command[1] must be a string');
    expect(fail('agent_wait', { name: 'a', until: 'working' })).toMatch(/until must be one of done\|idle\|blocked or an array of one of done\|idle\|blocked/);
    expect(fail('nope', {})).toMatch(/no tool "nope"/);
    expect(prepareCall('agent_wait', { name: 'a', until: ['done', 'blocked'] }).args).toEqual({ name: 'a', until: ['done', 'blocked'] });
    expect(prepareCall('fleet', undefined).args).toEqual({});
    expect(checkArgs('t', { type: 'object', properties: {}, additionalProperties: false }, null)).toEqual({});
  });

  it('error text: the code, the message, then what to do', () => {
    expect(toolErrorText(new CorralError('scripting_disabled', 'agent prompt submits input'))).toMatch(/^error scripting_disabled: agent prompt submits input\nNext: .*gate is closed/);
    expect(toolErrorText(new CorralError('agent_not_found', 'no agent "x"'))).toMatch(/^error agent_not_found: no agent "x"\nNext: call `fleet`/);
    expect(toolErrorText(new Error('boom'))).toMatch(/^error internal_error: boom\nNext: /);
    expect(toolErrorText(new CorralError('budget_exceeded', 'over 100 tokens'))).toMatch(/^error budget_exceeded: over 100 tokens\nNext: .*agent_read/);
  });
});
