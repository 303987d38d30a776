/**
 * Settings in layers: what the config file, the command line and `evaluate()` each give, merged
 * with a later layer winning setting by setting (a flag over the config file), and every value's
 * source kept, so that a bad one is named as its source names it: `--trials`, "trials" in
 * oneway.config.yaml, evaluate()'s "trials".
 */
import { existsSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/** Where a layer of settings comes from (`api`: the options of a function of the API, `call`, evaluate() unless named). */
export type Source = { kind: 'flags' } | { kind: 'config'; file: string } | { kind: 'api'; call?: string };

/** One layer: a source and the settings it gives (a setting it does not give is absent or undefined). */
export interface Layer<S> {
  from: Source;
  settings: S;
}

/** What a setting is called on the command line and in a config file (a dotted path: `fuzz.runs`). */
export interface SettingName {
  flag: string;
  config: string;
}

/** The settings of every layer merged, and which layer gave each. */
export interface Merged<S> {
  settings: S;
  origin: Partial<Record<keyof S, Source>>;
}

/**
 * Merges layers, later over earlier, setting by setting. Two settings are one choice: `scenarios`
 * and `bundled` (a layer that gives either replaces both: `--bundled` wins over the config
 * file's `scenarios`), and each planner option of `plannerOptions` is a setting of its own.
 *
 * @example
 * mergeLayers([{ from: config, settings: { trials: 2, seed: 3 } }, { from: flags, settings: { trials: '5' } }])
 * // settings { trials: '5', seed: 3 }; origin { trials: flags, seed: config }
 */
export function mergeLayers<S extends object>(layers: readonly Layer<S>[]): Merged<S> {
  const settings: Record<string, unknown> = {};
  const origin: Record<string, Source> = {};
  for (const { from, settings: given } of layers) {
    const g = given as Record<string, unknown>;
    if (g.scenarios !== undefined || g.bundled !== undefined) {
      for (const k of ['scenarios', 'bundled']) {
        delete settings[k];
        delete origin[k];
        if (g[k] !== undefined) {
          settings[k] = g[k];
          origin[k] = from;
        }
      }
    }
    for (const [k, v] of Object.entries(g)) {
      if (v === undefined || k === 'scenarios' || k === 'bundled') continue;
      if (k === 'plannerOptions') {
        settings[k] = { ...(settings[k] as object | undefined), ...(v as object) };
        for (const key of Object.keys(v as object)) origin[`${k}.${key}`] = from;
        origin[k] = from;
        continue;
      }
      settings[k] = v;
      origin[k] = from;
    }
  }
  return { settings: settings as S, origin: origin as Merged<S>['origin'] };
}

/**
 * How a setting's value is named in a message, as its source names it.
 *
 * @example
 * settingLabel({ flag: 'max-turns', config: 'maxTurns' }, { kind: 'flags' }, '/p')                              // '--max-turns'
 * settingLabel({ flag: 'max-turns', config: 'maxTurns' }, { kind: 'config', file: '/p/oneway.config.yaml' }, '/p') // '"maxTurns" in oneway.config.yaml'
 */
export function settingLabel(name: SettingName, from: Source | undefined, cwd: string): string {
  if (!from || from.kind === 'flags') return `--${name.flag}`;
  if (from.kind === 'api') return `${from.call ?? 'evaluate()'}'s "${name.config}"`;
  const r = relative(cwd, from.file);
  return `"${name.config}" in ${r && !r.startsWith('..') ? r : from.file}`;
}

const looksLikePath = (spec: string) =>
  /[\\/*?[\]{}]/.test(spec) || /\.(ya?ml|json|m?[jt]s|cjs)$/.test(spec) || spec === '.' || spec === '..';

/** A scenario or planner spec from a config file: a path (or glob) made absolute against `dir`; an id or a name kept. */
export const specAt = (dir: string, s: string): string =>
  looksLikePath(s) || existsSync(resolve(dir, s)) ? resolve(dir, s) : s;

/** The directory a config file's relative paths start at. */
export const configDir = (file: string): string => dirname(file);
