// The live view: gateways, decisions per rule over the last 15 minutes (GET /api/v1/live) and the clients
// each rule rejected most (GET /api/v1/top), read again every 5 s without reloading the page.
import { get, seg } from './api.js';
import { h, fill, $, showError, clearError, ready } from './dom.js';
import { drawLines } from './plot.js';

const EVERY_MS = 5000;
const WINDOW_MS = 15 * 60 * 1000;
const OUTCOMES = ['allowed', 'rejected', 'shadow', 'fallback'];
const error = $('#live-error');
const when = (at) => (at ? new Date(at).toLocaleTimeString() : '—');

function gatewayRow(g) {
  const state = (name, good) => ({ class: `${name} ${good ? 'state-good' : 'state-bad'}` });
  return h('tr', { 'data-gateway-id': g.id },
    h('th', { scope: 'row' }, h('code', {}, g.id), g.reachable === false ? h('span', { class: 'state-bad' }, ' (unreachable)') : null),
    h('td', { class: 'rules-version num' }, g.rules_version ?? '—'),
    h('td', { class: 'last-seen' }, when(g.last_seen)),
    h('td', state('store', g.store === 'up'), g.store ?? '—'),
    h('td', state('breaker', g.breaker === 'closed'), g.breaker ?? '—'));
}

function decisionRow(rule, i) {
  return h('tr', { 'data-rule-id': rule.id },
    h('th', { scope: 'row' }, h('span', { class: `swatch c${i % 8}`, 'aria-hidden': 'true' }), h('code', {}, rule.id)),
    ...OUTCOMES.map((o) => h('td', { class: `${o} num` }, rule.totals?.[o] ?? 0)));
}

function plot(live) {
  const series = live.rules.map((rule) => ({
    name: rule.id,
    points: (rule.series || []).map((p) => ({ at: p.at, value: OUTCOMES.reduce((sum, o) => sum + (p[o] || 0), 0) })),
  }));
  drawLines($('#decisions-plot'), series, live.sampled_at - WINDOW_MS, live.sampled_at);
  fill($('#plot-legend'), live.rules.map((rule, i) => h('li', {}, h('span', { class: `swatch c${i % 8}`, 'aria-hidden': 'true' }), rule.id)));
}

async function topRejected(rules) {
  const rejecting = rules.filter((r) => (r.totals?.rejected || 0) > 0);
  const tops = await Promise.all(rejecting.map((r) => get(`/api/v1/top?rule=${seg(r.id)}&n=5`)));
  const rows = tops.flatMap((top) => top.clients.map((c) => h('tr', { 'data-rule-id': top.rule, 'data-client': c.client },
    h('td', {}, h('code', {}, top.rule)),
    h('td', {}, c.label ? `${c.label} ` : '', h('code', { class: 'hint' }, c.client.slice(0, 12))),
    h('td', { class: 'num' }, c.rejections))));
  fill($('#top-rejected tbody'), rows.length ? rows : h('tr', {}, h('td', { colspan: 3, class: 'hint' }, 'No rejections in the window.')));
}

async function refresh() {
  try {
    const live = await get('/api/v1/live');
    fill($('#gateways tbody'), live.gateways.length ? live.gateways.map(gatewayRow)
      : h('tr', {}, h('td', { colspan: 5, class: 'hint' }, 'No gateway has polled lately.')));
    fill($('#decisions tbody'), live.rules.map(decisionRow));
    plot(live);
    await topRejected(live.rules);
    const updated = $('#live-updated');
    updated.textContent = new Date(live.sampled_at).toLocaleTimeString();
    updated.dateTime = new Date(live.sampled_at).toISOString();
    clearError(error);
  } catch (e) {
    showError(error, e);
  } finally {
    ready();
    setTimeout(refresh, EVERY_MS);
  }
}

refresh();
