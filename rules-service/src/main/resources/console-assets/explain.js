// Explain: what each rule would do with a request now, read from a gateway without spending (GET /api/v1/explain).
import { call } from './api.js';
import { h, fill, $, showError, clearError, ready } from './dom.js';

const error = $('#explain-error');

const seconds = (ms) => (ms === undefined || ms === null ? '—' : `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`);

function row(rule) {
  const policy = rule.policy || {};
  const limit = `${policy.limit ?? '—'}${policy.period ? ` per ${policy.period}` : ''}${policy.burst !== undefined ? `, burst ${policy.burst}` : ''}`;
  return h('tr', { 'data-rule-id': rule.id },
    h('th', { scope: 'row' }, h('code', {}, rule.id)),
    h('td', { class: 'source' }, rule.source ?? ''),
    h('td', { class: 'limit' }, limit),
    h('td', { class: 'remaining num' }, rule.remaining ?? '—'),
    h('td', { class: 'reset num' }, seconds(rule.reset_ms)));
}

$('#explain-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  clearError(error);
  const query = new URLSearchParams({ method: $('#explain-method').value, path: $('#explain-path').value });
  // the key travels in the header a gateway counts it by, never in the URL (access logs keep URLs)
  const key = $('#explain-key').value;
  const headers = key ? { 'X-API-Key': key } : {};
  try {
    const answer = (await call('GET', `/api/v1/explain?${query}`, { headers })).data;
    $('#explain-gateway').textContent = `Answered by gateway ${answer.gateway}.`;
    fill($('#explain-result tbody'), answer.rules.length ? answer.rules.map(row)
      : h('tr', {}, h('td', { colspan: 5, class: 'hint' }, 'No rule matches this request.')));
  } catch (e) {
    showError(error, e);
  }
});
ready();
