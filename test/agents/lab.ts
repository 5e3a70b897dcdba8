/**
 * The agent lab for live tests: the real Claude Code, Codex, Gemini CLI, Qwen Code, pi, Kilo
 * and OpenCode (pinned, installed into .cache/agents by scripts/install-agents.mjs), each talking to
 * corral's scripted model (test/agents/model) on 127.0.0.1, running inside a real corral
 * server's panes. agentEnvironment() is the configuration each agent needs to use that model
 * offline (docs/agents-live.md).
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, TestServer } from '../integration/harness.js';

export const AGENTS_DIR = join(ROOT, '.cache', 'agents');
/** corral's scripted model server (test/agents/model/server.mjs PORT). */
export const MODEL_SERVER = join(ROOT, 'test', 'agents', 'model', 'server.mjs');
export const LAB_AGENTS = ['claude', 'codex', 'gemini', 'qwen', 'pi', 'kilo', 'opencode'] as const;
export type LabAgent = (typeof LAB_AGENTS)[number];

/** Lab options: `piExt` loads pi with the lab's permission gate and question tool (PI_EXT=1). */
export interface LabOptions {
  piExt?: boolean;
  /** More kinds the same server's panes can run, each with its lab environment (a two-agent flow). */
  alsoAgents?: LabAgent[];
}

/** Starts corral's scripted model on a free loopback port; it logs to `dir`/fake-model.log. */
export async function startFakeModel(dir: string, env: Record<string, string> = {}): Promise<{ port: number; stop: () => void; log: string }> {
  const log = join(dir, 'fake-model.log');
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = 18000 + Math.floor(Math.random() * 20000);
    const child = spawn(process.execPath, [MODEL_SERVER, String(port)], {
      env: { ...process.env, LOG: log, ...env },
      stdio: 'ignore',
    });
    const listening = await new Promise<boolean>((resolve) => {
      const deadline = Date.now() + 30_000; // a loaded machine can take seconds to start node
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

/** Seeds HOME and returns the env an agent needs to talk to the scripted model. */
export function agentEnvironment(agent: LabAgent, home: string, project: string, port: number, opts: LabOptions = {}): Record<string, string> {
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
    case 'qwen':
      // approvalMode "default" asks before shell commands (0.24 defaults to "auto": a classifier
      // approves); preventSystemSleep false keeps it off the system D-Bus.
      mkdirSync(join(home, '.qwen'), { recursive: true });
      writeFileSync(
        join(home, '.qwen', 'settings.json'),
        JSON.stringify({
          general: { enableAutoUpdate: false, preventSystemSleep: false },
          privacy: { usageStatisticsEnabled: false },
          telemetry: { enabled: false },
          security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: false } },
          model: { name: 'fake-model' },
          tools: { approvalMode: 'default', useRipgrep: false },
          ui: { enableUserFeedback: false, enableFollowupSuggestions: false },
          memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
        }),
      );
      Object.assign(env, { OPENAI_API_KEY: 'fake-openai-key', OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_MODEL: 'fake-model' });
      break;
    case 'pi': {
      const dir = join(home, '.pi', 'agent');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'models.json'),
        JSON.stringify({
          providers: {
            fake: {
              baseUrl: `http://127.0.0.1:${port}/v1`,
              api: 'openai-completions',
              apiKey: 'fake-key',
              compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
              models: [{ id: 'fake-model', name: 'Fake Model', contextWindow: 200000, maxTokens: 8192 }],
            },
          },
        }),
      );
      writeFileSync(join(dir, 'settings.json'), JSON.stringify({ defaultProvider: 'fake', defaultModel: 'fake-model', enableInstallTelemetry: false }));
      if (opts.piExt) installPiExtensions(join(dir, 'extensions'));
      Object.assign(env, { PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1', PI_TELEMETRY: '0' });
      break;
    }
    case 'kilo': {
      const dir = join(home, '.config', 'kilo');
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'kilo.json'),
        JSON.stringify({
          $schema: 'https://app.kilo.ai/config.json',
          autoupdate: false,
          share: 'disabled',
          enabled_providers: ['fake'],
          model: 'fake/fake-model',
          small_model: 'fake/fake-model',
          provider: {
            fake: {
              npm: '@ai-sdk/openai-compatible',
              name: 'Fake',
              options: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'fake-key' },
              models: { 'fake-model': { name: 'Fake Model', tool_call: true, limit: { context: 200000, output: 8192 } } },
            },
          },
          permission: { bash: 'ask', edit: 'ask' },
        }),
      );
      Object.assign(env, {
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_DATA_HOME: join(home, '.local', 'share'),
        XDG_CACHE_HOME: join(home, '.cache'),
        XDG_STATE_HOME: join(home, '.local', 'state'),
        KILO_DISABLE_AUTOUPDATE: '1',
        KILO_DISABLE_MODELS_FETCH: '1',
        KILO_DISABLE_LSP_DOWNLOAD: '1',
        KILO_DISABLE_SHARE: '1',
        KILO_ENABLE_QUESTION_TOOL: '1',
        KILO_TELEMETRY_LEVEL: 'off',
      });
      break;
    }
    case 'opencode': {
      const dir = join(home, '.config', 'opencode');
      mkdirSync(join(dir, 'node_modules'), { recursive: true });
      writeFileSync(
        join(dir, 'opencode.json'),
        JSON.stringify({
          $schema: 'https://opencode.ai/config.json',
          autoupdate: false,
          share: 'disabled',
          model: 'fake/fake-model',
          small_model: 'fake/fake-model',
          provider: {
            fake: {
              npm: '@ai-sdk/anthropic',
              name: 'Fake',
              options: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'fake-key' },
              models: { 'fake-model': { name: 'Fake Model', tool_call: true, limit: { context: 200000, output: 8192 } } },
            },
          },
          permission: { bash: 'ask', edit: 'ask' },
        }),
      );
      // At every start 1.18.33 installs @opencode-ai/plugin into each config dir from the npm
      // registry (in the background) unless node_modules exists and package-lock.json already
      // lists it: this keeps the lab on 127.0.0.1 (strace showed no connect() but the model's).
      writeFileSync(join(dir, 'package-lock.json'), JSON.stringify({ packages: { '': { dependencies: { '@opencode-ai/plugin': '1.18.33' } } } }));
      Object.assign(env, openCodeEnvironment(home));
      break;
    }
  }
  return env;
}

