package io.hybridcache.core.api;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Admits a key only on its second eviction within a window: one-hit wonders never reach flash.
 *
 * <p>Thread-safe: a fixed table of recently refused key hashes in an {@link AtomicLongArray}, direct
 * mapped (a newer key overwrites an older one in its slot, which only makes admission stricter). Memory
 * is 8 bytes per slot, fixed at construction.
 */
public final class SecondHit implements AdmissionPolicy {
  private final AtomicLongArray seen;
  private final int mask;
  private final LongAdder rejected = new LongAdder();

  /** @param slots table size, rounded up to a power of two (e.g. the expected number of DRAM entries) */
  public SecondHit(int slots) {
    if (slots <= 0) {
      throw new IllegalArgumentException("admission.secondHitSlots must be > 0: " + slots);
    }
    int size = Integer.highestOneBit(Math.max(2, slots - 1)) << 1;
    this.seen = new AtomicLongArray(size);
    this.mask = size - 1;
  }

  @Override
  public boolean accept(long keyHash, int bytes) {
    int slot = (int) (keyHash ^ (keyHash >>> 29)) & mask;
    if (seen.get(slot) == keyHash) {
      seen.compareAndSet(slot, keyHash, 0);
      return true;
    }
    seen.set(slot, keyHash);
    rejected.increment();
    return false;
  }

  @Override
  public long rejected() {
    return rejected.sum();
  }

  @Override
  public String name() {
    return "second-hit";
  }
}
