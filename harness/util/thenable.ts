/** Whether a value is a promise or promise-like (has a `then` method): what `await` would wait for. */
export const isThenable = (x: unknown): x is PromiseLike<unknown> =>
  x !== null &&
  (typeof x === 'object' || typeof x === 'function') &&
  typeof (x as { then?: unknown }).then === 'function';
