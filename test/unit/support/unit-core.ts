/**
 * The real CorralCore for unit tests: session model, PaneHost and headless terminals, with
 * the pty children scripted (fakePanes), time moved by hand (FakeClock) and an empty /proc
 * (FakeProcessTable). The caller shuts it down.
 */
import { CorralCore } from '../../../src/core/corral-core.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { FakeClock, fakePanes, FakeProcessTable } from './fakes.js';

export function unitCore(config: Partial<ReturnType<typeof defaultConfig>> = {}) {
  const panes = fakePanes();
  const clock = new FakeClock();
  const core = new CorralCore({
    config: { ...defaultConfig({}), shell: '/bin/sh', scrollback_lines: 100, ...config },
    scripting: false,
    socketPath: '/tmp/corral-unit.sock',
    launcherDir: null,
    baseEnv: { PATH: process.env.PATH, HOME: '/home/user' },
    agentRules: new Map(),
    panes: panes.factory,
    clock,
    processes: new FakeProcessTable(),
  });
  return { core, clock, ...panes };
}
