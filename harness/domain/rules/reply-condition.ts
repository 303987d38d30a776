/**
 * How a reconciler's reply answers "did it apply?": a condition a `reconciles:` entry declares per
 * tool (`{ tool: send_payout, applied: "{{result.status}} == succeeded" }`), or by default the
 * reply's `applied` field, as `oneway serve` answers. A reply that cannot be read (the field the
 * condition reads is missing, or the default `applied` is not true or false) settles nothing:
 * the guard keeps refusing the repeat, and says why.
 *
 * A condition is `SIDE == SIDE` or `SIDE != SIDE`, each side one template (`{{result.status}}`)
 * or a literal (bare, or "quoted"); values compare as text, as facts compare them.
 *
 * @example
 * replyAnswer('{{result.status}} == succeeded', { result: { status: 'succeeded' } }) // { ok: true, value: true }
 * replyAnswer(undefined, { result: { state: 'done' } }) // { ok: false, why: 'its reply has no applied: true|false' }
 */
import type { Result } from '../../core/errors.ts';
import { lookupTemplate, wholeTemplatePath, type TemplateContext } from '../../core/templates/render.ts';
import { APPLIED_FIELD } from './reply.ts';
import { valueText } from './reconcile.ts';

type Side = { path: string } | { literal: string };
export interface ReplyCondition {
  left: Side;
  op: '==' | '!=';
  right: Side;
}

const FORM = 'write "{{result.PATH}} == VALUE" or "{{result.PATH}} != VALUE", e.g. "{{result.status}} == succeeded"';

function side(text: string): Result<Side, { message: string }> {
  const t = text.trim();
  if (t === '') return { ok: false, message: 'a side of the comparison is empty' };
  const path = wholeTemplatePath(t);
  if (path !== undefined) return { ok: true, value: { path: path.trim() } };
  if (t.includes('{{')) return { ok: false, message: `"${t}" is neither one template nor a literal` };
  const q = t[0];
  if ((q === '"' || q === "'") && t.length >= 2 && t[t.length - 1] === q)
    return { ok: true, value: { literal: t.slice(1, -1) } };
  return { ok: true, value: { literal: t } };
}

/**
 * Parses a reply condition (see the module comment).
 *
 * @example
 * parseReplyCondition('{{result.state}} != failed') // { ok: true, value: { left: { path: 'result.state' }, op: '!=', right: { literal: 'failed' } } }
 */
export function parseReplyCondition(text: string): Result<ReplyCondition, { message: string; hint: string }> {
  const m = /^(.*?)(==|!=)(.*)$/s.exec(text);
  if (!m) return { ok: false, message: `cannot read the condition "${text}"`, hint: FORM };
  const left = side(m[1] as string);
  const right = side(m[3] as string);
  for (const s of [left, right]) if (!s.ok) return { ok: false, message: `${s.message} in "${text}"`, hint: FORM };
  if (!left.ok || !right.ok) return { ok: false, message: `cannot read the condition "${text}"`, hint: FORM };
  if (!('path' in left.value) && !('path' in right.value))
    return { ok: false, message: `"${text}" reads nothing of the reply`, hint: FORM };
  return { ok: true, value: { left: left.value, op: m[2] as '==' | '!=', right: right.value } };
}

/** Whether the reply says the call applied; `ok: false` with why when it cannot be read. */
export function replyAnswer(condition: string | undefined, ctx: TemplateContext): Result<boolean, { why: string }> {
  if (condition === undefined) {
    const reply = ctx.result;
    const applied =
      reply !== null && typeof reply === 'object' ? (reply as Record<string, unknown>)[APPLIED_FIELD] : undefined;
    return typeof applied === 'boolean'
      ? { ok: true, value: applied }
      : { ok: false, why: `its reply has no ${APPLIED_FIELD}: true|false` };
  }
  const parsed = parseReplyCondition(condition);
  if (!parsed.ok) return { ok: false, why: parsed.message };
  const value = (s: Side): string | undefined =>
    'literal' in s ? s.literal : valueText(lookupTemplate(ctx, s.path) ?? undefined);
  const { left, op, right } = parsed.value;
  const l = value(left);
  const r = value(right);
  for (const [s, v] of [
    [left, l],
    [right, r],
  ] as const)
    if (v === undefined && 'path' in s)
      return { ok: false, why: `its reply has no ${s.path.replace(/^result\.?/, '') || 'value'} (${condition})` };
  return { ok: true, value: (l === r) === (op === '==') };
}
