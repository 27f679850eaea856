// Small DOM helpers: build elements without innerHTML, so nothing the API answers is ever parsed as markup.

/** An element: h('td', {class: 'num', 'data-rule-id': id}, 'text', child, ...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'on') Object.entries(value).forEach(([ev, fn]) => el.addEventListener(ev, fn));
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export const $ = (selector, root = document) => root.querySelector(selector);
export const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

/** Shows an error (a ProblemError, or any Error) in `box`, naming each field the problem names. */
export function showError(box, error) {
  const problem = error.problem || { title: 'Error', detail: error.message };
  const items = (problem.errors || []).map((e) => h('li', {}, describe(e)));
  fill(box, h('strong', {}, problem.title || 'Error'), problem.detail ? ` — ${problem.detail}` : '',
    items.length ? h('ul', {}, items) : null);
  box.hidden = false;
}

/** One entry of a problem's errors, in words. */
export function describe(e) {
  const where = [e.line !== undefined ? `line ${e.line}` : null, e.field].filter(Boolean).join(', ');
  const value = e.value !== undefined && e.value !== null ? ` (${JSON.stringify(e.value)})` : '';
  return `${where ? where + ': ' : ''}${e.reason || e.message || ''}${value}`;
}

/** Hides and empties an error box. */
export function clearError(box) {
  box.replaceChildren();
  box.hidden = true;
}

/**
 * Marks the page ready (performance.mark('console-ready')): its first data is shown, or its error, and it takes
 * input. Once per page; the console benchmark reads it as the time until interactive.
 */
export function ready() {
  if (!performance.getEntriesByName('console-ready', 'mark').length) performance.mark('console-ready');
}

/** The data-* value of the page's main, as the server put it there. */
export const pageData = (name) => document.getElementById('main').dataset[name];
