/**
 * Our own retry loop around one model request (the SDK's is switched off):
 * 408, 409, 429, 5xx and connection failures are retried with exponential
 * backoff and full jitter drawn from the run's seeded generator, so a replayed
 * run waits the same way; `sleep` is injected so tests never wait. A
 * `retry-after` holds back every run's requests to that origin (OriginLimiter).
 */
import { APIConnectionError, APIError, APIUserAbortError } from 'openai';
import type { Rng } from '../../util/rng.ts';
import { OnewayError } from '../../core/errors.ts';

export interface RetryPolicy {
  maxRetries: number;
  baseMs: number;
  /** The longest single wait (default 10 s). */
  capMs?: number;
  rng: Rng;
  sleep(ms: number): Promise<void>;
  /** Shared by every request to the same model origin: a `retry-after` one of them got holds back all of them. */
  limiter?: OriginLimiter;
}

/**
 * The requests of every run to one model origin. A server that answers 429 (or 5xx) with
 * `retry-after` says how long every client should wait, not only the request it refused: the run
 * that got it waits that long (its backoff), and every other run's next request waits for the same
 * wait, so a large evaluation at `--concurrency=128` does not keep hammering a rate-limited provider
 * with requests that will be refused too. Waits are the runs' own `sleep` (tests pass virtual time);
 * a run's seeded backoff draws are unchanged, so records are the same.
 */
export class OriginLimiter {
  private held: Promise<void> | undefined;

  /** Resolves once no wait the origin asked for is pending (at once, usually). */
  ready(): Promise<void> | undefined {
    return this.held;
  }

  /** Holds every request to the origin back until `wait` is over (and any wait already held). */
  hold(wait: Promise<void>): void {
    // A wait that fails holds nothing back (the run whose wait it was sees the failure itself).
    const held = (this.held ? Promise.all([this.held, wait]) : wait).then(
      () => {},
      () => {},
    );
    this.held = held;
    void held.finally(() => {
      if (this.held === held) this.held = undefined;
    });
  }
}

const limiters = new Map<string, OriginLimiter>();

/**
 * The limiter of a model origin (`https://api.openai.com`, `http://127.0.0.1:11434`), one per process
 * (each worker thread has its own).
 *
 * @example
 * limiterFor(new URL(opts.baseURL).origin)
 */
export function limiterFor(origin: string): OriginLimiter {
  let l = limiters.get(origin);
  if (!l) limiters.set(origin, (l = new OriginLimiter()));
  return l;
}

export interface Failure {
  retryable: boolean;
  /** HTTP status, or null for a connection failure or a fault of our own. */
  status: number | null;
  message: string;
  /** What the server asked for in `retry-after(-ms)`, if anything. */
  retryAfterMs: number | null;
}

/** A request that failed for good: not retryable, or out of retries. */
export class RequestFailed extends OnewayError {
  constructor(
    readonly failure: Failure,
    readonly retries: number,
    readonly exhausted: boolean,
  ) {
    super('request_failed', failure.message);
    this.name = 'RequestFailed';
  }
}

const RETRY_STATUS = (s: number) => s === 408 || s === 409 || s === 429 || s >= 500;
const MAX_RETRY_AFTER_MS = 60_000;

function retryAfter(headers: Headers | undefined): number | null {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return Math.min(ms, MAX_RETRY_AFTER_MS);
  const raw = headers?.get('retry-after');
  if (!raw) return null;
  const secs = Number(raw);
  const wait = Number.isFinite(secs) ? secs * 1000 : Date.parse(raw) - Date.now();
  return Number.isFinite(wait) && wait >= 0 ? Math.min(wait, MAX_RETRY_AFTER_MS) : null;
}

/**
 * What kind of failure an error from the SDK is.
 *
 * @example
 * classify(new RateLimitError(429, {}, 'slow down', new Headers())).retryable // true
 */
export function classify(e: unknown): Failure {
  if (e instanceof APIUserAbortError)
    return { retryable: false, status: null, message: 'the request was aborted', retryAfterMs: null };
  if (e instanceof APIConnectionError)
    return { retryable: true, status: null, message: e.message || 'connection error', retryAfterMs: null };
  if (e instanceof APIError) {
    const status = typeof e.status === 'number' ? e.status : null;
    return {
      retryable: status !== null && RETRY_STATUS(status),
      status,
      message: e.message,
      retryAfterMs: retryAfter(e.headers),
    };
  }
  return { retryable: false, status: null, message: e instanceof Error ? e.message : String(e), retryAfterMs: null };
}

/**
 * The wait before retry number `attempt + 1`: the server's `retry-after` when it gives one,
 * else a uniform draw in [0, min(cap, base * 2^attempt)].
 *
 * @example
 * backoffMs(2, { baseMs: 500, rng }) // somewhere in [0, 2000)
 */
export function backoffMs(
  attempt: number,
  policy: Pick<RetryPolicy, 'baseMs' | 'capMs' | 'rng'>,
  retryAfterMs: number | null = null,
): number {
  if (retryAfterMs !== null) return retryAfterMs;
  const ceiling = Math.min(policy.capMs ?? 10_000, policy.baseMs * 2 ** attempt);
  return Math.floor(policy.rng.next() * ceiling);
}

/**
 * Runs `op`, retrying what is worth retrying; throws `RequestFailed` otherwise.
 *
 * @example
 * const { value, retries } = await withRetries(() => client.chat.completions.create(body), policy);
 */
export async function withRetries<T>(
  op: () => Promise<T>,
  policy: RetryPolicy,
): Promise<{ value: T; retries: number }> {
  for (let attempt = 0; ; attempt++) {
    // A wait the origin asked another run for holds this request back too.
    const held = policy.limiter?.ready();
    if (held) await held;
    try {
      return { value: await op(), retries: attempt };
    } catch (e) {
      const f = classify(e);
      if (!f.retryable) throw new RequestFailed(f, attempt, false);
      if (attempt >= policy.maxRetries) throw new RequestFailed(f, attempt, true);
      const wait = policy.sleep(backoffMs(attempt, policy, f.retryAfterMs));
      // What the server asked for is for every client of the origin: the whole pool waits (OriginLimiter).
      if (f.retryAfterMs !== null) policy.limiter?.hold(wait);
      await wait;
    }
  }
}
