// A tenant and its clients (GET /api/v1/clients?tenant=, a page at a time), each linking to its client page.
import { get, seg } from './api.js';
import { h, $, pageData, showError, ready } from './dom.js';

const tenantId = pageData('tenantId');
const list = $('#tenant-clients');
const more = $('#more-clients');
let cursor = null;

async function page() {
  const query = `tenant=${seg(tenantId)}&limit=100${cursor ? `&cursor=${seg(cursor)}` : ''}`;
  const answer = await get(`/api/v1/clients?${query}`);
  list.append(...answer.clients.map((c) => h('li', { 'data-digest': c.digest },
    h('a', { href: `/console/clients#${c.digest}` }, c.label || 'no label'), ' ', h('code', { class: 'hint' }, c.digest))));
  if (!list.children.length) list.append(h('li', { class: 'hint' }, 'No clients.'));
  cursor = answer.next || null;
  more.hidden = !cursor;
}

more.addEventListener('click', () => page().catch((e) => showError($('#tenant-error'), e)));
try {
  const tenant = await get(`/api/v1/tenants/${seg(tenantId)}`);
  $('#tenant-label').textContent = tenant.label || '—';
  $('#tenant-plan').textContent = tenant.plan || 'none';
  await page();
} catch (e) {
  showError($('#tenant-error'), e);
}
ready();
