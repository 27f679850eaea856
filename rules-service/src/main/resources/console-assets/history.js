// A rule's history: every revision (who, when, what) and a line diff of any two of them.
import { get, seg } from './api.js';
import { h, fill, $, pageData, showError, ready } from './dom.js';
import { diffLines } from './diff.js';

const ruleId = pageData('ruleId');
const from = $('#diff-from');
const to = $('#diff-to');
let byVersion = new Map();

const text = (revision) => (revision && revision.operation !== 'delete'
  ? JSON.stringify(revision.rule, null, 2) : '');
const when = (at) => new Date(at).toLocaleString();

function render() {
  const lines = diffLines(text(byVersion.get(Number(from.value))), text(byVersion.get(Number(to.value))));
  fill($('#diff'), lines.map((l) => h('span', { class: `diff-${l.op}` }, l.line)));
}

try {
  const history = await get(`/api/v1/rules/${seg(ruleId)}/history`);
  const revisions = history.revisions;
  byVersion = new Map(revisions.map((r) => [r.version, r]));
  fill($('#revisions'), revisions.map((r) => h('li', { 'data-revision': r.version },
    h('strong', {}, `version ${r.version}`), ` — ${String(r.operation).toLowerCase()} by `,
    h('span', { class: 'actor' }, r.actor), ' at ', h('time', { datetime: r.at }, when(r.at)))));
  const options = () => revisions.map((r) => h('option', { value: r.version }, `version ${r.version}`));
  fill(from, options());
  fill(to, options());
  from.value = String(revisions[Math.max(0, revisions.length - 2)].version);
  to.value = String(revisions[revisions.length - 1].version);
  from.addEventListener('change', render);
  to.addEventListener('change', render);
  render();
} catch (e) {
  showError($('#history-error'), e);
}
ready();
