/**
 * What the seal switches off in MSW because nothing in oneway uses it, while every tool call and
 * every model request paid for it (npm run bench, LLM-bound case): a clone of every tool reply, and
 * the proxies MSW puts on the global Headers, Request and Response.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seal } from '../../harness/engine/sandbox/seal.ts';
import { EMAIL_YAML, call, runDecisions, scenarioFrom } from '../helpers/run.ts';

const scenario = scenarioFrom(EMAIL_YAML);

// As they are before the seal first starts MSW.
const before = {
  Headers: globalThis.Headers,
  Request: globalThis.Request,
  Response: globalThis.Response,
  append: Headers.prototype.append,
  set: Headers.prototype.set,
  delete: Headers.prototype.delete,
};

beforeAll(() => seal.acquire());
afterAll(() => seal.release());

describe('the seal over MSW', () => {
  it('leaves the global Headers, Request and Response as they were, also once MSW stopped and started again', () => {
    const unchanged = () => {
      expect(seal.active).toBe(true);
      expect(globalThis.Headers).toBe(before.Headers);
      expect(globalThis.Request).toBe(before.Request);
      expect(globalThis.Response).toBe(before.Response);
      expect(Headers.prototype.append).toBe(before.append);
      expect(Headers.prototype.set).toBe(before.set);
      expect(Headers.prototype.delete).toBe(before.delete);
    };
    unchanged();
    seal.release();
    seal.acquire();
    unchanged();
  });

  it("hands a tool's reply to the run without cloning it", async () => {
    // Writable here (Node's types declare it read-only).
    const proto = Response.prototype as { clone(this: Response): Response };
    const clone = proto.clone;
    let clones = 0;
    proto.clone = function (this: Response) {
      clones++;
      return clone.call(this);
    };
    try {
      const r = await runDecisions(
        scenario,
        [call('verify_recipient', { email: 'bob@acme.example' }), { type: 'finish' }],
        { transport: 'msw' },
      );
      expect(r.error).toBeNull();
      expect(r.steps).toBe(1);
    } finally {
      proto.clone = clone;
    }
    expect(clones).toBe(0);
  });
});
