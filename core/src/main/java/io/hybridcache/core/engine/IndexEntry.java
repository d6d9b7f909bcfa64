package io.hybridcache.core.engine;


/**
 * The only codec of the packed index value: where a flash entry lives, how many bytes to read, and
 * whether it was read since written. One {@code long}, so an index slot costs 16 bytes of key and value.
 *
 * <pre>
 *  bit 63..36  segment tag        28 bits: the segment id's low bits ({@link io.hybridcache.core.engine.SegmentTable}
 *                                  keeps the tags of live segments unique; ids never run out)
 *  bit 35..13  offset / 16        23 bits (entries start 16-byte aligned; segments up to 128 MiB)
 *  bit 12..1   size class         12 bits: u &lt; 2048: u * 64 bytes (entries up to 128 KiB, 64-byte
 *                                  precision); else 131008 + (u - 2047) * 4 KiB (up to ~8 MiB)
 *  bit 0       accessed           set on a flash hit, read by reclaim to decide reinsertion
 * </pre>
 *
 * <p>Thread-safe: stateless. The value 0 is never a valid entry (segment ids start at 1) and means
 * absent in every {@link Index}.
 */
final class IndexEntry {
  public static final long NONE = 0L;
  public static final int OFFSET_ALIGNMENT = 16;
  /** Bits of a segment id the index keeps (its tag). */
  public static final int SEGMENT_TAG_BITS = 28;
  public static final long MAX_SEGMENT_TAG = (1L << SEGMENT_TAG_BITS) - 1;
  public static final long MAX_SEGMENT_BYTES = (1L << 23) * OFFSET_ALIGNMENT;
  private static final int SIZE_MASK = (1 << 12) - 1;
  private static final int FINE_UNIT = 64;
  private static final int FINE_CLASSES = 2047;
  private static final int FINE_MAX = FINE_CLASSES * FINE_UNIT; // 131008
  private static final int COARSE_UNIT = 4096;
  public static final int MAX_ENTRY_BYTES = FINE_MAX + (SIZE_MASK - FINE_CLASSES) * COARSE_UNIT;

  private static final long ACCESSED = 1L;

  private IndexEntry() {}

  /**
   * Packs an entry at {@code address} (segment tag and offset, see {@link SegmentAddress}) whose
   * on-flash size is {@code entryBytes}; not accessed.
   */
  public static long pack(long address, int entryBytes) {
    long tag = SegmentAddress.segmentId(address);
    long offset = SegmentAddress.offset(address);
    if (tag == 0 || tag > MAX_SEGMENT_TAG) {
      throw new IllegalArgumentException("segment tag out of index range: " + tag);
    }
    if ((offset & (OFFSET_ALIGNMENT - 1)) != 0 || offset >= MAX_SEGMENT_BYTES) {
      throw new IllegalArgumentException("offset not 16-aligned or past 128 MiB: " + offset);
    }
    if (entryBytes <= 0 || entryBytes > MAX_ENTRY_BYTES) {
      throw new IllegalArgumentException("entry size out of range: " + entryBytes);
    }
    long sizeClass = entryBytes <= FINE_MAX
        ? (entryBytes + FINE_UNIT - 1) / FINE_UNIT
        : FINE_CLASSES + (entryBytes - FINE_MAX + COARSE_UNIT - 1) / COARSE_UNIT;
    return (tag << 36) | ((offset / OFFSET_ALIGNMENT) << 13) | (sizeClass << 1);
  }

  /** The bytes an entry of {@code entryBytes} is accounted and read as: its size rounded up to its class. */
  public static int classBytes(int entryBytes) {
    return entryBytes <= FINE_MAX
        ? (entryBytes + FINE_UNIT - 1) / FINE_UNIT * FINE_UNIT
        : FINE_MAX + (entryBytes - FINE_MAX + COARSE_UNIT - 1) / COARSE_UNIT * COARSE_UNIT;
  }

  public static long address(long packed) {
    return SegmentAddress.of(segmentTag(packed), offset(packed));
  }

  /** The segment tag (the id's low {@value #SEGMENT_TAG_BITS} bits); find the segment with SegmentTable.byTag. */
  public static long segmentTag(long packed) {
    return packed >>> 36;
  }


  public static long offset(long packed) {
    return ((packed >>> 13) & ((1L << 23) - 1)) * OFFSET_ALIGNMENT;
  }

  /** Upper bound of the entry's size on flash: its length rounded up to its size class. */
  public static int sizeBytes(long packed) {
    int u = (int) ((packed >>> 1) & SIZE_MASK);
    return u <= FINE_CLASSES ? u * FINE_UNIT : FINE_MAX + (u - FINE_CLASSES) * COARSE_UNIT;
  }

  public static boolean accessed(long packed) {
    return (packed & ACCESSED) != 0;
  }

  public static long withAccessed(long packed) {
    return packed | ACCESSED;
  }

  /** The same entry, ignoring the accessed bit: two packed values name the same bytes iff equal here. */
  public static long location(long packed) {
    return packed & ~ACCESSED;
  }

  public static String toString(long packed) {
    return packed == NONE
        ? "none"
        : segmentTag(packed) + ":" + offset(packed) + "+" + sizeBytes(packed) + (accessed(packed) ? "*" : "");
  }
}