/** OpenCode's environment beyond its config file: XDG dirs in the lab HOME, no updates, no fetches. */
function openCodeEnvironment(home: string): Record<string, string> {
  return {
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_ENABLE_QUESTION_TOOL: '1',
  };
}

/**
 * How pi users get prompts (pi ships neither): extensions auto-loaded from
 * ~/.pi/agent/extensions/ — the package's own example question tool, and a gate like its
 * examples/extensions/permission-gate.ts but for every bash call.
 */
function installPiExtensions(dir: string): void {
  mkdirSync(dir, { recursive: true });
  copyFileSync(join(AGENTS_DIR, 'node_modules', '@mariozechner', 'pi-coding-agent', 'examples', 'extensions', 'question.ts'), join(dir, 'question.ts'));
  writeFileSync(
    join(dir, 'bash-gate.ts'),
    [
      'import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";',
      'export default function (pi: ExtensionAPI) {',
      '  pi.on("tool_call", async (event, ctx) => {',
      '    if (event.toolName !== "bash" || !ctx.hasUI) return undefined;',
      '    const choice = await ctx.ui.select(`Allow bash command?\\n\\n  ${event.input.command}`, ["Yes", "No"]);',
      '    return choice === "Yes" ? undefined : { block: true, reason: "Blocked by user" };',
      '  });',
      '}',
      '',
    ].join('\n'),
  );
}

/** A corral server whose panes can run `agent` with its lab environment. */
export class AgentLab {
  server!: TestServer;
  project!: string;
  private model!: { port: number; stop: () => void; log: string };

  home!: string;
  /** Where the fake model saves every request body (DUMP_DIR). */
  dump!: string;

  constructor(
    readonly agent: LabAgent,
    readonly opts: LabOptions = {},
  ) {}

