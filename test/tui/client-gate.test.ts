/**
 * The gate holds for clients and hooks too (SPEC §8): from a shell in pane w1:p2, with the
 * scripting gate closed, a program attaches a client every way it can — a pipe for a
 * terminal, a raw socket, a terminal of its own made with `script`, `env -i`, `setsid` — and
 * tries to type a command into pane w1:p1, open the gate, detach the person, or speak for
 * w1:p1's agent through a hook. None of it reaches w1:p1: no marker file appears. The person
 * at their own terminal (the test's pty, outside every pane) types as always, and once they
 * open the gate the very same attack does type — so each check can fail.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closedAfterEach, pollUntil, rpc, TuiSession } from './tui-harness.js';

const CTRL_B = '\x02';
const close = closedAfterEach();

/** The person's session: a bash in w1:p1 and, split beside it and focused, one in w1:p2. */
async function personWithTwoPanes(): Promise<TuiSession> {
  const owner = close(new TuiSession(150, 40));
  await owner.waitForText('w1:p1');
  owner.type(`${CTRL_B}v`);
  await owner.waitForText('w1:p2');
  return owner;
}

let runs = 0;

/**
 * The person types `attack` at w1:p2's prompt and waits until it has finished: a marker the
 * typed line does not contain (`$((n+0))` is only expanded when it runs).
 */
async function runInPane2(owner: TuiSession, attack: string): Promise<void> {
  const n = 100 + runs++;
  // An earlier attack may have moved the focus (focus is not typing): the person's keys go to w1:p2.
  await rpc(owner.socketPath, 'pane.focus', { pane_id: 'w1:p2' });
  owner.type(`${attack}; echo ATTACK-$((${n}+0))-DONE\r`);
  await owner.waitForText(`ATTACK-${n}-DONE`, 30_000);
}

/** Pane w1:p1's text, as a script reads it. */
async function pane1Text(owner: TuiSession): Promise<string> {
  return (await rpc(owner.socketPath, 'pane.read', { pane_id: 'w1:p1', source: 'recent', lines: 200 })).read.text;
}

/**
 * Keys a program sends: after a second (the client is attached), prefix o (focus w1:p1), then a
 * command typed, then one pasted (a bracketed paste streams into the pane its own way) and run
 * with Enter — bash keeps a bracketed paste's newline in the line instead of running it.
 */
function keysFor(marker: string): string {
  return `(sleep 1; printf '\\002o'; sleep 0.5; printf 'touch ${marker}\\r'; sleep 0.3; printf '\\033[200~touch ${marker}-pasted\\033[201~\\r'; sleep 1)`;
}

