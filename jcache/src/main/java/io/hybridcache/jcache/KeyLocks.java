package io.hybridcache.jcache;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Striped re-entrant locks by key hash: every write of a key holds its stripe, so writes of one key (entry
 * processors included) are atomic with respect to each other; reads take none ({@link EntryOps}). The hash is the store's
 * ({@link Store.Slot#hash()}: a value store's is of the encoded key, so equal {@code byte[]} keys, whose own
 * {@code hashCode} is their identity, lock one stripe). Lock order: several keys are
 * locked in ascending stripe order ({@link #lockAll}), so two multi-key operations never deadlock.
 */
final class KeyLocks {
  static final int STRIPES = 256;
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final long MIX = 0x9E3779B97F4A7C15L;
  private final ReentrantLock[] locks = new ReentrantLock[STRIPES];

  KeyLocks() {
    for (int i = 0; i < STRIPES; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  ReentrantLock of(int hash) {
    return locks[stripe(hash)];
  }

  /**
   * A hash of {@code bytes} for {@link #of}: eight bytes a step (a multiply-xorshift per word, the tail and the
   * length mixed in last), about a third of {@code Arrays.hashCode}'s serial chain for a short key.
   */
  static int hash(byte[] bytes) {
    long h = 0;
    int i = 0;
    for (; i + Long.BYTES <= bytes.length; i += Long.BYTES) {
      h = (h ^ (long) LONGS.get(bytes, i)) * MIX;
      h ^= h >>> 32;
    }
    long tail = bytes.length;
    for (; i < bytes.length; i++) {
      tail = (tail << 8) ^ (bytes[i] & 0xFF);
    }
    h = (h ^ tail) * MIX;
    return (int) (h ^ (h >>> 29));
  }

  /** The stripe of {@code hash} (tests: forced interleavings of two keys on one stripe). */
  static int stripe(int h) {
    return (h ^ (h >>> 16)) & (STRIPES - 1);
  }

  /** Locks the stripes of {@code hashes} in ascending order; the returned stripes go to {@link #unlockAll}. */
  int[] lockAll(int[] hashes) {
    boolean[] used = new boolean[STRIPES];
    for (int h : hashes) {
      used[stripe(h)] = true;
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
