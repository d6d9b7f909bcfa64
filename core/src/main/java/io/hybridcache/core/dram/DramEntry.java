package io.hybridcache.core.dram;

/**
 * A value in the DRAM tier. Immutable. Dirty entries were written by the caller and are not on flash:
 * evicting one cascades it to flash. Clean entries are promoted flash hits: evicting one drops it.
 *
 * @param sequence the write's sequence number (a clean entry keeps its flash entry's)
 * @param expiryMillis epoch milliseconds, 0 = never
 */
public record DramEntry(byte[] value, boolean dirty, long sequence, long expiryMillis) {
  /** Bytes the weigher charges per entry beyond key and value: Caffeine node, key and entry objects. */
  public static final int OVERHEAD_BYTES = 112;

  public boolean expired(long nowMillis) {
    return expiryMillis != 0 && expiryMillis <= nowMillis;
  }
}
