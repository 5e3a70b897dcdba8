/** The web view's pure parts (SPEC §16): order by need, the address rule, sessions, tokens, Origin, page messages, `[answers]`. */
import { describe, expect, it } from 'vitest';
import { lstatSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { layoutFleet, needOf, patchStatus, sinceText } from '../../src/web/fleet-order.js';
import { checkTls, hostPort, isLoopback, parseListen } from '../../src/web/web-options.js';
import { SessionStore, sessionStoreFile } from '../../src/web/session-store.js';
import { COOKIE_NAME, LoginToken, RequestGuard, cookieFrom, sessionCookie } from '../../src/web/web-auth.js';
import { parsePageMessage } from '../../src/web/page-session.js';
import { parseRules } from '../../src/agents/rules-schema.js';
import { loadRuleFile } from '../../src/agents/rules.js';
import type { WebAgent } from '../../src/contract/web.js';

function agent(pane: string, status: WebAgent['agent_status'], extra: Partial<WebAgent> = {}): WebAgent {
  return { machine: null, pane_id: pane, workspace: 'w1', workspace_label: 'one', tool: 'claude', name: null, state: 'idle', agent_status: status, seen: true, since_ms: 0, message: null, last_lines: [], answers: [], ...extra };
}

describe('the fleet page order', () => {
  it('puts blocked first (longest waiting first), then done and unseen, then working; the rest under their workspace', () => {
    const fleet = {
      scripting: false,
      agents: [
        agent('w1:p1', 'working'),
        agent('w1:p2', 'done', { seen: false }),
        agent('w1:p3', 'blocked', { since_ms: 1000 }),
        agent('w1:p4', 'done', { seen: true }),
        agent('w2:p1', 'blocked', { since_ms: 5000, workspace: 'w2', workspace_label: 'two' }),
        agent('w1:p5', 'idle'),
      ],
      panes: [{ machine: 'build', pane_id: 'build/w1:p1', workspace: 'w1', workspace_label: 'w1', name: null, title: '', cmd: 'bash', last_lines: [] }],
    };
    const layout = layoutFleet(fleet);
    expect(layout.needs.map((a) => a.pane_id)).toEqual(['w2:p1', 'w1:p3', 'w1:p2', 'w1:p1']);
    expect(layout.groups.map((g) => [g.key, g.agents.map((a) => a.pane_id), g.panes.map((p) => p.pane_id)])).toEqual([
      ['/w1', ['w1:p4', 'w1:p5'], []],
      ['build/w1', [], ['build/w1:p1']],
    ]);
    expect(needOf(agent('x', 'done', { seen: false }))).toBe('done');
    expect([sinceText(null), sinceText(12_000), sinceText(240_000), sinceText(3 * 3600_000)]).toEqual(['', '12 s', '4 min', '3 h']);
  });
});

describe('a status event laid over the fleet', () => {
  it('moves that agent at once; a done one counts as unseen; other events and unknown panes change nothing', () => {
    const fleet = { scripting: false, agents: [agent('w1:p1', 'working', { since_ms: 9000 }), agent('w1:p2', 'idle')], panes: [] };
    const blocked = patchStatus(fleet, { type: 'agent.status_changed', pane_id: 'w1:p2', agent_status: 'blocked', state: 'waiting_for_input', message: 'Proceed?' })!;
    expect(blocked.agents[1]).toMatchObject({ agent_status: 'blocked', state: 'waiting_for_input', message: 'Proceed?', since_ms: 0 });
    expect(layoutFleet(blocked).needs[0]!.pane_id).toBe('w1:p2');
    expect(patchStatus(fleet, { type: 'agent.status_changed', pane_id: 'w1:p1', agent_status: 'done' })!.agents[0]).toMatchObject({ agent_status: 'done', seen: false, state: 'idle' });
    expect(fleet.agents[1]!.agent_status).toBe('idle');
    expect(patchStatus(fleet, { type: 'pane.created', pane_id: 'w1:p1', agent_status: 'done' })).toBeNull();
    expect(patchStatus(fleet, { type: 'agent.status_changed', pane_id: 'w9:p9', agent_status: 'done' })).toBeNull();
    expect(patchStatus(fleet, { type: 'agent.status_changed', machine: 'build', pane_id: 'w1:p1', agent_status: 'done' })).toBeNull();
    // As the server sends them: this machine's events say machine null; another's, its name.
    expect(patchStatus(fleet, { type: 'agent.status_changed', machine: null, pane_id: 'w1:p1', agent_status: 'done' })).not.toBeNull();
    const remote = { scripting: false, agents: [agent('build/w1:p1', 'working', { machine: 'build' })], panes: [] };
    expect(patchStatus(remote, { type: 'agent.status_changed', machine: 'build', pane_id: 'w1:p1', agent_status: 'blocked' })!.agents[0]!.agent_status).toBe('blocked');
  });
});

describe('corral web --listen', () => {
  it('defaults to 127.0.0.1:8760 and reads v4, v6 and :PORT forms', () => {
    expect(parseListen(undefined)).toEqual({ host: '127.0.0.1', port: 8760 });
    expect(parseListen('0.0.0.0:9000')).toEqual({ host: '0.0.0.0', port: 9000 });
    expect(parseListen('[::1]:80')).toEqual({ host: '::1', port: 80 });
    expect(parseListen(':0')).toEqual({ host: '127.0.0.1', port: 0 });
    expect(() => parseListen('example.com:80')).toThrow(/IP address/);
    expect(() => parseListen('127.0.0.1:99999')).toThrow(/port/);
    expect(() => parseListen('::1:80')).toThrow(/brackets/);
    expect(hostPort('::1', 80)).toBe('[::1]:80');
    expect(isLoopback('127.0.0.5') && isLoopback('::1') && !isLoopback('0.0.0.0')).toBe(true);
  });

  it('refuses a non-loopback address without TLS, and half a TLS pair', () => {
    expect(() => checkTls({ host: '0.0.0.0', port: 1 }, {})).toThrow(/without TLS/);
    expect(() => checkTls({ host: '192.168.1.2', port: 1 }, { cert: 'c' })).toThrow(/go together/);
    expect(() => checkTls({ host: '0.0.0.0', port: 1 }, { cert: 'c', key: 'k' })).not.toThrow();
    expect(() => checkTls({ host: '127.0.0.1', port: 1 }, {})).not.toThrow();
  });
});

describe('web sessions', () => {
  it('keeps only hashes, owner-only, 12 h; revoke-all from another store ends them in the running one', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'corral-web-')), 'state');
    const file = sessionStoreFile(dir, 'default');
    let now = 1_000_000;
    const store = new SessionStore(file, () => now);
    const cookie = await store.create();
    expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(store.valid(cookie)).toBe(true);
    expect(store.valid(`${cookie}x`)).toBe(false);
    expect(store.valid(undefined)).toBe(false);
    expect(readFileSync(file, 'utf8')).not.toContain(cookie);
    expect(lstatSync(file).mode & 0o777).toBe(0o600);
    expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    now += 12 * 3600_000 + 1;
    expect(store.valid(cookie)).toBe(false);
    const second = await store.create();
    expect(await new SessionStore(file, () => now).revokeAll()).toBe(1);
    expect(store.valid(second)).toBe(false);
  });

  it('grants nothing through a symlink or from a file others may write', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-web-'));
    const real = join(dir, 'real.json');
    const store = new SessionStore(real);
    const cookie = await store.create();
    const link = join(dir, 'web-default.json');
    symlinkSync(real, link);
    expect(new SessionStore(link).valid(cookie)).toBe(false);
    writeFileSync(join(dir, 'open.json'), readFileSync(real), { mode: 0o666 });
    expect(new SessionStore(join(dir, 'open.json')).valid(cookie)).toBe(false);
  });
});

