// The scenario's rules with their live counters and a switch each, and "stop all faults".
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
  renderDryRun(status.dry_run);
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

let dryRun = false;

function renderDryRun(on: boolean): void {
  dryRun = on;
  const button = byId<HTMLButtonElement>('dry-run');
  button.textContent = on ? 'Resume faults' : 'Stop all faults';
  button.setAttribute('aria-pressed', String(on));
  document.body.classList.toggle('dry-run', on);
  byId('dry-run-note').textContent = on ? 'dry run: rules are decided and journaled, but no fault is applied' : '';
}

export function bindDryRun(onChanged: () => void): void {
  const button = byId<HTMLButtonElement>('dry-run');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const answer = await api<{ dry_run: boolean }>('PUT', '/dry-run', { json: { enabled: !dryRun } });
      renderDryRun(answer.dry_run);
    } catch (err) {
      byId('dry-run-note').textContent = (err as Error).message;
    } finally {
      button.disabled = false;
      onChanged();
    }
  });
}
