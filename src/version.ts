/** corral's version, kept in step with package.json by a unit test. */
export const VERSION = '0.1.0';

/** The oldest Node corral runs on (package.json `engines`): `machine install` and `doctor` hold a Node to it. */
export const MIN_NODE: readonly [number, number] = [20, 19];

/** Whether a `major.minor[.patch]` version is at least `min` (`20.19.1` ≥ [20, 19]). */
export function atLeast(version: string, min: readonly [number, number]): boolean {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  return major > min[0] || (major === min[0] && minor >= min[1]);
}
