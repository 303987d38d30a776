/**
 * The optional price table: US dollars per million prompt and completion
 * tokens, per model. oneway ships no prices (they change); an estimate is
 * shown only for models the table names.
 *
 * ```yaml
 * gpt-4o-mini: { prompt_per_million: 0.15, completion_per_million: 0.6 }
 * ```
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { UsageError } from '../../core/errors.ts';
import { parseYamlSource } from '../../engine/loader/yaml-source.ts';

const Price = z.strictObject({
  prompt_per_million: z.number().nonnegative(),
  completion_per_million: z.number().nonnegative(),
});
const PriceTableSchema = z.record(z.string(), Price);

type Price = z.infer<typeof Price>;
export type PriceTable = Record<string, Price>;

/**
 * Parses a price table from YAML or JSON text.
 *
 * @example
 * parsePrices('{"m": {"prompt_per_million": 1, "completion_per_million": 2}}', 'inline').m?.prompt_per_million // 1
 */
export function parsePrices(text: string, where: string): PriceTable {
  // The loader's parser: its limits (size, nesting, aliases) and a located problem.
  const parsed = parseYamlSource(text, where);
  if (!parsed.ok) {
    const p = parsed.problems[0];
    throw new UsageError(
      `${where}:${p?.line ?? 1}:${p?.col ?? 1}: not YAML or JSON: ${p?.message ?? 'unreadable'}`,
      p?.hint,
    );
  }
  const r = PriceTableSchema.safeParse(parsed.value.value);
  if (!r.success) {
    const issue = r.error.issues[0];
    const path = issue ? issue.path.join('.') : '';
    throw new UsageError(
      `${where}: invalid price table${path ? ` at ${path}` : ''}: ${issue?.message ?? 'unknown problem'}`,
      'expected {MODEL: {prompt_per_million: NUMBER, completion_per_million: NUMBER}}',
    );
  }
  return r.data;
}

export function loadPriceFile(file: string): PriceTable {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`price_file cannot be read: ${file} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return parsePrices(text, file);
}

/**
 * Estimated cost in US dollars, or null when the table has no price for the model.
 *
 * @example
 * estimateCost({ m: { prompt_per_million: 1, completion_per_million: 2 } }, 'm', 1_000_000, 500_000) // 2
 */
export function estimateCost(
  table: PriceTable,
  model: string,
  promptTokens: number,
  completionTokens: number,
): number | null {
  const p = table[model];
  if (!p) return null;
  return roundUsd((promptTokens * p.prompt_per_million + completionTokens * p.completion_per_million) / 1_000_000);
}

/** Micro-dollar precision: sums of many small floats stay stable across runs. */
function roundUsd(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
