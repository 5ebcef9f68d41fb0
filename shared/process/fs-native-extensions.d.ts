// Invariant: the lock functions of fs-native-extensions the code uses (the package ships no types).
declare module 'fs-native-extensions' {
  /** Takes an exclusive (or shared) lock on the open file `fd` without waiting; false when another holds it. */
  export function tryLock(fd: number, opts?: { shared?: boolean }): boolean;
  export function unlock(fd: number): void;
}
