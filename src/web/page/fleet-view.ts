/**
 * The fleet list: "needs you" first (blocked, done and unseen, working), then every other
 * agent and pane under its workspace. Rebuilt from each fleet message — a hundred rows take
 * a millisecond or two — so the order is always the server's latest facts, never patched.
 */
import type { WebAgent, WebFleet, WebPane } from '../../contract/web.js';
import { layoutFleet, needOf, sinceText } from '../fleet-order.js';
import { el, text, textEl } from './dom.js';
import { usageSummary } from '../../contract/usage-format.js';

/**
 * Cards kept from the last render, by what they show (since-when aside, which is updated in
 * place): a fleet message that changes one agent rebuilds one card, and the rest are moved,
 * not made again — a phone redraws a hundred rows only when a hundred rows changed.
 */
const cards = new Map<string, HTMLElement>();
let nextCards = new Map<string, HTMLElement>();

function cached(key: string, make: () => HTMLElement): HTMLElement {
  const card = cards.get(key) ?? make();
  nextCards.set(key, card);
  return card;
}

export interface FleetActions {
  open(paneId: string, title: string): void;
  answer(paneId: string, label: string): void;
  readOnly(): boolean;
}

function where(machine: string | null, workspace: string): string {
  return machine ? `${machine} · ${workspace}` : workspace;
}

function lines(values: string[]): HTMLElement | null {
  if (values.length === 0) return null;
  return textEl('pre', values.join('\n'), { class: 'lines' }, true);
}

export function agentTitle(agent: WebAgent): string {
  return agent.name ? `${agent.name} (${agent.tool})` : agent.tool;
}

function agentCard(agent: WebAgent, actions: FleetActions): HTMLElement {
  const key = JSON.stringify({ ...agent, since_ms: null, readOnly: actions.readOnly() });
  const card = cached(key, () => makeAgentCard(agent, actions));
  const since = card.querySelector('.since');
  if (since && agent.since_ms !== null) since.textContent = sinceText(agent.since_ms);
  return card;
}

function makeAgentCard(agent: WebAgent, actions: FleetActions): HTMLElement {
  const need = needOf(agent);
  const open = el(
    'button',
    { class: 'open', type: 'button', 'aria-label': `open ${agent.pane_id}` },
    el('span', { class: `badge ${agent.agent_status}` }, text(need === 'done' ? 'done · new' : agent.agent_status)),
    textEl('span', agentTitle(agent), { class: 'who' }),
    textEl('span', `${where(agent.machine, agent.workspace_label)} · ${agent.pane_id}`, { class: 'where' }),
    agent.usage ? textEl('span', usageSummary(agent.usage), { class: 'usage', title: 'tokens spent · how full its context is' }) : null,
    agent.since_ms !== null ? textEl('span', sinceText(agent.since_ms), { class: 'since' }) : null,
  );
  open.addEventListener('click', () => actions.open(agent.pane_id, agentTitle(agent)));
  const card = el('li', { class: `card need-${need}`, 'data-pane': agent.pane_id, 'data-need': need }, open);
  if (agent.message && agent.agent_status === 'blocked') card.appendChild(textEl('p', agent.message, { class: 'message' }, true));
  const last = lines(agent.last_lines);
  if (last) card.appendChild(last);
  if (agent.agent_status === 'blocked' && agent.answers.length > 0 && !actions.readOnly()) {
    const row = el('div', { class: 'answers' });
    for (const answer of agent.answers) {
      const button = el('button', { class: 'answer', type: 'button', 'data-answer': answer.label }, text(answer.label));
      button.addEventListener('click', () => actions.answer(agent.pane_id, answer.label));
      row.appendChild(button);
    }
    card.appendChild(row);
  }
  return card;
}

function paneCard(pane: WebPane, actions: FleetActions): HTMLElement {
  return cached(JSON.stringify(pane), () => makePaneCard(pane, actions));
}

function makePaneCard(pane: WebPane, actions: FleetActions): HTMLElement {
  const title = pane.name ?? (pane.title || pane.cmd || pane.pane_id);
  const open = el('button', { class: 'open', type: 'button', 'aria-label': `open ${pane.pane_id}` }, textEl('span', title, { class: 'who' }), textEl('span', pane.pane_id, { class: 'where' }));
  open.addEventListener('click', () => actions.open(pane.pane_id, title));
  const card = el('li', { class: 'card pane', 'data-pane': pane.pane_id }, open);
  const last = lines(pane.last_lines);
  if (last) card.appendChild(last);
  return card;
}

/** The whole list for one fleet. */
export function renderFleet(fleet: WebFleet, actions: FleetActions): HTMLElement {
  nextCards = new Map();
  const layout = layoutFleet(fleet);
  const root = el('div', { class: 'fleet' });
  const needs = el('section', { class: 'needs', 'aria-label': 'needs you' }, textEl('h2', layout.needs.length ? 'Needs you' : 'Nothing needs you'));
  const list = el('ul', { id: 'needs' });
  for (const agent of layout.needs) list.appendChild(agentCard(agent, actions));
  needs.appendChild(list);
  root.appendChild(needs);
  for (const group of layout.groups) {
    const section = el('section', { class: 'workspace', 'data-workspace': group.key }, textEl('h2', where(group.machine, group.label)));
    const items = el('ul');
    for (const agent of group.agents) items.appendChild(agentCard(agent, actions));
    for (const pane of group.panes) items.appendChild(paneCard(pane, actions));
    section.appendChild(items);
    root.appendChild(section);
  }
  cards.clear();
  for (const [key, card] of nextCards) cards.set(key, card);
  return root;
}
