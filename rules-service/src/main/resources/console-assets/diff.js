// A line diff by longest common subsequence: enough for two revisions of one rule (tens of lines).

/** The lines of `before` and `after` as [{op: 'same' | 'del' | 'add', line}], in order. */
export function diffLines(before, after) {
  const a = before.split('\n');
  const b = after.split('\n');
  // common[i][j]: the length of the longest common subsequence of a[i..] and b[j..]
  const common = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i][j] = a[i] === b[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ op: 'same', line: a[i] });
      i++;
      j++;
    } else if (common[i + 1][j] >= common[i][j + 1]) {
      out.push({ op: 'del', line: a[i++] });
    } else {
      out.push({ op: 'add', line: b[j++] });
    }
  }
  while (i < a.length) out.push({ op: 'del', line: a[i++] });
  while (j < b.length) out.push({ op: 'add', line: b[j++] });
  return out;
}
