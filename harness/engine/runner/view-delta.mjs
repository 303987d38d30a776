// A planner's view as it crosses to its sealed process (runner/isolate.ts sends, child-host.mjs
// rebuilds): what changed since the process last saw a view, not the whole view each decision.
//
// - Deep-frozen parts of a view (a scenario's tools, task, goal ...: one copy serves every run of a
//   scenario) cannot change: each goes once, with a number (`define`), and by its number after.
// - The keys of the view, and which number each frozen part has, go only when they differ from the
//   last view this process was sent (a restart adds `restarts` and `pending`; a new scenario new
//   numbers); a decision within a run sends neither.
// - The history only grows within a run: the entries the process holds are kept (`keep`), the new
//   ones sent (`add`).
// - What is left (the turn, the steps used, `pending` ...) goes as it is (`plain`).
//
// Plain JavaScript: the sealed process runs no TypeScript loader.

/** A deep-frozen object, as the runner makes a view's parts and as the process rebuilds them. */
export function deepFreeze(v) {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

const frozenObject = (v) => v !== null && typeof v === 'object' && Object.isFrozen(v);

/**
 * The harness's side, one per process (what it holds outlives a run): `encode(view, sent)` is the
 * delta that turns what the process holds into `view`, given the history it was sent last in this
 * run (`[]` at a run's start).
 */
export function viewEncoder() {
  const ids = new WeakMap();
  let next = 0;
  let lastKeys = '';
  let lastRefs = '';
  return function encode(view, sent) {
    const keys = [];
    const plain = {};
    const refs = {};
    const define = [];
    for (const key of Object.keys(view)) {
      keys.push(key);
      if (key === 'history') continue;
      const value = view[key];
      if (!frozenObject(value)) {
        plain[key] = value;
        continue;
      }
      let id = ids.get(value);
      if (id === undefined) {
        ids.set(value, (id = next++));
        define.push([id, value]);
      }
      refs[key] = id;
    }
    const history = view.history;
    let keep = 0;
    while (keep < sent.length && keep < history.length && sent[keep] === history[keep]) keep++;
    const delta = { plain, keep, add: history.slice(keep) };
    const keyText = keys.join('\u0000');
    if (keyText !== lastKeys) delta.keys = keys;
    lastKeys = keyText;
    const refText = JSON.stringify(refs);
    if (refText !== lastRefs) delta.refs = refs;
    lastRefs = refText;
    if (define.length > 0) delta.define = define;
    return delta;
  };
}

/**
 * The process's side, one per process: `apply(delta)` is the view the harness encoded, deep-frozen
 * as it is in the harness's process; `newRun()` drops the history at a run's start.
 */
export function viewDecoder() {
  const held = new Map();
  let keys = [];
  let refs = {};
  let history = [];
  return {
    newRun() {
      history = [];
    },
    apply(d) {
      for (const [id, value] of d.define ?? []) held.set(id, deepFreeze(value));
      if (d.keys) keys = d.keys;
      if (d.refs) refs = d.refs;
      if (d.keep < history.length) history = history.slice(0, d.keep);
      for (const entry of d.add) history.push(deepFreeze(entry));
      const view = {};
      for (const key of keys)
        view[key] = key === 'history' ? history.slice() : key in refs ? held.get(refs[key]) : d.plain[key];
      return view;
    },
  };
}