describe('clients attached by a program are view-only while the gate is closed', () => {
  it('a piped `corral attach` from inside a pane: prefix o and a typed command never reach w1:p1; with the gate open they do', async () => {
    const owner = await personWithTwoPanes();
    const marker = join(owner.dir, 'pwned-piped');
    const attack = `${keysFor(marker)} | timeout 6 corral --socket "$CORRAL_SOCKET" attach`;
    await runInPane2(owner, attack);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(`${marker}-pasted`)).toBe(false);
    expect(await pane1Text(owner)).not.toContain('pwned');
    expect((await rpc(owner.socketPath, 'system.capabilities')).scripting).toBe(false);

    // The person at their own terminal types as always, and opens the gate.
    owner.type(`${CTRL_B}s`);
    await owner.waitForText('scripting: on');
    await runInPane2(owner, attack);
    await pollUntil(async () => existsSync(marker) && existsSync(`${marker}-pasted`), Boolean, 'the attack to type and paste once the gate is open');
  });

  it('a raw socket `client.attach` sending key frames is view-only, and client.list says why', async () => {
    const owner = await personWithTwoPanes();
    const marker = join(owner.dir, 'pwned-raw');
    // 20 lines of Node: hello, then binary input messages (1-byte type 1, 4-byte length, bytes).
    const script = [
      "const s = require('net').connect(process.env.CORRAL_SOCKET);",
      "const hello = { protocol: 1, cols: 80, rows: 24, pid: 1, tty: '/dev/pts/0', cwd: '/', term: 'xterm', capabilities: {} };",
      "s.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'client.attach', params: hello }) + '\\n');",
      'const key = (text) => { const b = Buffer.from(text); const h = Buffer.alloc(5); h[0] = 1; h.writeUInt32BE(b.length, 1); s.write(Buffer.concat([h, b])); };',
      "let seen = '';",
      "s.on('data', (chunk) => { if (seen.includes('\\n')) return; seen += chunk.toString('latin1'); if (!seen.includes('\\n')) return;",
      `  setTimeout(() => key('\\x02o'), 300); setTimeout(() => key('touch ${marker}\\r'), 800); setTimeout(() => process.exit(0), 3000); });`,
      "s.on('error', () => process.exit(1));",
    ].join('\n');
    const file = join(owner.dir, 'raw-attach.cjs');
    writeFileSync(file, script);
    owner.type(`node ${file} &\r`);
    const listed = await pollUntil(() => rpc(owner.socketPath, 'client.list'), (r) => r.clients.length === 2, 'the raw client to attach');
    expect(listed.clients.map((c: any) => c.view_only)).toEqual([null, 'view-only: attached from inside pane w1:p2 while the scripting gate is closed']);
    // The person's client was attached from the test's own terminal: it types.
    await pollUntil(() => rpc(owner.socketPath, 'client.list'), (r) => r.clients.length === 1, 'the raw client to leave', 15_000);
    expect(existsSync(marker)).toBe(false);
    expect(await pane1Text(owner)).not.toContain('pwned');
  });

  it('`script -qfc corral attach`: a terminal run from inside a pane cannot open the gate, so send --submit stays refused', async () => {
    const owner = await personWithTwoPanes();
    const marker = join(owner.dir, 'pwned-script');
    await runInPane2(
      owner,
      `(sleep 1.5; printf '\\002s'; sleep 1) | script -qfc "timeout 5 corral --socket $CORRAL_SOCKET attach" /dev/null >/dev/null; ` +
        `corral send w1:p1 'touch ${marker}' --submit 2>${owner.dir}/send.err; cat ${owner.dir}/send.err | head -c 60`,
    );
    expect((await rpc(owner.socketPath, 'system.capabilities')).scripting).toBe(false);
    await owner.waitForText('scripting_disabled');
    expect(existsSync(marker)).toBe(false);
  });

  it('`env -i` and `setsid` (no fork) do not take a client out of its pane', async () => {
    const owner = await personWithTwoPanes();
    const marker = join(owner.dir, 'pwned-setsid');
    // In a pipeline the client is not its group's leader, so setsid makes it a new session in place.
    await runInPane2(owner, `${keysFor(marker)} | env -i PATH="$PATH" HOME="$HOME" setsid timeout 6 corral --socket "$CORRAL_SOCKET" attach`);
    expect(existsSync(marker)).toBe(false);
    expect(await pane1Text(owner)).not.toContain('pwned');
  });
});

describe('detach and hooks from inside a pane', () => {
  it('a pane cannot detach another client: `corral detach --client` and `--all` are refused and the person stays attached', async () => {
    const owner = await personWithTwoPanes();
    const person = (await rpc(owner.socketPath, 'client.list')).clients[0].client_id;
    await runInPane2(owner, `corral detach --client ${person} 2>&1 | head -c 40; corral detach --all 2>&1 | head -c 40`);
    expect((await rpc(owner.socketPath, 'client.list')).clients.map((c: any) => c.client_id)).toEqual([person]);
    expect(owner.text()).toContain('scripting_disabled');
  });

  it('a hook from w1:p2 naming w1:p1 changes nothing in w1:p1; one from inside w1:p1 counts', async () => {
    const owner = await personWithTwoPanes();
    // A stand-in claude in w1:p1 whose hook reports each line typed to it as its session id.
    const claude = join(owner.dir, 'bin', 'claude');
    mkdirSync(join(owner.dir, 'bin'));
    writeFileSync(
      claude,
      [
        '#!/usr/bin/env node',
        "process.stdin.setEncoding('utf8');",
        "process.stdin.on('data', (line) => require('child_process').spawn('corral', ['hook', 'session_start', '--agent', 'claude'], { stdio: ['pipe', 'ignore', 'ignore'] }).stdin.end(JSON.stringify({ session_id: line.trim() })));",
      ].join('\n'),
      { mode: 0o755 },
    );
    await rpc(owner.socketPath, 'pane.focus', { pane_id: 'w1:p1' });
    owner.type(`${claude}\r`);
    await pollUntil(() => rpc(owner.socketPath, 'agent.list'), (r) => r.agents.length === 1, 'the stand-in claude to be detected');

    await runInPane2(owner, `echo '{"session_id":"forged"}' | CORRAL_PANE_ID=w1:p1 corral hook session_start --agent claude`);
    let agent = (await rpc(owner.socketPath, 'agent.get', { target: 'w1:p1' })).agent;
    expect([agent.hooked, agent.session_id ?? null]).toEqual([false, null]);

    // The agent's own hook, run inside its pane, is taken: the check above could fail.
    await rpc(owner.socketPath, 'pane.focus', { pane_id: 'w1:p1' });
    owner.type('own-session\r');
    agent = (await pollUntil(() => rpc(owner.socketPath, 'agent.get', { target: 'w1:p1' }), (r) => r.agent.hooked === true, 'w1:p1 to be hooked')).agent;
    expect(agent.session_id).toBe('own-session');
  });
});
