/**
 * What the engine derives once per scenario (the rendered initial world, the planner's static
 * view, the tools as records list them), kept for the scenarios used most recently only: a WeakMap
 * would keep it for as long as the scenario objects live, which in a large evaluation is all of
 * them to the end (memory grew with the number of scenarios; npm run bench). Evaluations run
 * scenario by scenario, so the few most recent are the ones asked for again.
 *
 * @example
 * const views = new RecentCache<Scenario, View>(64);
 * const v = views.get(scenario) ?? views.set(scenario, build(scenario));
 */
export class RecentCache<K extends object, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly max: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Stores `value` (the oldest entry leaves when full) and returns it. */
  set(key: K, value: V): V {
    if (!this.entries.has(key) && this.entries.size >= this.max)
      this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, value);
    return value;
  }
}
