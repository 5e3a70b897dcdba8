/** Human-readable output of the Conductor verbs (`ps`, `ls`, `status`, `search`, …). Pure. */
import type {
  AgentUsageReport,
  FleetListResult,
  SurfaceFocusResult,
  SurfaceListResult,
  SurfaceSearchResult,
  SurfaceSendTextResult,
  SurfaceStatus,
} from '../contract/protocol.js';
import { cell, formatTable } from './output.js';
import { usageSummary } from '../contract/usage-format.js';

/** `ps`: one row per agent, or `No agents.`; a USAGE column (`48k · ctx 31%`) once any agent's usage is known. */
export function formatFleet(result: FleetListResult): string {
  if (result.agents.length === 0) return 'No agents.\n';
  const withUsage = result.agents.some((row) => row.usage);
  return formatTable(
    ['SURFACE', 'PANE', 'TOOL', 'STATE', 'NAME', 'WORKSPACE', ...(withUsage ? ['USAGE'] : [])],
    result.agents.map((row) => [
      cell(row.surface_id),
      cell(row.pane_id),
      cell(row.tool),
      // A status read by rules that were never checked on this agent says so.
      cell(row.rules && row.rules !== 'verified' ? `${row.state} (${row.rules})` : row.state),
      cell(row.name ?? row.surface_name),
      cell(row.workspace),
      ...(withUsage ? [row.usage ? usageSummary(row.usage) : '-'] : []),
    ]),
  );
}

/** `agent usage` for people: a row per turn and the total. */
export function formatUsage(report: AgentUsageReport): string {
  if (report.total === null) return `${report.agent}: usage ${report.usage_source === 'unsupported' ? 'unsupported (its kind keeps no record corral reads)' : 'not known yet (its record is not found yet)'}\n`;
  const rows = report.turns.map((turn) => [cell(turn.turn), cell(turn.prompt), cell(turn.calls), cell(turn.input), cell(turn.output), cell(turn.cache_read), cell(turn.cache_write), cell(turn.total)]);
  const t = report.total;
  rows.push(['total', '', cell(t.calls), cell(t.input), cell(t.output), cell(t.cache_read), cell(t.cache_write), cell(t.total)]);
  const budget = report.budget_tokens === null ? '' : `budget ${report.budget_tokens} tokens, ${Math.max(0, report.budget_tokens - t.total)} left\n`;
  const cost = t.cost_usd === undefined ? '' : `cost $${t.cost_usd}\n`;
  return formatTable(['TURN', 'PROMPT', 'CALLS', 'INPUT', 'OUTPUT', 'CACHE_READ', 'CACHE_WRITE', 'TOTAL'], rows) + budget + cost;
}

/** `ls`: one row per pane; the focused pane is marked with `*`. */
export function formatSurfaces(result: SurfaceListResult): string {
  if (result.surfaces.length === 0) return 'No panes.\n';
  return formatTable(
    ['SURFACE', 'PANE', 'NAME', 'WORKSPACE', 'TAB', 'CWD', 'CMD'],
    result.surfaces.map((row) => [
      `${row.surface_id}${row.focused ? '*' : ''}`,
      cell(row.pane_id),
      cell(row.name),
      cell(row.workspace),
      cell(row.tab),
      cell(row.cwd),
      cell(row.cmd),
    ]),
  );
}

/** `status`: `key  value` lines; absent agent fields are left out. */
export function formatStatus(status: SurfaceStatus): string {
  const rows: [string, unknown][] = [
    ['surface', status.surface_id],
    ['pane', status.pane_id],
    ['state', status.tool && status.agent_status ? `${status.state} (${status.agent_status})` : status.state],
    ['tool', status.tool],
    ['hooked', status.tool ? String(status.hooked) : null],
    ['active_tool', status.active_tool_name],
    ['message', status.message],
    ['last_result', status.last_result],
    ['waiting_ms', status.waiting_ms],
    ['idle_ms', status.idle_ms],
    ['output_generation', status.output_generation],
  ];
  const shown = rows.filter(([, value]) => value !== null && value !== undefined && value !== '');
  const width = Math.max(...shown.map(([key]) => key.length));
  return shown.map(([key, value]) => `${key.padEnd(width)}  ${cell(value)}`).join('\n') + '\n';
}

/** `search`: `line: text` per match, and a note when the server stopped early. */
export function formatSearch(result: SurfaceSearchResult): string {
  const lines = result.matches.map((match) => `${match.line}: ${match.text}`);
  if (result.truncated) lines.push('… more matches not shown (raise --max)');
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}

/** `send`: what was typed, where (with --all), and whether it was submitted. */
export function formatSent(result: SurfaceSendTextResult): string {
  const where = result.surfaces ? ` to ${result.surfaces.length} pane${result.surfaces.length === 1 ? '' : 's'}` : '';
  return `sent ${result.length} chars${where}${result.submitted ? ', submitted' : ''}${result.paste ? ' (bracketed paste)' : ''}\n`;
}

/** `focus`: the pane now focused. */
export function formatFocused(result: SurfaceFocusResult): string {
  return `focused ${result.pane_id} (surface ${result.surface_id})\n`;
}
