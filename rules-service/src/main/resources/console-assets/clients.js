// A client, found by the SHA-256 of its API key, digested here: the key itself never leaves the page. Its
// overrides are set and removed by replacing its entry by digest, with If-Match, as a script would.
import { call, get, seg } from './api.js';
import { h, fill, $, showError, clearError, ready } from './dom.js';
import { sha256Hex } from './sha256.js';

const error = $('#client-error');
const section = $('#client');
let current = null; // {digest, entry, etag}

async function find(digest) {
  clearError(error);
  try {
    const answer = await call('GET', `/api/v1/clients/digest/${seg(digest)}`);
    const { digest: found, ...entry } = answer.data;
    current = { digest: found, entry, etag: answer.etag };
    render();
  } catch (e) {
    section.hidden = true;
    showError(error, e.status === 404 ? { problem: { title: 'No such client', detail: 'no client has this key' } } : e);
  }
}

function render() {
  const { digest, entry } = current;
  $('#client-digest').textContent = digest;
  $('#client-label').textContent = entry.label || '—';
  const tenant = $('#client-tenant');
  if (entry.tenant) {
    tenant.textContent = entry.tenant;
    tenant.href = `/console/tenants/${seg(entry.tenant)}`;
  } else {
    tenant.textContent = 'none (a tenant of its own)';
    tenant.removeAttribute('href');
  }
  $('#client-plan').textContent = entry.plan ? entry.plan : 'none (the tenant\'s, else each rule\'s own)';
  const overrides = Object.entries(entry.overrides || {});
  fill($('#overrides tbody'), overrides.length ? overrides.map(([rule, policy]) => h('tr', { 'data-rule-id': rule },
    h('th', { scope: 'row' }, h('code', {}, rule)),
    h('td', { class: 'num' }, policy.limit ?? ''), h('td', {}, policy.period ?? 'the rule\'s'), h('td', { class: 'num' }, policy.burst ?? ''),
    h('td', {}, h('button', { type: 'button', class: 'remove-override secondary', 'aria-label': `Remove the override of ${rule}`,
      on: { click: () => write((e) => delete e.overrides[rule]) } }, 'Remove'))))
    : h('tr', {}, h('td', { colspan: 5, class: 'hint' }, 'No overrides: the plan or the rule decides.')));
  section.hidden = false;
}

/** Replaces the client's entry with `change` applied to a copy of it. */
async function write(change) {
  clearError(error);
  const entry = structuredClone(current.entry);
  entry.overrides = entry.overrides || {};
  change(entry);
  if (!Object.keys(entry.overrides).length) delete entry.overrides;
  try {
    const answer = await call('PUT', `/api/v1/clients/digest/${seg(current.digest)}`,
      { body: JSON.stringify(entry), headers: { 'If-Match': current.etag } });
    const { digest, ...stored } = answer.data;
    current = { digest, entry: stored, etag: answer.etag };
    render();
  } catch (e) {
    showError(error, e);
  }
}

function override() {
  const policy = {};
  for (const name of ['limit', 'period', 'burst']) {
    const raw = $(`#override-${name}`).value.trim();
    if (raw !== '') policy[name] = name !== 'period' && /^-?\d+$/.test(raw) ? Number(raw) : raw;
  }
  return policy;
}

async function loadRules() {
  const set = await get('/api/v1/rules');
  fill($('#override-rule'), set.rules.filter((r) => r.key === 'api_key')
    .map((r) => h('option', { value: r.id }, r.id)));
}

$('#find-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const key = $('#api-key').value;
  if (key) await find(await sha256Hex(key));
});
$('#override-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const rule = $('#override-rule').value;
  const policy = override();
  write((e) => { e.overrides[rule] = policy; });
});

// /console/clients#<digest> (the tenant page links so) opens that client
const linked = location.hash.slice(1);
Promise.all([loadRules().catch((e) => showError(error, e)), /^[0-9a-f]{64}$/.test(linked) ? find(linked) : null])
  .then(ready);