describe('tokens, cookies and Origin', () => {
  it('takes the token once, and nothing else', () => {
    const token = new LoginToken('a'.repeat(43));
    expect(token.exchange('b'.repeat(43))).toBe(false);
    expect(token.exchange(42)).toBe(false);
    expect(token.exchange('a'.repeat(43))).toBe(true);
    expect(token.exchange('a'.repeat(43))).toBe(false);
  });

  it('sets an HttpOnly SameSite=Strict cookie for 12 h, Secure under TLS', () => {
    expect(sessionCookie('v', false)).toBe(`${COOKIE_NAME}=v; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict`);
    expect(sessionCookie('v', true)).toMatch(/; Secure$/);
    expect(cookieFrom(`a=1; ${COOKIE_NAME}=xyz; b=2`)).toBe('xyz');
    expect(cookieFrom('a=1')).toBeUndefined();
  });

  it('accepts only this server’s own Origin and Host', async () => {
    const store = new SessionStore(join(mkdtempSync(join(tmpdir(), 'corral-web-')), 'web.json'));
    const cookie = await store.create();
    const guard = new RequestGuard({ scheme: 'http', hosts: new Set(['127.0.0.1:8760', 'localhost:8760']) }, store);
    const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
    const good = { host: '127.0.0.1:8760', origin: 'http://127.0.0.1:8760', cookie: `${COOKIE_NAME}=${cookie}` };
    expect(guard.check(req(good))).toBe('ok');
    expect(guard.check(req({ ...good, cookie: '' }))).toBe('unauthorized');
    expect(guard.check(req({ ...good, origin: 'http://evil.example' }))).toBe('forbidden');
    expect(guard.check(req({ host: '127.0.0.1:8760', cookie: good.cookie }))).toBe('forbidden');
    expect(guard.check(req({ ...good, origin: 'https://127.0.0.1:8760' }))).toBe('forbidden');
    expect(guard.check(req({ ...good, host: 'rebound.example:8760', origin: 'http://rebound.example:8760' }))).toBe('forbidden');
  });
});

