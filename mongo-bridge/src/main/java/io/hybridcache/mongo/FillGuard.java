package io.hybridcache.mongo;

import java.util.Arrays;

/**
 * Keeps a read that raced a write from filling the cache with the older document. Thread-safe:
 * per-stripe state guarded by that stripe's lock; keys hash to stripes, so keys of one stripe share
 * their guard (a write to one can only make a concurrent read of another skip its fill, never fill
 * a stale one).
 *
 * <p>Protocol, per stripe: {@code versions} counts write starts and ends, {@code pending} the writes
 * in flight. A reader takes {@link #readToken} before it queries MongoDB and fills through
 * {@link #fill} afterwards, which puts only if no write started or ended on the stripe in between
 * and none is in flight. A writer calls {@link #beginWrite} before it sends its write and
 * {@link #endWrite} after MongoDB answered (or failed), which stores the writer's document only if
 * no other write overlapped it (it is then the latest) and invalidates the key otherwise.
 *
 * <p>Why this suffices: let W's write return from MongoDB and W run {@code endWrite} at time t.
 * A fill that happens before W's {@code beginWrite} is overwritten or removed by W's {@code endWrite}.
 * A fill between W's {@code beginWrite} and {@code endWrite} sees W pending and does not happen. A
 * fill after t either took its token before t (the version moved: no fill) or after t, and then its
 * query ran after W's write was acknowledged and read that write or a later one (reads go to the
 * primary). Cache and MongoDB may still disagree about writes that bypass the bridge: those need a
 * TTL or {@link CachedCollection#invalidate}.
 *
 * <p>Lock order: a stripe lock, then the cache's own locks (the fill and invalidation run inside it).
 */
final class FillGuard {
  /** The token of a read that must not fill: a write was in flight when it started. */
  static final long NO_FILL = -1;

  private final Object[] locks;
  private final long[] versions; // guarded by locks[i]
  private final int[] pending; // guarded by locks[i]
  private final int mask;
  private final boolean enabled;

  /** {@code stripes} (a power of two) lock stripes; {@code enabled} false only in tests (shows the race). */
  FillGuard(int stripes, boolean enabled) {
    if (stripes < 1 || Integer.bitCount(stripes) != 1) {
      throw new IllegalArgumentException("fill guard stripes must be a power of two, was " + stripes);
    }
    this.locks = new Object[stripes];
    for (int i = 0; i < stripes; i++) {
      locks[i] = new Object();
    }
    this.versions = new long[stripes];
    this.pending = new int[stripes];
    this.mask = stripes - 1;
    this.enabled = enabled;
  }

  private int stripe(byte[] key) {
    int h = Arrays.hashCode(key);
    return (h ^ (h >>> 16)) & mask;
  }

  /** Taken before a read queries MongoDB. */
  long readToken(byte[] key) {
    int i = stripe(key);
    synchronized (locks[i]) {
      return pending[i] > 0 ? NO_FILL : versions[i];
    }
  }

  /** Runs {@code put} if no write touched the key's stripe since {@code token}; true if it ran. */
  boolean fill(byte[] key, long token, Runnable put) {
    if (!enabled) {
      put.run();
      return true;
    }
    if (token == NO_FILL) {
      return false;
    }
    int i = stripe(key);
    synchronized (locks[i]) {
      if (pending[i] != 0 || versions[i] != token) {
        return false;
      }
      put.run();
      return true;
    }
  }

  /** Called before a write is sent; returns the token {@link #endWrite} needs. */
  long beginWrite(byte[] key) {
    int i = stripe(key);
    synchronized (locks[i]) {
      pending[i]++;
      return ++versions[i];
    }
  }

  /**
   * Called once MongoDB answered the write begun with {@code token} (or failed): runs {@code store}
   * if no other write overlapped it ({@code store} null or an overlap: runs {@code invalidate}).
   * Returns true if {@code store} ran.
   */
  boolean endWrite(byte[] key, long token, Runnable store, Runnable invalidate) {
    int i = stripe(key);
    synchronized (locks[i]) {
      try {
        boolean alone = store != null && pending[i] == 1 && versions[i] == token;
        (alone ? store : invalidate).run();
        return alone;
      } finally {
        versions[i]++;
        pending[i]--;
      }
    }
  }
}
