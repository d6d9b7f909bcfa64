package io.hybridcache.jcache;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Striped re-entrant locks by key hash: every operation on a key holds its stripe, so operations on one
 * key (entry processors included) are atomic with respect to each other. Lock order: several keys are
 * locked in ascending stripe order ({@link #lockAll}), so two multi-key operations never deadlock.
 */
final class KeyLocks {
  private static final int STRIPES = 256;
  private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

  KeyLocks() {
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  ReentrantLock of(Object key) {
    int h = key.hashCode();
    return locks[(h ^ (h >>> 16)) & (STRIPES - 1)];
  }

  /** Locks the stripes of {@code keys} in ascending order; the returned stripes go to {@link #unlockAll}. */
  int[] lockAll(Iterable<?> keys) {
    boolean[] used = new boolean[STRIPES];
    for (Object k : keys) {
      int h = k.hashCode();
      used[(h ^ (h >>> 16)) & (STRIPES - 1)] = true;
    }
    int[] stripes = new int[STRIPES];
    int n = 0;
    for (int i = 0; i < STRIPES; i++) {
      if (used[i]) {
        locks[i].lock();
        stripes[n++] = i;
      }
    }
    return Arrays.copyOf(stripes, n);
  }

  void unlockAll(int[] stripes) {
    for (int i = stripes.length - 1; i >= 0; i--) {
      locks[stripes[i]].unlock();
    }
  }
}
