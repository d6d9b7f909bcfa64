package io.hybridcache.core.engine;

/**
 * The only codec of the 64-bit flash address: segment id in the high 32 bits, byte offset inside the
 * segment in the low 32 bits (the logical cache file of the CaSSanDra paper, section IV).
 *
 * <p>Thread-safe: stateless. Segment ids are unsigned, start at 1 and are never reused, so a stale
 * address can never resolve to another segment's bytes; offset 0 of a segment holds its header, so a
 * valid entry address never has offset 0 and the address 0 means "none".
 */
final class SegmentAddress {
  /** No address. */
  public static final long NONE = 0L;

  private SegmentAddress() {}

  public static long of(long segmentId, long offset) {
    if (segmentId <= 0 || segmentId > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException("segmentId out of range: " + segmentId);
    }
    if (offset < 0 || offset > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException("offset out of range: " + offset);
    }
    return (segmentId << 32) | offset;
  }

  /** The segment id, unsigned 32-bit, as a long. */
  public static long segmentId(long address) {
    return address >>> 32;
  }

  /** The byte offset inside the segment. */
  public static long offset(long address) {
    return address & 0xFFFF_FFFFL;
  }

  public static String toString(long address) {
    return segmentId(address) + ":" + offset(address);
  }
}
