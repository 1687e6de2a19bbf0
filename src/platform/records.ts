/**
 * An object with one property per key, typed as such. Object.fromEntries returns
 * `{ [k: string]: V }` whatever the keys; this is the one place that restores their type.
 */
export function recordOf<K extends PropertyKey, V>(keys: readonly K[], valueOf: (key: K) => V): Record<K, V> {
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- every key of K gets its value on the line itself
  return Object.fromEntries(keys.map((key) => [key, valueOf(key)])) as Record<K, V>;
}
