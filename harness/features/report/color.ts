import { Chalk, type ChalkInstance } from 'chalk';

/** Colour only on a terminal, never when NO_COLOR is set (https://no-color.org); FORCE_COLOR wins. */
export function useColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return stream.isTTY === true;
}

export function makeChalk(color: boolean): ChalkInstance {
  return new Chalk({ level: color ? 2 : 0 });
}
