// Import a whole rule set: a dry run (PUT /api/v1/rules?dry_run=true) shows what would change; Apply sends
// exactly the text that passed, with If-Match: the version the dry run saw, so nothing changed in between.
import { call } from './api.js';
import { h, fill, $, showError, ready } from './dom.js';

const text = $('#ruleset-text');
const apply = $('#apply');
const result = $('#dry-run-result');
const applied = $('#apply-result');
let checked = null; // {text, etag} of the last dry run that passed

const type = (body) => (body.trimStart().startsWith('{') ? 'application/json' : 'application/yaml');

function edited() {
  checked = null;
  apply.disabled = true;
}

function changes(answer) {
  const items = [
    ...answer.created.map((id) => ['added', id]),
    ...answer.changed.map((id) => ['changed', id]),
    ...answer.deleted.map((id) => ['removed', id]),
  ].map(([change, id]) => h('li', { 'data-change': change, 'data-rule-id': id, class: `change-${change}` },
    `${change}: `, h('code', {}, id)));
  return [
    h('p', {}, items.length ? `${items.length} rule(s) would change; ${answer.unchanged.length} stay as they are.`
      : `Nothing would change (${answer.unchanged.length} rule(s) as they are).`),
    items.length ? h('ul', { class: 'changes' }, items) : null,
  ];
}

async function dryRun() {
  const body = text.value;
  fill(applied);
  edited();
  try {
    const answer = await call('PUT', '/api/v1/rules?dry_run=true', { body, type: type(body) });
    fill(result, changes(answer.data));
    result.className = 'ok';
    const changing = answer.data.created.length + answer.data.changed.length + answer.data.deleted.length > 0;
    // a dry run that changes something answers the version it would make: the set is one before it now
    checked = { text: body, etag: `"${changing ? answer.data.version - 1 : answer.data.version}"` };
    apply.disabled = !changing;
  } catch (e) {
    result.className = 'error';
    showError(result, e);
  }
}

async function applyChecked() {
  if (!checked || checked.text !== text.value) return edited();
  try {
    const answer = await call('PUT', '/api/v1/rules',
      { body: checked.text, type: type(checked.text), headers: { 'If-Match': checked.etag } });
    fill(applied, h('p', { class: 'ok' }, 'Applied: the rule set is now version ',
      h('strong', { id: 'applied-version' }, String(answer.data.version)), '.'));
  } catch (e) {
    showError(applied, e);
  }
  edited();
}

text.addEventListener('input', edited);
$('#ruleset-file').addEventListener('change', async (event) => {
  const file = event.target.files[0];
  if (file) {
    text.value = await file.text();
    edited();
  }
});
$('#dry-run').addEventListener('click', dryRun);
apply.addEventListener('click', applyChecked);
ready();