  async start(modelEnv: Record<string, string> = {}, serverEnv: Record<string, string> = {}): Promise<this> {
    const probe = new TestServer({ scripting: true });
    this.dump = join(probe.dir, 'model-requests');
    mkdirSync(this.dump, { recursive: true });
    this.model = await startFakeModel(probe.dir, { DUMP_DIR: this.dump, ...modelEnv });
    this.project = join(probe.dir, 'project');
    this.home = probe.home;
    mkdirSync(this.project, { recursive: true });
    const env = { ...agentEnvironment(this.agent, probe.home, this.project, this.model.port, this.opts), ...serverEnv };
    for (const also of this.opts.alsoAgents ?? []) Object.assign(env, agentEnvironment(also, probe.home, this.project, this.model.port, this.opts), serverEnv);
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
    // Only this lab's daemons: a broad pkill ended the Codex of other labs running beside it.
    endCodexDaemonsOf(this.home);
  }
}

/** Every file under `dir` whose name matches, newest first. */
function filesUnder(dir: string, name: RegExp): string[] {
  const found: string[] = [];
  const walk = (d: string, depth: number): void => {
    let entries: string[];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const entry of entries) {
      const file = join(d, entry);
      const stat = statSync(file);
      if (stat.isDirectory() && depth < 8) walk(file, depth + 1);
      else if (stat.isFile() && name.test(entry)) found.push(file);
    }
  };
  walk(dir, 0);
  return found.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/**
 * The agent's own id of its newest session, found where its rule file's `[resume] id_from`
 * says (its session files under the lab HOME): what a resume needs when there are no hooks.
 */
export function labSessionId(agent: LabAgent, home: string): string | undefined {
  const newest = (dir: string, name: RegExp, id: RegExp) => filesUnder(dir, name)[0]?.match(id)?.[0];
  switch (agent) {
    case 'claude':
      return newest(join(home, '.claude', 'projects'), new RegExp(`^${UUID}\\.jsonl$`), new RegExp(UUID));
    case 'codex':
      return newest(join(home, '.codex', 'sessions'), new RegExp(`^rollout-.*-${UUID}\\.jsonl$`), new RegExp(`${UUID}(?=\\.jsonl$)`));
    case 'gemini': {
      // session-<time>-<short id>.json, or .jsonl whose first record carries the sessionId.
      const file = filesUnder(join(home, '.gemini', 'tmp'), /^session-.*\.jsonl?$/)[0];
      return file ? (JSON.parse(readFileSync(file, 'utf8').split('\n')[0]).sessionId as string | undefined) : undefined;
    }
    case 'qwen':
      return newest(join(home, '.qwen', 'projects'), new RegExp(`^${UUID}\\.jsonl$`), new RegExp(UUID));
    case 'pi':
      return newest(join(home, '.pi', 'agent', 'sessions'), new RegExp(`_${UUID}\\.jsonl$`), new RegExp(`${UUID}(?=\\.jsonl$)`));
    case 'kilo':
      return newest(join(home, '.local', 'share', 'kilo', 'storage', 'session_diff'), /^ses_\w+\.json$/, /ses_\w+/);
    case 'opencode': {
      // Its sessions live in SQLite ($XDG_DATA_HOME/opencode/opencode.db): ask OpenCode itself,
      // not the log corral reads, so the two are checked against each other.
      const env = { ...process.env, ...openCodeEnvironment(home), HOME: home };
      const listed = spawnSync(join(AGENTS_DIR, 'node_modules', '.bin', 'opencode'), ['session', 'list', '--format', 'json', '-n', '1'], { env, cwd: home, encoding: 'utf8', timeout: 60_000 });
      try {
        return (JSON.parse(listed.stdout) as { id: string }[])[0]?.id;
      } catch {
        return undefined;
      }
    }
  }
}

/** The request bodies the fake model received since `before` (a listing of the dump dir). */
export function modelRequestsSince(dump: string, before: ReadonlySet<string>): string[] {
  return readdirSync(dump)
    .filter((f) => !before.has(f))
    .map((f) => readFileSync(join(dump, f), 'utf8'));
}

/** Ends, by pid, the Codex app-server daemons a lab HOME started (they outlive their TUI). */
export function endCodexDaemonsOf(home: string): void {
  const prefix = join(home, '.codex', 'packages', 'app-server-daemon') + '/';
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let command: string;
    try {
      command = readFileSync(`/proc/${name}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!command.startsWith(prefix)) continue;
    try {
      process.kill(Number(name), 'SIGTERM');
    } catch {
      // Gone meanwhile.
    }
  }
}

export function agentsInstalled(): boolean {
  return LAB_AGENTS.every((name) => existsSync(join(AGENTS_DIR, 'node_modules', '.bin', name)));
}
