/**
 * The agent lab for live tests: the real Claude Code, Codex and Gemini CLI (pinned, installed
 * into .cache/agents by scripts/install-agents.mjs), each talking to the scripted fake model
 * of ../shared/agent-lab on 127.0.0.1, running inside a real corral server's panes.
 * Mirrors the environment of ../shared/agent-lab/run-agent.sh.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, TestServer } from '../integration/harness.js';

export const AGENTS_DIR = join(ROOT, '.cache', 'agents');
/** Next to the main checkout; CORRAL_AGENT_LAB points elsewhere (a git worktree lives deeper). */
export const LAB_DIR = process.env.CORRAL_AGENT_LAB ?? join(ROOT, '..', 'shared', 'agent-lab');
export type LabAgent = 'claude' | 'codex' | 'gemini';

/** Starts the scripted model on a free loopback port. */
export async function startFakeModel(dir: string, env: Record<string, string> = {}): Promise<{ port: number; stop: () => void; log: string }> {
  const log = join(dir, 'fake-model.log');
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = 18000 + Math.floor(Math.random() * 20000);
    const child = spawn(process.execPath, [join(LAB_DIR, 'fake-model-server.mjs'), String(port)], {
      env: { ...process.env, LOG: log, ...env },
      stdio: 'ignore',
    });
    const listening = await new Promise<boolean>((resolve) => {
      const deadline = Date.now() + 5000;
      const poll = () => {
        if (existsSync(log) && readFileSync(log, 'utf8').includes(`listening on 127.0.0.1:${port}`)) return resolve(true);
        if (child.exitCode !== null || Date.now() > deadline) return resolve(false);
        setTimeout(poll, 50);
      };
      poll();
    });
    if (listening) return { port, stop: () => child.kill(), log };
    child.kill();
  }
  throw new Error('fake model server did not start');
}

/** Seeds HOME and returns the env an agent needs (from run-agent.sh). */
export function agentEnvironment(agent: LabAgent, home: string, project: string, port: number): Record<string, string> {
  const env: Record<string, string> = { COLORTERM: 'truecolor', LANG: 'C.UTF-8' };
  switch (agent) {
    case 'claude': {
      const key = 'sk-ant-fake-key-0123456789abcdefghij';
      writeFileSync(
        join(home, '.claude.json'),
        JSON.stringify({
          hasCompletedOnboarding: true,
          theme: 'dark',
          numStartups: 5,
          customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
          projects: { [project]: { hasTrustDialogAccepted: true, allowedTools: [] } },
        }),
      );
      Object.assign(env, {
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
        ANTHROPIC_API_KEY: key,
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
      });
      break;
    }
    case 'gemini':
      mkdirSync(join(home, '.gemini'), { recursive: true });
      writeFileSync(
        join(home, '.gemini', 'settings.json'),
        JSON.stringify({
          general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
          ui: { theme: 'Default' },
        }),
      );
      Object.assign(env, { GEMINI_API_KEY: 'fake-gemini-key', GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}` });
      break;
    case 'codex':
      mkdirSync(join(home, '.codex'), { recursive: true });
      writeFileSync(
        join(home, '.codex', 'config.toml'),
        [
          'model = "gpt-fake"',
          'model_provider = "fake"',
          'approval_policy = "on-request"',
          'sandbox_mode = "workspace-write"',
          'check_for_update_on_startup = false',
          '',
          '[model_providers.fake]',
          'name = "Fake"',
          `base_url = "http://127.0.0.1:${port}/v1"`,
          'env_key = "FAKE_API_KEY"',
          'wire_api = "responses"',
          '',
          `[projects."${project}"]`,
          'trust_level = "trusted"',
          '',
          '[analytics]',
          'enabled = false',
          '',
        ].join('\n'),
      );
      Object.assign(env, { CODEX_HOME: join(home, '.codex'), FAKE_API_KEY: 'fake-openai-key' });
      break;
  }
  return env;
}

/** A corral server whose panes can run `agent` with its lab environment. */
export class AgentLab {
  server!: TestServer;
  project!: string;
  private model!: { port: number; stop: () => void; log: string };

  constructor(readonly agent: LabAgent) {}

  async start(modelEnv: Record<string, string> = {}): Promise<this> {
    const probe = new TestServer({ scripting: true });
    this.model = await startFakeModel(probe.dir, modelEnv);
    this.project = join(probe.dir, 'project');
    mkdirSync(this.project, { recursive: true });
    const env = agentEnvironment(this.agent, probe.home, this.project, this.model.port);
    Object.assign(probe.env, env, { PATH: `${join(AGENTS_DIR, 'node_modules', '.bin')}:${process.env.PATH}` });
    this.server = await probe.start();
    return this;
  }

  /** A fresh workspace in the project directory; returns its root pane id. */
  async workspace(): Promise<string> {
    const created = await this.server.json(['workspace', 'create', '--cwd', this.project]);
    return created.result.root_pane.pane_id;
  }

  async stop(): Promise<void> {
    await this.server?.stop();
    this.model?.stop();
    killStrayCodexDaemons();
  }
}

/** Codex leaves an app-server daemon running after its TUI exits; end ours by pid. */
function killStrayCodexDaemons(): void {
  const child: ChildProcess = spawn('pkill', ['-f', 'corral-test-.*/home/.codex/packages/app-server-daemon/'], { stdio: 'ignore' });
  child.on('error', () => {});
}

export function agentsInstalled(): boolean {
  return ['claude', 'codex', 'gemini'].every((name) => existsSync(join(AGENTS_DIR, 'node_modules', '.bin', name)));
}
