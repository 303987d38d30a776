/** The lint rules, in the order their findings are explained in the README. */
import type { Rule } from '../types.ts';
import { compensationTodo } from './compensation-todo.ts';
import { compensationUndeclared } from './compensation-undeclared.ts';
import { deploymentClass } from './deployment-class.ts';
import { irreversibleCompensation } from './irreversible-compensation.ts';
import { irreversibleDedupe } from './irreversible-dedupe.ts';
import { keySurvivesFailure } from './key-survives-failure.ts';
import { readOnlyEffects } from './read-only-effects.ts';
import { resultField } from './result-field.ts';
import { reversibleAsymmetric } from './reversible-asymmetric.ts';
import { reviewPending } from './review-pending.ts';
import { splitValue } from './split-value.ts';
import { unreachableGoal } from './unreachable-goal.ts';
import { unreachablePrecondition } from './unreachable-precondition.ts';

export const LINT_RULES: readonly Rule[] = [
  reversibleAsymmetric,
  compensationUndeclared,
  irreversibleCompensation,
  unreachablePrecondition,
  unreachableGoal,
  readOnlyEffects,
  resultField,
  deploymentClass,
  reviewPending,
  compensationTodo,
  splitValue,
  irreversibleDedupe,
  keySurvivesFailure,
];