describe('what a page may send', () => {
  it('knows a few shapes and nothing else', () => {
    expect(parsePageMessage('{"t":"input","pane":"w1:p1","data":"ls"}')).toEqual({ t: 'input', pane: 'w1:p1', data: 'ls' });
    expect(parsePageMessage('{"t":"answer","pane":"w1:p1","label":"allow once"}')).toEqual({ t: 'answer', pane: 'w1:p1', label: 'allow once' });
    expect(parsePageMessage('{"t":"watch","pane":"build/w1:p2"}')).toEqual({ t: 'watch', pane: 'build/w1:p2' });
    for (const bad of ['nope', '[]', 'null', '{"t":"input","pane":"w1:p1"}', '{"t":"input","pane":"<x>","data":"a"}', '{"t":"exec"}', '{"t":"ping","id":"1"}']) {
      expect(parsePageMessage(bad), bad).toBeNull();
    }
  });
});

describe('[answers] in a rule file', () => {
  const base = 'kind = "demo"\nevidence = "test"\n[[rule]]\nid = "ask"\nstate = "blocked"\npriority = 1\nregion = "bottom:5"\ncontains = "Proceed?"\n\n';
  it('reads labels and keys in file order', () => {
    const rules = parseRules(`${base}[answers]\n"allow once" = ["1"]\ndeny = ["esc"]\n`, 'demo.toml');
    expect(rules.answers).toEqual([{ label: 'allow once', keys: ['1'] }, { label: 'deny', keys: ['esc'] }]);
    expect(parseRules(base, 'demo.toml').answers).toEqual([]);
  });

  it('refuses a label or keys that are not a button and a key press', () => {
    expect(() => parseRules(`${base}[answers]\n"<b>" = ["1"]\n`, 'demo.toml')).toThrow(/answer label/);
    expect(() => parseRules(`${base}[answers]\nyes = "y"\n`, 'demo.toml')).toThrow(/list of 1–4 key names/);
    expect(() => parseRules(`${base}[answers]\nyes = ["y", "e", "s", "!", "x"]\n`, 'demo.toml')).toThrow(/list of 1–4/);
    expect(() => parseRules(`${base}[answers]\nyes = ["echo hi"]\n`, 'demo.toml')).toThrow(/key names/);
  });

  it('claude, codex and opencode declare allow once and deny', () => {
    const root = join(import.meta.dirname, '..', '..', 'assets', 'agents');
    expect(loadRuleFile(join(root, 'claude.toml')).answers).toEqual([{ label: 'allow once', keys: ['1'] }, { label: 'deny', keys: ['esc'] }]);
    expect(loadRuleFile(join(root, 'codex.toml')).answers).toEqual([{ label: 'allow once', keys: ['y'] }, { label: 'deny', keys: ['esc'] }]);
    // OpenCode's dialog opens on "Allow once": Enter takes it (the lifecycle test's approval).
    expect(loadRuleFile(join(root, 'opencode.toml')).answers).toEqual([{ label: 'allow once', keys: ['enter'] }, { label: 'deny', keys: ['esc'] }]);
  });
});
