/**
 * The error model (harness/core/errors.ts): every error oneway throws for a caller to tell apart is a
 * OnewayError with a stable code, and keeps the name its messages have always shown; a lint
 * finding prints on the same line format as a problem, with its rule where a problem has its code.
 */
import { describe, expect, it } from 'vitest';
import { formatProblem, OnewayError, UsageError, type Problem } from '../../harness/core/errors.ts';
import { formatFinding } from '../../harness/features/lint/types.ts';
import { ModelError } from '../../harness/features/llm/client.ts';
import { RequestFailed } from '../../harness/features/llm/retry.ts';
import { TamperError } from '../../harness/engine/sandbox/transport.ts';

describe('thrown errors', () => {
  it('share the OnewayError base, each with its own code and name', () => {
    const thrown = [
      [new UsageError('bad flag', 'a hint'), 'usage', 'UsageError'],
      [new ModelError('no model', 2), 'model', 'ModelError'],
      [new RequestFailed({ retryable: true, status: 500, message: 'down', retryAfterMs: null }, 3, true), 'request_failed', 'RequestFailed'],
      [new TamperError('forged'), 'tamper', 'TamperError'],
    ] as const;
    for (const [e, code, name] of thrown) {
      expect(e).toBeInstanceOf(OnewayError);
      expect([e.code, e.name]).toEqual([code, name]);
    }
    expect(new UsageError('bad flag', 'a hint').hint).toBe('a hint');
    expect(new ModelError('no model', 2).retries).toBe(2);
  });
});

describe('formatting', () => {
  it('prints a lint finding as a problem, its rule in place of the code', () => {
    const at = { file: 'a.yaml', line: 3, col: 5, path: 'tools[0].name', message: 'a message', hint: 'a hint' };
    const problem: Problem = { ...at, code: 'schema', severity: 'warning' };
    expect(formatProblem(problem)).toBe('a.yaml:3:5 warning [schema] tools[0].name: a message\n    hint: a hint');
    expect(formatFinding({ ...at, rule: 'split-value', severity: 'info' })).toBe('a.yaml:3:5 info [split-value] tools[0].name: a message\n    hint: a hint');
  });

  it('prints no line:column for a problem that has no place in a file (a flag, line 0)', () => {
    const p: Problem = { code: 'spec', file: '--scenario', line: 0, col: 0, path: 'invoice', message: 'unknown scenario id "invoice"' };
    expect(formatProblem(p)).toBe('--scenario error [spec] invoice: unknown scenario id "invoice"');
  });
});
