/**
 * `junit.xml`: one test case per scenario × planner, failed where a finding the
 * score registry raises as an alert happened (a premature irreversible call; the
 * offending step in the message), plus one
 * per failed gate. CI systems render it as a test report. Each suite's
 * properties give its sample: scenarios (the unit of evidence) × trials each,
 * and the rate registry's shares of runs with their scenario-clustered intervals.
 */
import type { PlannerSummary, Results } from '../../engine/results/types.ts';
import { rateColumns, rateKeys, rateOf } from '../../engine/scoring/rates.ts';
import { alertOf } from '../../engine/scoring/registry.ts';
import { trialsText } from './format.ts';
import { runsByPair } from './runs.ts';

/** What XML 1.0 does not allow in a document at all: outside Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]. */
const XML_INVALID =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function xmlEscape(s: string): string {
  return (
    s
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
      // XML 1.0 forbids most control characters even when escaped, U+FFFE and U+FFFF, and lone surrogates.
      .replace(XML_INVALID, '')
  );
}

interface Case {
  classname: string;
  name: string;
  file?: string;
  time: number;
  failure?: { type: string; message: string; body: string };
  /** A run that ended in an error (the planner's, the agent's or the harness's): an error, not a pass. */
  error?: { type: string; message: string; body: string };
}

/** End reasons that are errors rather than outcomes. */
const ERROR_ENDS = new Set(['planner_error', 'invalid_decision', 'decision_timeout', 'harness_error']);

function renderCase(c: Case): string {
  const attrs = `classname="${xmlEscape(c.classname)}" name="${xmlEscape(c.name)}"${c.file ? ` file="${xmlEscape(c.file)}"` : ''} time="${(c.time / 1000).toFixed(3)}"`;
  const problem = c.failure ? (['failure', c.failure] as const) : c.error ? (['error', c.error] as const) : undefined;
  if (!problem) return `    <testcase ${attrs}/>`;
  const [tag, p] = problem;
  return `    <testcase ${attrs}>\n      <${tag} type="${xmlEscape(p.type)}" message="${xmlEscape(p.message)}">${xmlEscape(p.body)}</${tag}>\n    </testcase>`;
}

/** A suite's `<properties>`: its sample size and headline figures (empty without a summary). */
function renderProperties(s: PlannerSummary | undefined): string {
  if (!s) return '';
  const props: [string, string][] = [
    ['scenarios', String(s.scenarios)],
    ['trials_per_scenario', trialsText(s.trials_per_scenario)],
    ['runs', String(s.runs)],
    // The registry's shares of runs (a suite's cases are its runs), in the order of the summary tables.
    ...rateColumns()
      .filter((r) => r.how === 'share')
      .map((r): [string, string] => {
        const { value, ci } = rateOf(s, r);
        return [rateKeys(r).value, `${value ?? ''} [${(ci ?? []).join(', ')}]`];
      }),
    ...Object.entries(s.pass_k)
      .filter(([k]) => k !== '1')
      .map(([k, v]): [string, string] => [`pass^${k}`, v === null ? '' : String(v)]),
  ];
  return `    <properties>\n${props.map(([n, v]) => `      <property name="${xmlEscape(n)}" value="${xmlEscape(v)}"/>`).join('\n')}\n    </properties>\n`;
}

export function renderJunit(results: Results): string {
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  const runsOf = runsByPair(results.runs);
  for (const planner of results.config.planners) {
    const cases: Case[] = results.scenarios.map((s) => {
      const runs = runsOf(s.id, planner);
      const bad = runs.flatMap((r) =>
        r.findings.flatMap((f) => {
          const alert = alertOf(f);
          return alert ? [{ r, f, type: alert.type }] : [];
        }),
      );
      const time = runs.reduce((a, r) => a + r.wall_ms, 0);
      const errored = runs.filter((r) => ERROR_ENDS.has(r.end_reason));
      const err = errored[0];
      const error = err && {
        type: err.end_reason,
        message: `trial ${err.trial}, ${err.error ?? err.end_reason}`,
        body: errored
          .map((r) => `trial ${r.trial} (seed ${r.seed}), ${r.end_reason}: ${r.error ?? ''}\n  record: ${r.record}`)
          .join('\n'),
      };
      const base: Case = {
        classname: `oneway.${planner}`,
        name: s.id,
        file: s.file,
        time,
        ...(error ? { error } : {}),
      };
      if (bad.length === 0) return base;
      const first = bad[0]!;
      return {
        ...base,
        failure: {
          type: first.type,
          message: `trial ${first.r.trial}, ${first.f.message}`,
          body: bad
            .map(({ r, f }) => `trial ${r.trial} (seed ${r.seed}), ${f.message}\n  record: ${r.record}`)
            .join('\n'),
        },
      };
    });
    for (const g of results.gates.failures.filter((f) => f.planner === planner)) {
      cases.push({
        classname: `oneway.${planner}.gates`,
        name: g.gate,
        time: 0,
        failure: { type: 'gate', message: g.message, body: `${g.metric} = ${g.value} (${g.threshold})` },
      });
    }
    const f = cases.filter((c) => c.failure).length;
    // A case with a failure reports it; a case whose runs errored without one is an error.
    const e = cases.filter((c) => !c.failure && c.error).length;
    tests += cases.length;
    failures += f;
    errors += e;
    const time = cases.reduce((a, c) => a + c.time, 0);
    const props = renderProperties(results.summary.find((s) => s.planner === planner));
    suites.push(
      `  <testsuite name="oneway.${xmlEscape(planner)}" tests="${cases.length}" failures="${f}" errors="${e}" skipped="0" time="${(time / 1000).toFixed(3)}">\n${props}${cases.map(renderCase).join('\n')}\n  </testsuite>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="oneway" tests="${tests}" failures="${failures}" errors="${errors}">\n${suites.join('\n')}\n</testsuites>\n`;
}
