package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.LifetimeClass;

/**
 * A value in the DRAM tier. Immutable. Dirty entries were written by the caller and are not on flash:
 * evicting one cascades it to flash. Clean entries are promoted flash hits: evicting one drops it.
 *
 * @param sequence the write's sequence number (a clean entry keeps its flash entry's)
 * @param expiryMillis epoch milliseconds, 0 = never
 * @param lifetimeClass where a dirty entry goes on flash (the reference fits in the object's padding:
 *     no extra bytes per entry)
 * @param smallStale the small-object engine may still hold an older version of the key: a put without a
 *     TTL leaves it there (no I/O on the put path) and the entry carries the duty to make it unreachable
 *     when it leaves DRAM other than into the small engine's log, whose newer version shadows it
 *     ({@link Engine}; the flag fits in the object's padding too)
 */
record DramEntry(byte[] value, boolean dirty, long sequence, long expiryMillis, LifetimeClass lifetimeClass,
    boolean smallStale) {
  /** Bytes the weigher charges per entry beyond key and value: Caffeine node, key and entry objects. */
  static final int OVERHEAD_BYTES = CacheConfig.DRAM_ENTRY_OVERHEAD_BYTES;

  public DramEntry {
    lifetimeClass = lifetimeClass == null ? LifetimeClass.FRESH : lifetimeClass;
  }

  /** An entry of class FRESH. */
  public DramEntry(byte[] value, boolean dirty, long sequence, long expiryMillis) {
    this(value, dirty, sequence, expiryMillis, LifetimeClass.FRESH, false);
  }

  /** An entry that leaves no older version behind in the small-object engine. */
  public DramEntry(byte[] value, boolean dirty, long sequence, long expiryMillis, LifetimeClass lifetimeClass) {
    this(value, dirty, sequence, expiryMillis, lifetimeClass, false);
  }

  public boolean expired(long nowMillis) {
    return expiryMillis != 0 && expiryMillis <= nowMillis;
  }

  /** {@link #expired} now; reads the clock only for an entry with a TTL (a DRAM hit's common case reads none). */
  public boolean expiredNow() {
    return expiryMillis != 0 && expiryMillis <= System.currentTimeMillis();
  }
}
