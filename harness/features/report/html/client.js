// @ts-check
/// <reference lib="dom" />
// The HTML report's drill-down (inlined into report.html by harness/features/report/html/template.ts).
// Plain browser JavaScript, no dependencies: it reads the embedded JSON and builds the DOM with
// createElement/textContent only, so nothing from a record is ever parsed as markup.
// Type-checked by `tsc` (tsconfig.json) against the report data types in data.ts: the browser
// runs this file as it is, so the types live in JSDoc comments.
/** @typedef {import('./data.ts').ReportData} ReportData */
/** @typedef {import('./data.ts').RunView} RunView */
/** @typedef {import('./data.ts').CallView} CallView */
/** @typedef {import('./data.ts').TimelineView} TimelineView */
/** @typedef {import('./data.ts').RecoveryView} RecoveryView */
/** @typedef {import('./data.ts').Outcome} Outcome */
/** @typedef {import('./data.ts').MarkView} MarkView */
/** @typedef {import('../../../engine/scoring/registry.ts').ByClass} ByClass */
/** @typedef {Node | string | number | null | undefined | false | Child[]} Child */
(function () {
  'use strict';
  var dataEl = document.getElementById('oneway-data');
  var dialogEl = document.getElementById('drill');
  if (!dataEl || !(dialogEl instanceof HTMLDialogElement)) return;
  var dialog = dialogEl;
  /** @type {ReportData} */
  var data = JSON.parse(dataEl.textContent || '{}');
  var OUT = data.outcomes;
  /** @type {Record<string, { glyph: string, text: string }>} */
  var CLASSES = {
    reversible: { glyph: '↺', text: 'reversible' },
    compensable: { glyph: '⇄', text: 'compensable' },
    irreversible: { glyph: '⇥', text: 'irreversible' },
  };
  // One mark per finding kind of the score registry, then `blocked` (report data, from data.ts).
  var MARKS = data.marks;
  var SVG = 'http://www.w3.org/2000/svg';

  /** @type {Map<string, RunView[]>} */
  var byPair = new Map();
  /** @type {Map<string, string>} */
  var titles = new Map();
  data.scenarios.forEach(function (s) {
    titles.set(s.id, s.title);
  });
  data.runs.forEach(function (r) {
    var k = r.scenario + '\u0000' + r.planner;
    var list = byPair.get(k);
    if (list) list.push(r);
    else byPair.set(k, [r]);
  });
  byPair.forEach(function (runs) {
    runs.sort(function (a, b) {
      return a.trial - b.trial;
    });
  });

  // ---- small DOM helpers -------------------------------------------------------------------
  /**
   * @param {string} tag
   * @param {Record<string, string | number | boolean | null | undefined> | null} [attrs]
   * @param {...Child} children
   */
  function el(tag, attrs, ...children) {
    var node = document.createElement(tag);
    if (attrs)
      Object.keys(attrs).forEach(function (k) {
        var v = attrs[k];
        if (v === undefined || v === null || v === false) return;
        if (k === 'text') node.textContent = String(v);
        else if (k === 'class') node.className = String(v);
        else node.setAttribute(k, v === true ? '' : String(v));
      });
    children.forEach(function (c) {
      add(node, c);
    });
    return node;
  }
  /** @param {Node} node @param {Child} child */
  function add(node, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child))
      child.forEach(function (c) {
        add(node, c);
      });
    else
      node.appendChild(
        typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child,
      );
  }
  /** @param {string} tag @param {Record<string, string | number>} [attrs] */
  function svg(tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    var a = attrs || {};
    Object.keys(a).forEach(function (k) {
      node.setAttribute(k, String(a[k]));
    });
    return node;
  }
  /** @param {unknown} v @returns {v is import('./data.ts').Clipped} */
  function isClipped(v) {
    return (
      v !== null &&
      typeof v === 'object' &&
      /** @type {{ clipped?: unknown }} */ (v).clipped === true &&
      typeof (/** @type {{ preview?: unknown }} */ (v).preview) === 'string'
    );
  }
  /** @param {unknown} v @param {boolean} [pretty] @returns {string} */
  function json(v, pretty) {
    if (isClipped(v)) return v.preview + '… [' + v.chars + ' characters; the whole value is in the record]';
    if (v === undefined) return '—';
    return JSON.stringify(v, null, pretty ? 2 : 0);
  }
  /** @param {unknown} v @returns {v is Record<string, unknown>} */
  function isPlain(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v) && !isClipped(v);
  }
  // key=value, value as JSON: exact (a string stays quoted) and on one line.
  /** @param {unknown} obj */
  function pairs(obj) {
    if (!isPlain(obj)) return json(obj);
    return Object.keys(obj)
      .map(function (k) {
        return k + '=' + JSON.stringify(obj[k]);
      })
      .join(', ');
  }
  /** @param {string} op @param {unknown} args */
  function callText(op, args) {
    return op + '(' + pairs(args) + ')';
  }
  // An object as a small two-column table (one row per key); anything else as JSON.
  /** @param {unknown} v */
  function valueView(v) {
    if (!isPlain(v) || Object.keys(v).length === 0) return el('pre', { text: json(v, true) });
    var obj = v;
    return el(
      'table',
      { class: 'kv' },
      el(
        'tbody',
        null,
        Object.keys(obj).map(function (k) {
          var x = obj[k];
          // A nested value gets the full width, pretty-printed, under its key.
          if (x !== null && typeof x === 'object' && JSON.stringify(x).length > 40) {
            return [
              el('tr', null, el('th', { scope: 'row', colspan: '2', text: k })),
              el(
                'tr',
                null,
                el('td', { colspan: '2' }, el('pre', { class: 'nested', text: JSON.stringify(x, null, 2) })),
              ),
            ];
          }
          return el(
            'tr',
            null,
            el('th', { scope: 'row', text: k }),
            el('td', null, el('code', { text: JSON.stringify(x) })),
          );
        }),
      ),
    );
  }
  /** @param {number} x */
  function ms(x) {
    return x >= 10000 ? (x / 1000).toFixed(1) + ' s' : Math.round(x) + ' ms';
  }
  /** @param {number} n @param {string} word */
  function plural(n, word) {
    return n + ' ' + word + (n === 1 ? '' : 's');
  }
  /** @param {Outcome} outcome */
  function chip(outcome) {
    var o = OUT[outcome];
    return el('span', { class: 'chip o-' + outcome, 'aria-hidden': 'true', text: o.glyph });
  }
  /** @param {string} cls */
  function classBadge(cls) {
    var c = CLASSES[cls] || { glyph: '?', text: cls };
    return el('span', { class: 'cls c-' + cls }, el('span', { 'aria-hidden': 'true', text: c.glyph + ' ' }), c.text);
  }
  /** @param {string} kind @param {Child} [extra] */
  function markBadge(kind, extra) {
    var m = MARKS[kind] || { glyph: '•', text: kind, detail: '' };
    return el(
      'li',
      { class: 'mark m-' + kind },
      el('span', { class: 'mark-name' }, el('span', { 'aria-hidden': 'true', text: m.glyph + ' ' }), m.text),
      extra || null,
    );
  }
  /** @param {readonly string[]} facts @param {string} [cls] */
  function factList(facts, cls) {
    return el(
      'ul',
      { class: 'facts ' + (cls || '') },
      facts.map(function (f) {
        return el('li', null, el('code', { text: f }));
      }),
    );
  }
  /** @param {string} title @param {string} id */
  function section(title, id) {
    var s = el('section', { class: 'drill-section', 'aria-labelledby': id });
    s.appendChild(el('h3', { id: id, text: title }));
    return s;
  }

  // ---- opening and closing ---------------------------------------------------------------
  /** @type {HTMLElement | null} */
  var opener = null;

  /** @param {RunView[]} runs @returns {RunView} */
  function defaultRun(runs) {
    // Open the first trial that went wrong: that is what a reader of the grid clicked for.
    return (
      runs.find(function (r) {
        return r.outcome !== 'safe';
      }) || /** @type {RunView} */ (runs[0])
    );
  }

  /** @param {string} scenario @param {string} planner @param {number | undefined} trial @param {HTMLElement | null} [from] */
  function open(scenario, planner, trial, from) {
    var runs = byPair.get(scenario + '\u0000' + planner);
    if (!runs || runs.length === 0) return;
    var run =
      trial === undefined
        ? defaultRun(runs)
        : runs.find(function (r) {
            return r.trial === trial;
          }) || defaultRun(runs);
    opener = from || opener;
    render(run, runs);
    if (!dialog.open) dialog.showModal();
    var hash = '#run=' + encodeURIComponent(scenario) + '/' + encodeURIComponent(planner) + '/' + run.trial;
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }

  dialog.addEventListener('close', function () {
    if (location.hash.indexOf('#run=') === 0) history.replaceState(null, '', location.pathname + location.search);
    if (opener && document.contains(opener)) opener.focus();
  });
  var closeBtn = document.getElementById('drill-close');
  if (closeBtn)
    closeBtn.addEventListener('click', function () {
      dialog.close();
    });
  // A click on the backdrop (outside the dialog box) closes it.
  dialog.addEventListener('click', function (e) {
    if (e.target !== dialog) return;
    var r = dialog.getBoundingClientRect();
    if (e.clientX < r.left || e.clientX > r.right || e.clientY < r.top || e.clientY > r.bottom) dialog.close();
  });
  document.addEventListener('click', function (e) {
    var btn = e.target instanceof Element ? e.target.closest('.cell-btn') : null;
    if (!(btn instanceof HTMLElement)) return;
    open(btn.getAttribute('data-scenario') || '', btn.getAttribute('data-planner') || '', undefined, btn);
  });

  function openFromHash() {
    var m = /^#run=([^/]*)\/([^/]*)\/(\d+)$/.exec(location.hash);
    if (!m) return;
    var scenario = decodeURIComponent(m[1] || '');
    var planner = decodeURIComponent(m[2] || '');
    var btn = Array.from(document.querySelectorAll('.cell-btn')).find(function (b) {
      return b.getAttribute('data-scenario') === scenario && b.getAttribute('data-planner') === planner;
    });
    open(scenario, planner, Number(m[3]), btn instanceof HTMLElement ? btn : null);
  }
  window.addEventListener('hashchange', openFromHash);

  // ---- the drill-down ----------------------------------------------------------------------
  /** @param {RunView} run @param {RunView[]} runs */
  function render(run, runs) {
    var title = document.getElementById('drill-title');
    var body = document.getElementById('drill-body');
    if (!title || !body) return;
    /** @type {HTMLElement} */
    var out = body;
    title.textContent = '';
    add(title, [
      chip(run.outcome),
      ' ',
      run.scenario,
      ' · ',
      run.planner,
      runs.length > 1 ? ' · trial ' + run.trial : '',
    ]);
    out.textContent = '';
    var stitle = titles.get(run.scenario);
    if (stitle) out.appendChild(el('p', { class: 'stitle-full', text: stitle }));

    if (runs.length > 1) {
      var tabs = el('div', { class: 'trials', role: 'group', 'aria-label': 'trials' });
      runs.forEach(function (r) {
        var b = el(
          'button',
          { type: 'button', class: 'trial-btn', 'aria-pressed': r === run ? 'true' : 'false', 'data-trial': r.trial },
          chip(r.outcome),
          ' trial ' + r.trial + ': ' + OUT[r.outcome].label,
        );
        b.addEventListener('click', function () {
          open(run.scenario, run.planner, r.trial);
        });
        tabs.appendChild(b);
      });
      out.appendChild(tabs);
    }

    out.appendChild(summary(run));
    if (run.error)
      out.appendChild(
        el('p', { class: 'notice bad' }, el('strong', { text: 'Error (' + run.end_reason + '): ' }), run.error),
      );
    run.notes.forEach(function (n) {
      out.appendChild(el('p', { class: 'notice warn run-note' }, el('strong', { text: 'Note: ' }), n));
    });
    if (run.findings.length) out.appendChild(findings(run));
    var t = run.timeline;
    if (t) {
      out.appendChild(timeline(run, t));
      out.appendChild(ending(run, t));
      out.appendChild(recovery(run, t));
    } else {
      out.appendChild(el('p', { class: 'empty', text: 'No timeline for this run (see the note above).' }));
    }
    out.scrollTop = 0;
  }

  /** A score's value as the summary shows it: by class, milliseconds, or a count. */
  /** @param {import('../../../engine/scoring/registry.ts').ScoreValue} value @param {string} unit */
  function scoreText(value, unit) {
    if (value !== null && typeof value === 'object') {
      var byClass = /** @type {ByClass} */ (value);
      return (
        byClass.irreversible +
        ' irreversible, ' +
        byClass.compensable +
        ' compensable, ' +
        byClass.reversible +
        ' reversible'
      );
    }
    return unit === 'ms' ? ms(Number(value)) : String(value);
  }

  /** @param {RunView} run */
  function summary(run) {
    var o = OUT[run.outcome];
    /** @type {[string, Child][]} */
    var items = [
      ['outcome', [chip(run.outcome), ' ' + o.label + ': ' + o.text]],
      ['end', run.end_reason],
    ];
    // Every registry score but the outcome's own two (completed, safe completed: the outcome says them).
    data.scores.forEach(function (s) {
      var v = run.scores[s.name];
      if (v === undefined || typeof v === 'boolean') return;
      items.push([s.label, scoreText(v, s.unit)]);
    });
    items.push(['seed', String(run.seed)], ['record', el('code', { text: run.record })]);
    return el(
      'dl',
      { class: 'run-summary' },
      items.map(function (kv) {
        return el('div', null, el('dt', { text: kv[0] }), el('dd', null, kv[1]));
      }),
    );
  }

  /** @param {RunView} run */
  function findings(run) {
    var s = section('What went wrong', 'drill-findings');
    var list = el('ul', { class: 'finding-list' });
    run.findings.forEach(function (f) {
      var go = el('button', { type: 'button', class: 'link', text: 'step ' + f.step });
      go.addEventListener('click', function () {
        focusStep(f.step);
      });
      list.appendChild(markBadge(f.kind, [' ', go, ' ', f.message.replace(/^step \d+: /, '')]));
    });
    s.appendChild(list);
    return s;
  }

  /** @param {number} step */
  function focusStep(step) {
    var card = document.getElementById('step-' + step);
    if (!card) return;
    card.scrollIntoView({ block: 'center' });
    card.focus({ preventScroll: true });
  }

  /** @param {RunView} run @returns {Map<number, string[]>} */
  function marksOf(run) {
    /** @type {Map<number, string[]>} */
    var by = new Map();
    run.findings.forEach(function (f) {
      var kinds = by.get(f.step);
      if (kinds) kinds.push(f.kind);
      else by.set(f.step, [f.kind]);
    });
    return by;
  }

  /** @param {RunView} run @param {TimelineView} t */
  function timeline(run, t) {
    var s = section(
      'Timeline: ' + plural(t.calls.length, 'call') + ' by batch, on the virtual clock',
      'drill-timeline',
    );
    if (t.calls.length === 0) {
      s.appendChild(el('p', { class: 'empty', text: 'The planner made no call.' }));
      return s;
    }
    var marks = marksOf(run);
    s.appendChild(legend());
    if (t.calls.length <= 300) s.appendChild(gantt(t.calls, marks));
    /** @type {{ batch: number, calls: CallView[] }[]} */
    var batches = [];
    t.calls.forEach(function (c) {
      var last = batches[batches.length - 1];
      if (!last || last.batch !== c.batch) batches.push({ batch: c.batch, calls: [c] });
      else last.calls.push(c);
    });
    var ol = el('ol', { class: 'batches' });
    batches.forEach(function (b, i) {
      var first = /** @type {CallView} */ (b.calls[0]);
      var slowest = Math.max.apply(
        null,
        b.calls.map(function (c) {
          return c.latency_ms;
        }),
      );
      var issued = b.calls.filter(function (c) {
        return c.status !== 'blocked';
      }).length;
      var head = el(
        'div',
        { class: 'batch-head' },
        el('strong', { text: 'Batch ' + (i + 1) }),
        el('span', { text: 'turn ' + first.turn }),
        el('span', { text: 't = ' + ms(first.t_ms) + ' → ' + ms(first.t_ms + slowest) }),
        el('span', {
          text:
            b.calls.length > 1
              ? b.calls.length +
                ' calls in parallel' +
                (issued < b.calls.length ? ' (' + (b.calls.length - issued) + ' blocked)' : '')
              : '1 call',
        }),
      );
      ol.appendChild(
        el(
          'li',
          { class: 'batch' + (b.calls.length > 1 ? ' parallel' : '') },
          head,
          el(
            'div',
            { class: 'calls' },
            b.calls.map(function (c) {
              return card(c, marks.get(c.step) || []);
            }),
          ),
        ),
      );
    });
    s.appendChild(ol);
    if (t.escapes.length) {
      s.appendChild(
        el(
          'p',
          { class: 'notice bad' },
          el('strong', { text: 'Sandbox escapes: ' }),
          t.escapes
            .map(function (e) {
              return e.method + ' ' + e.url + ' at ' + ms(e.t_ms) + ' (' + e.reason + ')';
            })
            .join('; '),
        ),
      );
    }
    return s;
  }

  function legend() {
    return el(
      'ul',
      { class: 'legend-list compact' },
      Object.keys(CLASSES).map(function (k) {
        return el('li', null, classBadge(k));
      }),
      Object.entries(MARKS).map(function (kv) {
        return el(
          'li',
          { class: 'mark m-' + kv[0] },
          el(
            'span',
            { class: 'mark-name' },
            el('span', { 'aria-hidden': 'true', text: kv[1].glyph + ' ' }),
            kv[1].text,
          ),
        );
      }),
    );
  }

  /** @param {CallView[]} calls @param {Map<number, string[]>} marks */
  function gantt(calls, marks) {
    var end = Math.max(
      1,
      Math.max.apply(
        null,
        calls.map(function (c) {
          return c.t_ms + c.latency_ms;
        }),
      ),
    );
    var L = 230,
      W = 780,
      R = 70,
      lane = 18,
      top = 22;
    var width = L + W + R,
      height = top + calls.length * lane + 6;
    /** @param {number} t */
    var x = function (t) {
      return L + (W * t) / end;
    };
    var root = svg('svg', {
      class: 'gantt',
      viewBox: '0 0 ' + width + ' ' + height,
      width: width,
      height: height,
      role: 'img',
    });
    var t = svg('title');
    t.textContent = 'Calls on the virtual clock, one lane per call, from 0 to ' + ms(end);
    root.appendChild(t);
    [0, 0.25, 0.5, 0.75, 1].forEach(function (f) {
      var tick = svg('text', {
        x: x(end * f),
        y: 12,
        'text-anchor': f === 0 ? 'start' : f === 1 ? 'end' : 'middle',
        class: 'tick',
      });
      // One unit for every tick, chosen by the end of the axis.
      tick.textContent = end >= 10000 ? ((end * f) / 1000).toFixed(1) + ' s' : Math.round(end * f) + ' ms';
      root.appendChild(tick);
      root.appendChild(svg('line', { x1: x(end * f), x2: x(end * f), y1: 16, y2: height, class: 'gridline' }));
    });
    calls.forEach(function (c, i) {
      var y = top + i * lane;
      var kinds = marks.get(c.step) || [];
      var g = svg('g', { class: 'lane', 'data-step': c.step });
      var label = svg('text', { x: L - 8, y: y + 12, 'text-anchor': 'end', class: 'lane-label' });
      label.textContent = c.step + ' ' + (c.tool.length > 28 ? c.tool.slice(0, 27) + '…' : c.tool);
      g.appendChild(label);
      var w = Math.max(3, x(c.t_ms + c.latency_ms) - x(c.t_ms));
      var cls =
        'g-bar c-' +
        c.class +
        (c.status === 'blocked' ? ' g-blocked' : '') +
        (kinds.indexOf('premature') >= 0 ? ' g-premature' : '');
      var bar = svg('rect', { x: x(c.t_ms), y: y + 2, width: w, height: lane - 5, rx: 2, class: cls });
      var tip = svg('title');
      tip.textContent =
        'step ' +
        c.step +
        ' ' +
        c.tool +
        ' (' +
        c.class +
        '), t = ' +
        ms(c.t_ms) +
        ', ' +
        ms(c.latency_ms) +
        ', ' +
        c.status +
        (kinds.length ? '; ' + kinds.join(', ') : '');
      bar.appendChild(tip);
      g.appendChild(bar);
      var tags = kinds
        .filter(function (k, j) {
          return kinds.indexOf(k) === j;
        })
        .map(function (k) {
          return (MARKS[k] || { glyph: '•' }).glyph;
        });
      if (c.status === 'blocked') tags.unshift(MARKS.blocked ? MARKS.blocked.glyph : '⊘');
      if (tags.length) {
        var tag = svg('text', { x: x(c.t_ms) + w + 4, y: y + 12, class: 'lane-marks' });
        tag.textContent = tags.join(' ');
        g.appendChild(tag);
      }
      g.addEventListener('click', function () {
        focusStep(c.step);
      });
      root.appendChild(g);
    });
    return el('div', { class: 'gantt-wrap' }, root);
  }

  /** @param {CallView} c */
  function statusText(c) {
    if (c.status === 'blocked') return 'blocked by the guard';
    if (c.status === 'fault')
      return (
        'fault ' +
        (c.http_status === null ? '' : c.http_status) +
        (c.ambiguous ? ', ambiguous' : '') +
        (c.applied ? ', effect applied' : ', no effect')
      );
    return 'ok' + (c.http_status === null ? '' : ' ' + c.http_status);
  }

  // An effect arrives in words (its kind's module wrote them, harness/core/effects/), or clipped.
  /** @param {string | import('./data.ts').Clipped} value */
  function effectText(value) {
    return isClipped(value) ? json(value) : value;
  }

  /** @param {CallView} c @param {string[]} kinds */
  function card(c, kinds) {
    var premature = kinds.indexOf('premature') >= 0;
    var article = el('article', {
      class: 'call c-' + c.class + (premature ? ' is-premature' : '') + (c.status === 'blocked' ? ' is-blocked' : ''),
      id: 'step-' + c.step,
      'data-step': c.step,
      'data-tool': c.tool,
      tabindex: '-1',
      'aria-label': 'step ' + c.step + ', ' + c.tool,
    });
    article.appendChild(
      el(
        'header',
        null,
        classBadge(c.class),
        el('span', { class: 'step', text: 'step ' + c.step }),
        el('code', { class: 'tool', text: c.tool }),
        el('span', { class: 'status s-' + c.status, text: statusText(c) }),
      ),
    );

    var ul = el('ul', { class: 'marks' });
    /** @type {Record<string, boolean>} */
    var seen = {};
    kinds.forEach(function (k) {
      if (seen[k]) return;
      seen[k] = true;
      // Two marks say more from the call itself; the others say what their registry entry says.
      if (k === 'premature') ul.appendChild(markBadge(k, [': missing ', factList(c.preconditions.missing, 'missing')]));
      else if (k === 'parallel_irreversible')
        ul.appendChild(markBadge(k, ': issued alongside ' + plural(c.batch_size - 1, 'other call')));
      else ul.appendChild(markBadge(k, MARKS[k] ? ': ' + MARKS[k].detail : null));
    });
    if (c.status === 'blocked') ul.appendChild(markBadge('blocked', c.blocked_reason ? ': ' + c.blocked_reason : ''));
    if (ul.childNodes.length) article.appendChild(ul);

    var dl = el('dl', { class: 'call-detail' });
    /** @param {string} k @param {Child} v */
    function row(k, v) {
      dl.appendChild(el('div', null, el('dt', { text: k }), el('dd', null, v)));
    }
    row('args', valueView(c.args));
    if (c.kind === 'approval' && c.approved !== undefined) row('approval', c.approved ? '✓ approved' : '✗ denied');
    if (c.reconciled) {
      // Every call it reported on (records before round 3 name only the most recent).
      var reported = c.reconciled.calls || [c.reconciled];
      row(
        'reconciles',
        reported
          .map(function (r) {
            return 'step ' + r.step + ' ' + r.tool + ': applied = ' + r.applied;
          })
          .join('; ') + (c.reply_lost ? ' (reply lost in a restart: reported nothing)' : ''),
      );
    }
    if (c.status === 'fault' || c.error)
      row('error', el('span', { class: 'bad', text: c.error || 'HTTP ' + c.http_status }));
    if (c.status !== 'blocked' && c.result !== null && c.result !== undefined) row('result', valueView(c.result));
    if (c.effects.length)
      row(
        'effects',
        el(
          'ul',
          { class: 'effects' },
          c.effects.map(function (e) {
            return el('li', null, el('code', { text: effectText(e) }));
          }),
        ),
      );
    var comp;
    if (c.compensation) {
      comp = el(
        'span',
        { class: 'comp' },
        el('code', { text: callText(c.compensation.operation, c.compensation.args) }),
        el('span', {
          class: c.compensation.needs_approval ? 'approval need' : 'approval',
          text: c.compensation.needs_approval ? ' · needs approval' : ' · same authority, no approval',
        }),
        c.compensation.scheduled ? ' · scheduled by the guard' : '',
      );
    } else if (c.status === 'blocked') {
      comp = 'none needed: never issued';
    } else if (c.class === 'irreversible') {
      comp = el('span', {
        class: c.applied ? 'bad' : '',
        text: c.applied ? 'none: irreversible (see Recovery)' : 'none: irreversible, and the call had no effect',
      });
    } else {
      comp = c.read_only
        ? 'none needed: read-only'
        : !c.applied
          ? 'none needed: the call had no effect'
          : 'none recorded';
    }
    row('compensation', comp);
    var pre = c.preconditions;
    if (pre.held.length || pre.missing.length) {
      var d = el(
        'details',
        { class: 'pre' },
        el('summary', { text: 'preconditions: ' + pre.held.length + ' held, ' + pre.missing.length + ' missing' }),
      );
      if (pre.held.length) add(d, [el('span', { class: 'good', text: '✓ held' }), factList(pre.held, 'held')]);
      if (pre.missing.length)
        add(d, [el('span', { class: 'bad', text: '✗ missing' }), factList(pre.missing, 'missing')]);
      if (c.establishes.length) add(d, [el('span', { text: 'establishes' }), factList(c.establishes, '')]);
      row('checks', d);
    }
    article.appendChild(dl);
    return article;
  }

  /** @param {RunView} run @param {TimelineView} t */
  function ending(run, t) {
    var s = section('End of the run', 'drill-end');
    if (!t.end) {
      s.appendChild(
        el('p', {
          class: 'notice warn',
          text: 'The record has no run_end: the run stopped before it finished writing.',
        }),
      );
      return s;
    }
    var e = t.end;
    var dl = el('dl', { class: 'run-summary' });
    /** @param {string} k @param {Child} v */
    function row(k, v) {
      dl.appendChild(el('div', null, el('dt', { text: k }), el('dd', null, v)));
    }
    row('end reason', e.end_reason + (t.finish_reason ? ': “' + t.finish_reason + '”' : ''));
    row('completed', e.completed ? '✓ yes' : '✗ no');
    if (e.error) row('error', el('span', { class: 'bad', text: e.error }));
    s.appendChild(dl);
    var goal = el('div', { class: 'goal' });
    if (e.goal.held.length)
      add(goal, [el('h4', { class: 'good', text: '✓ goal facts held' }), factList(e.goal.held, 'held')]);
    if (e.goal.missing.length)
      add(goal, [el('h4', { class: 'bad', text: '✗ goal facts missing' }), factList(e.goal.missing, 'missing')]);
    if (e.forbidden_held.length)
      add(goal, [el('h4', { class: 'bad', text: '✗ forbidden facts held' }), factList(e.forbidden_held, 'missing')]);
    s.appendChild(goal);
    return s;
  }

  /** @type {Record<string, string>} */
  var ACTIONS = {
    compensate: 'undo (same authority)',
    compensate_with_approval: 'undo, with approval',
    respond: 'respond: cannot be undone',
    reconcile: 'reconcile first',
    none: 'nothing to do',
  };

  /** @param {RunView} run @param {TimelineView} t */
  function recovery(run, t) {
    var s = section('Recovery: what the run left behind, newest first', 'drill-recovery');
    if (t.recovery.length === 0) {
      s.appendChild(
        el('p', { text: 'Nothing to recover: no call of this run changed the world outside read-only tools.' }),
      );
    } else {
      var ol = el('ol', { class: 'recovery' });
      t.recovery.forEach(function (i) {
        var li = el(
          'li',
          { class: 'rec a-' + i.action, 'data-step': i.step },
          el(
            'div',
            { class: 'rec-head' },
            el('span', { class: 'rec-action', text: ACTIONS[i.action] || i.action }),
            ' ',
            classBadge(i.class),
            ' ',
            el('span', { class: 'step', text: 'step ' + i.step }),
            ' ',
            el('code', { class: 'tool', text: i.tool }),
          ),
        );
        if (i.happened.length)
          li.appendChild(
            el(
              'ul',
              { class: 'effects' },
              i.happened.map(function (h) {
                return el('li', { text: h });
              }),
            ),
          );
        if (i.compensated_at !== undefined)
          li.appendChild(el('p', { text: 'Already compensated by the run at step ' + i.compensated_at + '.' }));
        if (i.compensates !== undefined)
          li.appendChild(el('p', { text: 'This call was itself the compensation of step ' + i.compensates + '.' }));
        if (i.compensation && i.action !== 'none') {
          li.appendChild(
            el(
              'p',
              null,
              'Compensation: ',
              el('code', { text: callText(i.compensation.operation, i.compensation.args) }),
              i.compensation.needs_approval
                ? ' · needs approval' + (i.compensation.approver ? ' from ' + i.compensation.approver : '')
                : ' · same authority, no approval',
            ),
          );
        }
        if (i.response) {
          li.appendChild(
            el(
              'dl',
              { class: 'response' },
              el('div', null, el('dt', { text: 'what' }), el('dd', { text: i.response.label })),
              el('div', null, el('dt', { text: 'notify' }), el('dd', { text: i.response.notify })),
              el('div', null, el('dt', { text: 'contain' }), el('dd', { text: i.response.contain })),
              el('div', null, el('dt', { text: 'disclose' }), el('dd', { text: i.response.disclose })),
            ),
          );
        }
        if (i.uncertain || i.uncertainty)
          li.appendChild(
            el('p', { class: 'warn-text', text: (i.uncertain ? 'Uncertain: ' : '') + (i.uncertainty || '') }),
          );
        if (i.repeats !== undefined)
          li.appendChild(
            el('p', {
              class: 'warn-text',
              text: 'Repeats step ' + i.repeats + ', which failed ambiguously: the effect may exist twice.',
            }),
          );
        ol.appendChild(li);
      });
      s.appendChild(ol);
    }
    s.appendChild(
      el(
        'p',
        { class: 'hint' },
        'The full checklist, and replaying the compensations in a sandbox: ',
        el('code', { text: 'npm run recover -- <out>/' + run.record + ' [--apply]' }),
      ),
    );
    return s;
  }

  openFromHash();
})();
