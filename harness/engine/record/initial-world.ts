/**
 * The initial world in a record. A small one (at most INLINE_WORLD_MAX bytes of JSON) is written
 * into run_start as it is; a large one (a domain's database shared by many scenarios) is written as
 * its SHA-256 only, and a reader rebuilds it from the scenario, refusing a scenario whose initial
 * world has another digest (it changed since the run). So a record holds what the run did, not a
 * copy of the database (issue 41).
 */
import { createHash } from 'node:crypto';
import type { RunStartEvent, WorldSnapshot } from '../../core/record.ts';
import type { Scenario } from '../../core/scenario.ts';
import { stableJson } from '../../util/json.ts';
import { Sandbox } from '../sandbox/sandbox.ts';
import type { Result } from '../../core/errors.ts';

/** The largest initial world (bytes of JSON) a record holds whole. */
const INLINE_WORLD_MAX = 64 * 1024;

const fields = new WeakMap<WorldSnapshot, Pick<RunStartEvent, 'initial_world' | 'initial_world_sha256'>>();

/** The digest of a world: SHA-256 of its key-order-free JSON. */
export function worldDigest(world: WorldSnapshot): string {
  return createHash('sha256').update(stableJson(world)).digest('hex');
}

/**
 * What run_start says of the initial world: the world, or its digest when it is large. Once per
 * snapshot object (every run of a scenario shares its frozen initial snapshot).
 */
export function initialWorldFields(
  world: WorldSnapshot,
): Pick<RunStartEvent, 'initial_world' | 'initial_world_sha256'> {
  let f = fields.get(world);
  if (!f) {
    const text = stableJson(world);
    f =
      Buffer.byteLength(text) <= INLINE_WORLD_MAX
        ? { initial_world: world }
        : { initial_world_sha256: createHash('sha256').update(text).digest('hex') };
    fields.set(world, f);
  }
  return f;
}

/**
 * A run's initial world: from its record, or rebuilt from the scenario (under the run's deployment)
 * when the record holds its digest only; an error when the scenario gives another world.
 *
 * @example
 * const w = initialWorldOf(record.start, scenario); if (w.ok) use(w.value);
 */
export function initialWorldOf(
  start: Pick<RunStartEvent, 'initial_world' | 'initial_world_sha256' | 'deployment' | 'seed'>,
  scenario: Scenario,
): Result<WorldSnapshot, { message: string; hint: string }> {
  if (start.initial_world) return { ok: true, value: start.initial_world };
  const deployment = start.deployment ?? scenario.deployment;
  const world = new Sandbox({ ...scenario, deployment }, start.seed).initialSnapshot;
  if (worldDigest(world) !== start.initial_world_sha256)
    return {
      ok: false,
      message: 'the scenario file gives another initial world than the run had: it changed since the run',
      hint: 'the record holds the initial world by its digest only (it is large): pass the scenario version the run used with --scenario=FILE',
    };
  return { ok: true, value: world };
}
