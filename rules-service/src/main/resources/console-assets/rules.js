// The rules list: GET /api/v1/rules, one row per rule with what it limits and how.
import { get, seg } from './api.js';
import { h, fill, $, showError, ready } from './dom.js';

const matches = (rule) => `${rule.match?.methods?.length ? rule.match.methods.join(', ') : 'any method'} ${rule.match?.path || '/**'}`;

function policy(rule) {
  const per = rule.algorithm === 'concurrency' ? 'in flight' : `per ${rule.period}`;
  const burst = rule.burst !== undefined && rule.burst !== rule.limit ? `, burst ${rule.burst}` : '';
  const plans = rule.plans ? `; plans: ${Object.keys(rule.plans).join(', ')}` : '';
  return `${rule.limit} ${per}${burst} (${rule.algorithm || 'token_bucket'})${plans}`;
}

function state(rule) {
  if (rule.enabled === false) return h('span', { class: 'state-bad' }, 'off');
  if (rule.shadow) return h('span', {}, 'shadow');
  return h('span', { class: 'state-good' }, 'enforced');
}

function row(rule) {
  const id = seg(rule.id);
  return h('tr', { 'data-rule-id': rule.id },
    h('th', { scope: 'row' }, h('code', {}, rule.id), rule.description ? h('div', { class: 'hint' }, rule.description) : null),
    h('td', {}, matches(rule)),
    h('td', {}, h('code', {}, rule.key)),
    h('td', {}, policy(rule)),
    h('td', {}, state(rule)),
    h('td', {},
      h('a', { class: 'edit-rule', href: `/console/rules/${id}/edit`, 'aria-label': `Edit ${rule.id}` }, 'Edit'), ' · ',
      h('a', { class: 'rule-history', href: `/console/rules/${id}/history`, 'aria-label': `History of ${rule.id}` }, 'History')));
}

try {
  const set = await get('/api/v1/rules');
  $('#rules-version').textContent = String(set.version);
  fill($('#rules-table tbody'), set.rules.map(row));
} catch (e) {
  showError($('#rules-error'), e);
}
ready();
