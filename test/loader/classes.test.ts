import { describe, expect, it } from 'vitest';
import {
  effectiveClass,
  evaluateCondition,
  parseCondition,
  possibleClasses,
  type Condition,
} from '../../harness/domain/rules/classes.ts';

function cond(when: string): Condition {
  const r = parseCondition(when);
  if (!r.ok) throw new Error(r.message);
  return r.value;
}

describe('class-rule conditions', () => {
  it('parse a deployment path, an operator and a literal', () => {
    expect(cond('deployment.pitr_hours >= 24')).toEqual({ path: ['pitr_hours'], op: '>=', value: 24 });
    expect(cond('deployment.db.backups == true')).toEqual({ path: ['db', 'backups'], op: '==', value: true });
    expect(cond('deployment.region != "eu west"')).toEqual({ path: ['region'], op: '!=', value: 'eu west' });
    expect(cond("deployment.region=='eu'")).toEqual({ path: ['region'], op: '==', value: 'eu' });
    expect(cond('deployment.tier < -1.5')).toEqual({ path: ['tier'], op: '<', value: -1.5 });
    expect(cond('deployment.region == eu-west-1')).toEqual({ path: ['region'], op: '==', value: 'eu-west-1' });
  });

  it('refuse conditions that are not of the form deployment.path op literal', () => {
    for (const bad of [
      'pitr_hours >= 24',
      'deployment.pitr_hours',
      'deployment.x = 1',
      'deployment.x >= ',
      'deployment.x == "open',
      'deployment.x > true',
      'deployment.x == a b',
      'deployment. == 1',
    ]) {
      expect(parseCondition(bad).ok, bad).toBe(false);
    }
  });

  it('compare numbers, strings and booleans', () => {
    const dep = { pitr_hours: 12, region: 'eu', backups: false, tier: 2 };
    expect(evaluateCondition(cond('deployment.pitr_hours >= 24'), dep)).toBe(false);
    expect(evaluateCondition(cond('deployment.pitr_hours < 24'), dep)).toBe(true);
    expect(evaluateCondition(cond('deployment.region == eu'), dep)).toBe(true);
    expect(evaluateCondition(cond('deployment.region != "eu"'), dep)).toBe(false);
    expect(evaluateCondition(cond('deployment.backups == false'), dep)).toBe(true);
    expect(evaluateCondition(cond('deployment.tier == "2"'), dep)).toBe(true);
    expect(evaluateCondition(cond('deployment.region > 3'), dep)).toBe(false);
  });

  it('treat a missing path as never equal and never ordered', () => {
    expect(evaluateCondition(cond('deployment.nope == 1'), {})).toBe(false);
    expect(evaluateCondition(cond('deployment.nope != 1'), {})).toBe(true);
    expect(evaluateCondition(cond('deployment.nope >= 1'), {})).toBe(false);
  });
});

describe('the effective class of a tool', () => {
  const rules = {
    reversibility: [
      { when: 'deployment.pitr_hours >= 24', class: 'reversible' as const },
      { when: 'deployment.pitr_hours > 0', class: 'compensable' as const },
      { class: 'irreversible' as const },
    ],
  };

  it('is its class when it has one', () => {
    expect(effectiveClass({ reversibility: 'compensable' }, {})).toBe('compensable');
  });

  it('is the class of the first rule whose condition holds', () => {
    expect(effectiveClass(rules, { pitr_hours: 72 })).toBe('reversible');
    expect(effectiveClass(rules, { pitr_hours: 6 })).toBe('compensable');
    expect(effectiveClass(rules, { pitr_hours: 0 })).toBe('irreversible');
  });

  it('is irreversible, the cautious answer, when no rule applies', () => {
    expect(effectiveClass({ reversibility: [{ when: 'deployment.x == 1', class: 'reversible' }] }, {})).toBe(
      'irreversible',
    );
  });

  it('can be any class a rule names', () => {
    expect(possibleClasses(rules)).toEqual(['reversible', 'compensable', 'irreversible']);
    expect(possibleClasses({ reversibility: 'irreversible' })).toEqual(['irreversible']);
  });
});
