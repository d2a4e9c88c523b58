// The scenario's rules with their live counters and a switch each, the times left on changes
// that undo themselves, and "Stop all faults": the fleet's safety lever.
import { api } from './api.js';
import { byId, fill, h } from './dom.js';
import type { RuleStatus, Status } from './types.js';

export function renderRules(status: Status, onChanged: () => void): void {
  byId('scenario-name').textContent = status.scenario ? `${status.scenario} (seed ${status.seed})` : 'no scenario: everything passes through';
  const list = byId('rules');
  if (status.rules.length === 0) {
    fill(list, h('li', { class: 'empty' }, 'no rules'));
    list.dataset.ids = '';
  } else {
    // Rebuilt only when the rule set changes, so a switch being clicked is never replaced under the pointer.
    const ids = status.rules.map((r) => r.id).join('\n');
    if (list.dataset.ids !== ids) {
      fill(list, ...status.rules.map((rule) => ruleItem(rule, onChanged)));
      list.dataset.ids = ids;
    }
    for (const rule of status.rules) updateRule(list, rule);
  }
  renderLever(status);
  renderTtl(status);
}

/** "reverts to calm in 42 s" for the scenario, and each rule switch with a TTL. */
function renderTtl(status: Status): void {
  byId('ttl-note').textContent = status.ttl
    .map((t) => `${t.target === 'scenario' ? 'scenario' : t.target.replace(/^rule:/, 'rule ')} reverts to ${t.reverts_to} in ${t.remaining_s} s`)
    .join(' · ');
}

function ruleItem(rule: RuleStatus, onChanged: () => void): HTMLLIElement {
  const toggle = h('input', { type: 'checkbox', role: 'switch', 'aria-label': `rule ${rule.id} on` });
  toggle.addEventListener('change', async () => {
    toggle.disabled = true;
    try {
      await api('PATCH', `/rules/${encodeURIComponent(rule.id)}`, { json: { enabled: toggle.checked } });
      showRuleError(rule.id, '');
    } catch (err) {
      toggle.checked = !toggle.checked;
      showRuleError(rule.id, (err as Error).message);
    } finally {
      toggle.disabled = false;
      onChanged();
    }
  });
  return h(
    'li',
    { 'data-rule': rule.id },
    h('label', { class: 'switch' }, toggle, h('span', { class: 'rule-id' }, rule.id)),
    h('span', { class: 'counts' }, h('span', { class: 'matched' }), ' matched · ', h('span', { class: 'fired' }), ' fired'),
    h('div', { class: 'rule-effects' }, rule.effects.join('; ')),
    rule.description ? h('div', { class: 'rule-description' }, rule.description) : null,
    h('div', { class: 'rule-error error' }),
  );
}

function updateRule(list: HTMLElement, rule: RuleStatus): void {
  const item = list.querySelector<HTMLElement>(`li[data-rule="${CSS.escape(rule.id)}"]`);
  if (!item) return;
  const toggle = item.querySelector('input')!;
  if (!toggle.disabled) toggle.checked = rule.enabled;
  item.classList.toggle('off', !rule.enabled);
  item.querySelector('.matched')!.textContent = String(rule.matched);
  item.querySelector('.fired')!.textContent = String(rule.fired);
}

function showRuleError(id: string, message: string): void {
  const slot = byId('rules').querySelector(`li[data-rule="${CSS.escape(id)}"] .rule-error`);
  if (slot) slot.textContent = message;
}

let pulled = false;

/** The button is the safety lever: pulled, every replica on the store is in dry run. */
function renderLever(status: Pick<Status, 'dry_run' | 'safety_lever'>): void {
  const lever = status.safety_lever;
  pulled = lever.pulled;
  const button = byId<HTMLButtonElement>('dry-run');
  button.textContent = pulled ? 'Resume faults' : 'Stop all faults';
  button.setAttribute('aria-pressed', String(pulled));
  document.body.classList.toggle('dry-run', status.dry_run);
  byId('dry-run-note').textContent = pulled
    ? `all faults stopped${lever.halted_by ? ` (halted by ${lever.halted_by})` : ''} by ${lever.by ?? 'unknown'}${lever.reason ? `: ${lever.reason}` : ''}; new scenarios and rule switches are refused until resumed`
    : status.dry_run
      ? 'dry run: rules are decided and journaled, but no fault is applied'
      : '';
}

export function bindDryRun(onChanged: () => void): void {
  const button = byId<HTMLButtonElement>('dry-run');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const lever = pulled
        ? await api<Status['safety_lever']>('DELETE', '/safety-lever', { json: {} })
        : await api<Status['safety_lever']>('PUT', '/safety-lever', { json: { reason: 'stopped from the dashboard' } });
      renderLever({ safety_lever: lever, dry_run: lever.pulled });
    } catch (err) {
      byId('dry-run-note').textContent = (err as Error).message;
    } finally {
      button.disabled = false;
      onChanged();
    }
  });
}
