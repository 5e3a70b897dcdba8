/**
 * The mirror (SPEC §14) end to end without a network: a real core's panes (scripted children,
 * real headless terminals) published by MirrorPublisher, the messages carried by a test link
 * that delivers, delays, backs up and drops them, and applied by MachineMirror. Whatever the
 * interleaving of output, resizes, disconnects and reconnects (with or without the batches the
 * remote still holds), once the link delivers what it carries the mirror shows every pane
 * exactly as the remote does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { unitCore } from './support/unit-core.js';
import { MirrorPublisher } from '../../src/rpc/mirror-publisher.js';
import { MirrorLog } from '../../src/rpc/mirror-log.js';
import { MachineMirror, type ForeignPane } from '../../src/machines/machine-mirror.js';
import type { MirrorMessage } from '../../src/contract/protocol.js';
import type { CorralCore } from '../../src/core/corral-core.js';

const cores: CorralCore[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.shutdown();
});

/** A link the test drives: messages wait in `inFlight` until delivered; `backedUp` fakes a full socket. */
class TestLink {
  inFlight: MirrorMessage[] = [];
  backedUp = false;
  private drain: Array<() => void> = [];
  readonly stream = {
    send: (_method: string, params: unknown) => {
      this.inFlight.push(params as MirrorMessage);
      return !this.backedUp;
    },
    backlog: () => (this.backedUp ? 64 * 1024 * 1024 : 0),
    onDrain: (listener: () => void) => this.drain.push(listener),
  };
  deliver(mirror: MachineMirror, count = Infinity): void {
    for (const message of this.inFlight.splice(0, count)) mirror.apply(message);
  }
  release(): void {
    this.backedUp = false;
    for (const listener of this.drain) listener();
  }
}

async function setup() {
  const made = unitCore({ scrollback_lines: 200 });
  cores.push(made.core);
  const core = made.core;
  const root = core.createWorkspace({ cwd: '/tmp' }).pane;
  core.splitPane(root.id, 'right');
  const log = new MirrorLog(core);
  const mirror = new MachineMirror('build', 0, { scrollback: 200, onChange: () => {} });
  return { core, children: made.children, log, mirror };
}

/** What a pane shows: its visible rows with colours, and the cursor. */
function screenOf(view: { read(o: { source: 'visible'; format: 'ansi' }): { text: string }; cursor(): unknown }): string {
  return `${view.read({ source: 'visible', format: 'ansi' }).text}\n${JSON.stringify(view.cursor())}`;
}

function expectSame(core: CorralCore, mirror: MachineMirror): void {
  for (const pane of core.model.panes.values()) {
    const foreign = mirror.panes.get(mirror.qualify(pane.id)) as ForeignPane;
    expect(foreign, pane.id).toBeDefined();
    expect(screenOf(mirror.view(foreign)), pane.id).toBe(screenOf(core.view(pane)));
  }
}

const outputs = fc.oneof(
  fc.stringMatching(/^[a-z ]{1,30}$/).map((s) => `${s}\r\n`),
  fc.constantFrom('\x1b[31mred\x1b[0m\r\n', '\x1b[1;4mbold\x1b[m', '\x1b[2J\x1b[H', 'no newline ', '\x1b[3;5Hmoved', 'é中文🙂\r\n', '\x1b[?1049hALT\x1b[?1049l'),
);

type Step =
  | { kind: 'output'; pane: number; text: string }
  | { kind: 'resize'; cols: number; rows: number }
  | { kind: 'deliver'; count: number }
  | { kind: 'backup' }
  | { kind: 'drain' }
  | { kind: 'reconnect'; forgetLog: boolean };

const steps = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('output' as const), pane: fc.integer({ min: 0, max: 1 }), text: outputs }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('resize' as const), cols: fc.integer({ min: 20, max: 90 }), rows: fc.integer({ min: 5, max: 30 }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('deliver' as const), count: fc.integer({ min: 0, max: 6 }) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'backup' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'drain' as const }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('reconnect' as const), forgetLog: fc.boolean() }) },
  ),
  { maxLength: 40 },
);

describe('the mirror', () => {
  it('shows every pane as the remote does after a snapshot and its output', async () => {
    const { core, children, log, mirror } = await setup();
    const link = new TestLink();
    children[0]!.output('\x1b[32mhello\x1b[0m\r\nworld');
    const publisher = new MirrorPublisher(core, log, link.stream, 100);
    publisher.start({});
    children[1]!.output('second pane\r\n\x1b[7minverse\x1b[0m');
    core.setViewport(100, 30);
    link.deliver(mirror);
    expect([...mirror.panes.keys()]).toEqual(['build/w1:p1', 'build/w1:p2']);
    expectSame(core, mirror);
    publisher.dispose();
  });

  it('resumes from the batches the remote still holds, and re-snapshots when it does not', async () => {
    const { core, children, log, mirror } = await setup();
    let link = new TestLink();
    let publisher = new MirrorPublisher(core, log, link.stream, 100);
    publisher.start({});
    link.deliver(mirror);
    // The link drops; output goes on meanwhile.
    publisher.dispose();
    for (let i = 0; i < 20; i++) children[0]!.output(`while away ${i}\r\n`);
    link = new TestLink();
    publisher = new MirrorPublisher(core, log, link.stream, 100);
    publisher.start(mirror.resumePoints());
    // Resumed: no snapshot was needed, only the missed batches.
    expect(link.inFlight.filter((m) => m.kind === 'snapshot')).toHaveLength(0);
    expect(link.inFlight.filter((m) => m.kind === 'output').length).toBeGreaterThanOrEqual(20);
    link.deliver(mirror);
    expectSame(core, mirror);
    publisher.dispose();
    // Past the log's bound the batches are gone: a fresh snapshot instead.
    for (let i = 0; i < 40; i++) children[0]!.output('x'.repeat(64 * 1024));
    link = new TestLink();
    publisher = new MirrorPublisher(core, log, link.stream, 100);
    publisher.start(mirror.resumePoints());
    expect(link.inFlight.filter((m) => m.kind === 'snapshot').map((m) => (m as { surface_id: number }).surface_id)).toEqual([1]);
    link.deliver(mirror);
    expectSame(core, mirror);
    publisher.dispose();
  });

  it('property: any interleaving of output, resizes, backed-up links and reconnects ends equal to the remote', async () => {
    await fc.assert(
      fc.asyncProperty(steps, async (plan: Step[]) => {
        const { core, children, log, mirror } = await setup();
        let link = new TestLink();
        let publisher = new MirrorPublisher(core, log, link.stream, 100);
        publisher.start({});
        for (const step of plan) {
          switch (step.kind) {
            case 'output':
              children[step.pane]!.output(step.text);
              break;
            case 'resize':
              core.setViewport(step.cols, step.rows);
              break;
            case 'deliver':
              link.deliver(mirror, step.count);
              break;
            case 'backup':
              link.backedUp = true;
              break;
            case 'drain':
              link.release();
              break;
            case 'reconnect':
              // What was in flight is lost with the connection.
              publisher.dispose();
              link = new TestLink();
              publisher = new MirrorPublisher(core, log, link.stream, 100);
              publisher.start(step.forgetLog ? {} : mirror.resumePoints());
              break;
          }
        }
        link.release();
        link.deliver(mirror);
        expectSame(core, mirror);
        publisher.dispose();
        mirror.dispose();
        log.dispose();
        await core.shutdown();
        cores.length = 0;
      }),
      { numRuns: 40, seed: 14 },
    );
  });
});
