/**
 * Usage as people read it (SPEC §18): the sidebar's, `ps`'s and the web cards' short form.
 * Pure, in the contract so the CLI, the TUI and the web page share it.
 */
import type { AgentUsage } from './objects.js';

/** A compact count: 950, 1.5k, 48k, 1.2M. */
export function compactTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${n < 10_000 ? (n / 1000).toFixed(1).replace(/\.0$/, '') : Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/** `48k · ctx 31%`: the total, and how full the context is when the window is known. */
export function usageSummary(usage: AgentUsage): string {
  const fill = usage.context_window ? ` · ctx ${Math.min(100, Math.round((usage.context_tokens / usage.context_window) * 100))}%` : '';
  return `${compactTokens(usage.total)}${fill}`;
}
