/**
 * The flags a sealed process starts with, per Node major: the permission model's flag is
 * `--permission` where it is stable (22.13+, 23.5+, 24) and `--experimental-permission` before it.
 */
import { describe, expect, it } from 'vitest';
import { permissionFlag } from '../../harness/engine/runner/sealed-process.ts';

describe('permissionFlag', () => {
  it.each([
    ['20.19.0', '--experimental-permission'],
    ['20.20.2', '--experimental-permission'],
    ['21.7.3', '--experimental-permission'],
    ['22.12.0', '--experimental-permission'],
    ['22.13.0', '--permission'],
    ['23.4.0', '--experimental-permission'],
    ['23.5.0', '--permission'],
    ['24.0.0', '--permission'],
    ['24.11.1', '--permission'],
  ])('Node %s: %s', (version, flag) => {
    expect(permissionFlag(version)).toBe(flag);
  });
});
