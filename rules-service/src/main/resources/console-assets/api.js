// Every call the console makes goes through here: the public API, with the session cookie, and on a write
// the session's CSRF token, read from the page's <meta name="csrf-token">.
const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? '';

/** An answer other than 2xx: its RFC 9457 problem (or what stood in for one). */
export class ProblemError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

/**
 * Calls the API and resolves to {data, etag, status}; rejects with a ProblemError. An ended session sends the
 * page to the login form.
 */
export async function call(method, path, { body, type = 'application/json', headers = {} } = {}) {
  const sent = { Accept: 'application/json', ...headers };
  if (method !== 'GET' && method !== 'HEAD') sent['X-CSRF-Token'] = csrf;
  if (body !== undefined) sent['Content-Type'] = type;
  const res = await fetch(path, { method, headers: sent, body, credentials: 'same-origin' });
  const text = await res.text();
  const json = /json/.test(res.headers.get('Content-Type') || '');
  const data = text && json ? JSON.parse(text) : text || null;
  if (!res.ok) {
    const problem = data && typeof data === 'object' ? data : { title: res.statusText, status: res.status, detail: text };
    if (res.status === 401 && problem.type === 'unauthorized') location.assign('/console/login');
    throw new ProblemError(res.status, problem);
  }
  return { data, etag: res.headers.get('ETag'), status: res.status };
}

/** The JSON of a GET. */
export async function get(path) {
  return (await call('GET', path)).data;
}

/** A path segment, encoded. */
export const seg = (value) => encodeURIComponent(value);
