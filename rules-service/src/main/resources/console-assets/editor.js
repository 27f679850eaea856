// The rule editor: the rule's JSON is the truth; the common fields are kept in step with it both ways. Saving
// POSTs a new rule or PUTs an edited one (If-Match: the version it was read at); the API's validation
// problems are shown at the field they name.
import { call, seg } from './api.js';
import { $, $$, pageData, showError, clearError, describe, ready } from './dom.js';

const ruleId = pageData('ruleId');
const form = $('#rule-form');
const json = $('#rule-json');
const box = $('#rule-errors');
const FIELDS = ['id', 'algorithm', 'limit', 'period', 'burst'];
const NUMBERS = new Set(['limit', 'burst']);
const NEW_RULE = { id: '', match: { methods: ['GET'], path: '/**' }, key: 'api_key', algorithm: 'token_bucket',
  limit: 10, period: '1s', burst: 10 };
let etag = null;

const input = (name) => form.querySelector(`[name="${name}"]`);

function parsed() {
  try {
    const value = JSON.parse(json.value);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

function show(rule) {
  json.value = JSON.stringify(rule, null, 2);
  for (const name of FIELDS) input(name).value = rule[name] ?? '';
}

function fieldChanged(name) {
  const rule = parsed();
  if (!rule) {
    markField('json', 'not a JSON object: fix it here first');
    return;
  }
  const raw = input(name).value.trim();
  if (raw === '') delete rule[name];
  // a number where it looks like one; anything else goes as typed, for the API to judge
  else rule[name] = NUMBERS.has(name) && /^-?\d+$/.test(raw) ? Number(raw) : raw;
  json.value = JSON.stringify(rule, null, 2);
}

function jsonChanged() {
  const rule = parsed();
  markField('json', rule ? '' : 'not a JSON object');
  if (rule) for (const name of FIELDS) input(name).value = rule[name] ?? '';
}

function markField(field, message) {
  const at = form.querySelector(`[data-error-for="${CSS.escape(field)}"]`);
  if (!at) return false;
  at.textContent = message;
  const control = field === 'json' ? json : input(field);
  if (control) control.setAttribute('aria-invalid', message ? 'true' : 'false');
  return true;
}

function clearMarks() {
  $$('[data-error-for]', form).forEach((at) => markField(at.dataset.errorFor, ''));
  clearError(box);
}

function showProblem(error) {
  const errors = error.problem?.errors || [];
  const elsewhere = errors.filter((e) => !markField(e.field, describe({ ...e, field: undefined })));
  if (elsewhere.length || !errors.length) showError(box, { problem: { ...error.problem, errors: elsewhere } });
  const first = form.querySelector('[aria-invalid="true"]');
  (first || box).focus?.();
}

async function save(event) {
  event.preventDefault();
  clearMarks();
  const rule = parsed();
  if (!rule) {
    markField('json', 'not a JSON object');
    json.focus();
    return;
  }
  try {
    if (ruleId) {
      await call('PUT', `/api/v1/rules/${seg(ruleId)}`,
        { body: JSON.stringify(rule), headers: etag ? { 'If-Match': etag } : {} });
    } else {
      await call('POST', '/api/v1/rules', { body: JSON.stringify(rule) });
    }
    location.assign('/console/rules');
  } catch (e) {
    showProblem(e);
  }
}

box.tabIndex = -1;
json.addEventListener('input', jsonChanged);
for (const name of FIELDS) input(name).addEventListener(name === 'algorithm' ? 'change' : 'input', () => fieldChanged(name));
form.addEventListener('submit', save);

if (ruleId) {
  input('id').readOnly = true;
  try {
    const answer = await call('GET', `/api/v1/rules/${seg(ruleId)}`);
    etag = answer.etag;
    show(answer.data);
  } catch (e) {
    showError(box, e);
  }
} else {
  show(NEW_RULE);
}
ready();
