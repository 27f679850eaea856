// A small line plot drawn by hand in SVG: one line per series, a time axis and a count axis.
const SVG = 'http://www.w3.org/2000/svg';
const W = 960;
const H = 240;
const PAD = { left: 44, right: 8, top: 10, bottom: 22 };

function el(name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

const clock = (ms) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/**
 * Draws `series` ([{name, points: [{at, value}]}]) into `svg`, each line with class c<i> (its colour), from
 * `fromMs` to `toMs`.
 */
export function drawLines(svg, series, fromMs, toMs) {
  const max = Math.max(1, ...series.flatMap((s) => s.points.map((p) => p.value)));
  const x = (at) => PAD.left + ((at - fromMs) / Math.max(1, toMs - fromMs)) * (W - PAD.left - PAD.right);
  const y = (v) => H - PAD.bottom - (v / max) * (H - PAD.top - PAD.bottom);
  const nodes = [];
  for (const fraction of [0, 0.5, 1]) {
    const v = Math.round(max * fraction);
    nodes.push(el('line', { class: 'grid', x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v) }));
    nodes.push(el('text', { x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, String(v)));
  }
  nodes.push(el('line', { class: 'axis', x1: PAD.left, x2: W - PAD.right, y1: H - PAD.bottom, y2: H - PAD.bottom }));
  nodes.push(el('text', { x: PAD.left, y: H - 6 }, clock(fromMs)));
  nodes.push(el('text', { x: W - PAD.right, y: H - 6, 'text-anchor': 'end' }, clock(toMs)));
  series.forEach((s, i) => {
    const points = s.points.map((p) => `${x(p.at).toFixed(1)},${y(p.value).toFixed(1)}`).join(' ');
    const line = el('polyline', { class: `c${i % 8}`, points, 'data-rule-id': s.name });
    line.append(el('title', {}, s.name));
    nodes.push(line);
  });
  svg.replaceChildren(...nodes);
}
