package io.hybridcache.core.engine;

import io.hybridcache.core.device.Device;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Encodes, verifies and decodes one set page of the small-object engine: a self-describing 4 KiB page
 * that holds every entry of one set (Kangaroo's KSet, SOSP 2021; CacheLib navy's BigHash bucket). A page
 * that is torn, damaged, of another set or of an earlier open of the region decodes as null: a miss,
 * never a wrong value.
 *
 * <p>Thread-safe: stateless (a fresh {@link CRC32C} per call); callers own the buffers they pass.
 *
 * <p><b>Format</b> (little-endian), {@value #PAGE_BYTES}-byte page, {@value #HEADER_BYTES}-byte header:
 *
 * <pre>
 *  offset size field
 *   0     4    magic 0x31534348 ("HCS1")
 *   4     4    CRC32C of bytes [8, 4096): the rest of the header, every entry and the zero tail
 *   8     1    format version ({@value #FORMAT_VERSION})
 *   9     1    reserved, 0
 *  10     2    entry count, unsigned
 *  12     4    set id, unsigned: a page written at another set's place fails here
 *  16     8    region epoch: drawn at every open of the region; a page of an earlier open is empty
 *  24     8    generation: rewrites of this set within the epoch (1 = first), diagnostics and order
 *  32     ...  entries, back to back, then zeros to the end of the page
 * </pre>
 *
 * Each entry: a header of 4 to 22 bytes ({@value #MAX_ENTRY_HEADER_BYTES} bounds it), then key and value.
 * Variable-length integers are unsigned LEB128 (7 bits a byte, low first, at most 9 bytes, no redundant
 * high zero byte). A page holds at most {@value #MAX_ENTRIES} entries.
 *
 * <pre>
 *  size  field
 *  1-2   key length, varint (1..{@value #MAX_KEY_AND_VALUE_BYTES})
 *  1-2   value length, varint
 *  1     flags: bits 0-2 RRIP re-reference prediction value, 0 (near) .. {@value SmallSetEviction#MAX_RRPV}
 *        (distant); bit 3 set: an expiry follows; bits 4-7 zero
 *  1-9   sequence number, varint (global, monotonic per cache): the newer version of a key wins a merge
 *  0/8   expiry, epoch milliseconds, only if flag bit 3 (none: never expires)
 *  k     key bytes
 *  v     value bytes
 * </pre>
 *
 * A 24 B key and a 100 B value without expiry take 6 B of header while the sequence is below 2^21 and 7 B
 * below 2^28 (31 such entries a page), 8 B below 2^35 (30 a page); an expiry adds 8 B. Version 1 spent
 * 24 B on fixed-width fields (27 a page): the small engine's flash overhead per object.
 *
 * The CRC covers the whole page after itself, so a page torn anywhere by a crash (old and new 512 B
 * sectors mixed) fails verification. Bump {@link #FORMAT_VERSION} on any change to either layout; a
 * reader treats another version as an empty set. The same layout is documented in
 * {@code src/site/format.md} (proposed text: notes/small.md).
 */
final class SmallSetPage {
  public static final int MAGIC = 0x31534348;
  /** Bump on any change of the layouts above. */
  public static final byte FORMAT_VERSION = 2;
  public static final int PAGE_BYTES = Device.ALIGNMENT;
  public static final int HEADER_BYTES = 32;
  /**
   * A bound on an entry's header (at most 2 + 2 + 1 + 9 + 8 = 22 B), kept at version 1's 24 so the largest
   * key plus value, and the documented limits, stay as they were.
   */
  public static final int MAX_ENTRY_HEADER_BYTES = 24;
  /** Key plus value bytes of the largest entry a page holds (alone). */
  public static final int MAX_KEY_AND_VALUE_BYTES = PAGE_BYTES - HEADER_BYTES - MAX_ENTRY_HEADER_BYTES;
  /** Room for entries in one page. */
  public static final int CAPACITY_BYTES = PAGE_BYTES - HEADER_BYTES;

  private static final int CRC_START = 8;
  private static final int RRPV_BITS = 0x07;
  private static final int HAS_EXPIRY = 0x08;
  /** A varint of a non-negative long takes at most 9 bytes (63 bits, 7 a byte). */
  private static final int MAX_VARINT_BYTES = 9;
  /** Entries a page may hold: the set's DRAM object count is one byte ({@link SmallSets}). */
  public static final int MAX_ENTRIES = 255;

  private SmallSetPage() {}

  /** One entry of a set page. {@code rrpv} is its RRIP prediction, 0..{@link SmallSetEviction#MAX_RRPV}. */
  record Entry(byte[] key, byte[] value, long keyHash, long sequence, long expiryMillis, int rrpv) {
    Entry {
      if (key.length == 0 || key.length + value.length > MAX_KEY_AND_VALUE_BYTES) {
        throw new IllegalArgumentException("small entry key+value must be 1.." + MAX_KEY_AND_VALUE_BYTES
            + " bytes with a key: key " + key.length + ", value " + value.length);
      }
      if (sequence < 0) {
        throw new IllegalArgumentException("small entry sequence must be >= 0: " + sequence);
      }
      if (rrpv < 0 || rrpv > SmallSetEviction.MAX_RRPV) {
        throw new IllegalArgumentException("rrpv must be 0.." + SmallSetEviction.MAX_RRPV + ": " + rrpv);
      }
    }

    static Entry of(byte[] key, byte[] value, long sequence, long expiryMillis) {
      return new Entry(key, value, KeyHash.of(key), sequence, expiryMillis, SmallSetEviction.INSERT_RRPV);
    }

    /** Bytes this entry takes in a page, its header included. */
    int bytes() {
      return headerBytes(key.length, value.length, sequence, expiryMillis) + key.length + value.length;
    }

    boolean expired(long nowMillis) {
      return expiryMillis != 0 && expiryMillis <= nowMillis;
    }

    Entry withRrpv(int r) {
      return r == rrpv ? this : new Entry(key, value, keyHash, sequence, expiryMillis, r);
    }
  }

  /** A verified page: its generation and its entries in page order. */
  record Page(long generation, List<Entry> entries) {
    static final Page EMPTY = new Page(0, List.of());
  }

  /** The header bytes of an entry with these fields. */
  static int headerBytes(int keyLength, int valueLength, long sequence, long expiryMillis) {
    return varintBytes(keyLength) + varintBytes(valueLength) + 1 + varintBytes(sequence)
        + (expiryMillis != 0 ? Long.BYTES : 0);
  }

  /** Bytes of {@code v} (>= 0) as an unsigned LEB128 varint, 1..9. */
  static int varintBytes(long v) {
    return Math.max(1, (Long.SIZE - Long.numberOfLeadingZeros(v) + 6) / 7);
  }

  /**
   * Writes a whole page into {@code page} (position 0 to {@value #PAGE_BYTES}; its byte order is not
   * relied on). The entries must fit ({@link #CAPACITY_BYTES}).
   */
  static void encode(ByteBuffer page, int setId, long epoch, long generation, List<Entry> entries) {
    if (entries.size() > MAX_ENTRIES) {
      throw new IllegalArgumentException("too many entries for a page: " + entries.size() + " > " + MAX_ENTRIES);
    }
    ByteBuffer b = page.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    b.clear().limit(PAGE_BYTES);
    b.put(0, new byte[PAGE_BYTES]);
    b.putInt(0, MAGIC)
        .put(8, FORMAT_VERSION)
        .putShort(10, (short) entries.size())
        .putInt(12, setId)
        .putLong(16, epoch)
        .putLong(24, generation);
    int p = HEADER_BYTES;
    for (Entry e : entries) {
      if (p + e.bytes() > PAGE_BYTES) {
        throw new IllegalArgumentException("entries do not fit a page: " + entries.size());
      }
      int q = putVarint(b, p, e.key().length);
      q = putVarint(b, q, e.value().length);
      b.put(q++, (byte) (e.rrpv() | (e.expiryMillis() != 0 ? HAS_EXPIRY : 0)));
      q = putVarint(b, q, e.sequence());
      if (e.expiryMillis() != 0) {
        b.putLong(q, e.expiryMillis());
        q += Long.BYTES;
      }
      b.put(q, e.key()).put(q + e.key().length, e.value());
      p += e.bytes();
    }
    b.putInt(4, crc(b));
  }

  /**
   * The page's entries if {@code page} (position 0, {@value #PAGE_BYTES} bytes) is an intact page of
   * {@code setId} written in {@code epoch}, else null. Never throws on corrupt bytes.
   */
  static Page decode(ByteBuffer page, int setId, long epoch) {
    ByteBuffer b = verified(page, setId, epoch);
    int[] layout = b == null ? null : layout(b);
    if (layout == null) {
      return null;
    }
    List<Entry> entries = new ArrayList<>(layout.length / FIELDS);
    for (int i = 0; i < layout.length; i += FIELDS) {
      entries.add(entryAt(b, layout[i + START]));
    }
    return new Page(b.getLong(24), entries);
  }

  /** What {@link #find} found: the entry and its position in the page (0 = first). */
  record Found(Entry entry, int position) {}

  /** Sentinel of {@link #find}: the page did not verify. */
  static final Found DAMAGED = new Found(null, -1);

  /**
   * Looks {@code key} up in a page, decoding only its entry: {@link #DAMAGED} if the page does not verify
   * ({@link #decode}'s rules), null if it verifies and does not hold the key.
   */
  static Found find(ByteBuffer page, int setId, long epoch, byte[] key) {
    ByteBuffer b = verified(page, setId, epoch);
    int[] layout = b == null ? null : layout(b);
    if (layout == null) {
      return DAMAGED;
    }
    for (int i = 0; i < layout.length; i += FIELDS) {
      if (layout[i + KEY_LENGTH] == key.length && keyAt(b, layout[i + KEY_AT], key)) {
        return new Found(entryAt(b, layout[i + START]), i / FIELDS);
      }
    }
    return null;
  }

  /**
   * The entry at {@code index} in page order: {@link #DAMAGED} if the page does not verify, null if it
   * has fewer entries. For the log, whose pages may hold several versions of one key.
   */
  static Found at(ByteBuffer page, int setId, long epoch, int index) {
    ByteBuffer b = verified(page, setId, epoch);
    int[] layout = b == null ? null : layout(b);
    if (layout == null) {
      return DAMAGED;
    }
    return index < layout.length / FIELDS ? new Found(entryAt(b, layout[index * FIELDS + START]), index) : null;
  }

  /** Fields of {@link #layout} per entry: its start, its key's offset and its key's length. */
  private static final int START = 0;
  private static final int KEY_AT = 1;
  private static final int KEY_LENGTH = 2;
  private static final int FIELDS = 3;

  /**
   * Where each entry of a verified page and its key are ({@link #FIELDS} ints per entry, page order), from
   * one parse of the headers, or null if an entry header is implausible.
   */
  private static int[] layout(ByteBuffer b) {
    int count = Short.toUnsignedInt(b.getShort(10));
    if (count > MAX_ENTRIES) {
      return null;
    }
    int[] layout = new int[count * FIELDS];
    int p = HEADER_BYTES;
    for (int i = 0; i < layout.length; i += FIELDS) {
      p = parseEntry(b, p, layout, i);
      if (p < 0) {
        return null;
      }
    }
    return layout;
  }

  /** True if the {@code key.length} bytes at {@code at} are {@code key}'s. */
  private static boolean keyAt(ByteBuffer b, int at, byte[] key) {
    for (int i = 0; i < key.length; i++) {
      if (b.get(at + i) != key[i]) {
        return false;
      }
    }
    return true;
  }

  /** The entry at {@code p} of a page whose {@link #layout} checked out. */
  private static Entry entryAt(ByteBuffer b, int p) {
    int k = (int) getVarint(b, p);
    int q = p + varintBytes(k);
    int v = (int) getVarint(b, q);
    q += varintBytes(v);
    int flags = b.get(q++);
    long sequence = getVarint(b, q);
    q += varintBytes(sequence);
    long expiry = 0;
    if ((flags & HAS_EXPIRY) != 0) {
      expiry = b.getLong(q);
      q += Long.BYTES;
    }
    byte[] key = new byte[k];
    byte[] value = new byte[v];
    b.get(q, key).get(q + k, value);
    return new Entry(key, value, KeyHash.of(key), sequence, expiry, flags & RRPV_BITS);
  }

  /** The generation field of a page {@link #find} or {@link #decode} verified. */
  static long generation(ByteBuffer page) {
    return page.duplicate().order(ByteOrder.LITTLE_ENDIAN).getLong(24);
  }

  /**
   * True if {@code page} says it was written in {@code epoch} (magic and epoch fields, whatever its CRC): a
   * page that then fails {@link #decode} is damaged; one of another epoch is an earlier open's, empty.
   */
  static boolean ofEpoch(ByteBuffer page, long epoch) {
    if (page.limit() < PAGE_BYTES) {
      return false;
    }
    ByteBuffer b = page.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    return b.getInt(0) == MAGIC && b.getLong(16) == epoch;
  }

  /** A little-endian view of {@code page} if header and CRC check out, else null. */
  private static ByteBuffer verified(ByteBuffer page, int setId, long epoch) {
    if (page.limit() < PAGE_BYTES) {
      return null;
    }
    ByteBuffer b = page.duplicate().order(ByteOrder.LITTLE_ENDIAN).clear().limit(PAGE_BYTES);
    if (b.getInt(0) != MAGIC || b.get(8) != FORMAT_VERSION || b.getInt(12) != setId || b.getLong(16) != epoch
        || b.getInt(4) != crc(b)) {
      return null;
    }
    return b;
  }

  /**
   * Checks the entry at {@code p} and writes its start, key offset and key length at {@code at} of
   * {@code layout}; returns its end, or -1 if its header is implausible or it runs past the page.
   */
  private static int parseEntry(ByteBuffer b, int p, int[] layout, int at) {
    long k = checkedVarint(b, p);
    int q = k < 1 || k > MAX_KEY_AND_VALUE_BYTES ? -1 : p + varintBytes(k);
    long v = q < 0 ? -1 : checkedVarint(b, q);
    q = v < 0 || v > MAX_KEY_AND_VALUE_BYTES || k + v > MAX_KEY_AND_VALUE_BYTES ? -1 : q + varintBytes(v);
    if (q < 0 || q >= PAGE_BYTES) {
      return -1;
    }
    int flags = b.get(q++);
    if ((flags & ~(RRPV_BITS | HAS_EXPIRY)) != 0) {
      return -1;
    }
    long sequence = checkedVarint(b, q);
    if (sequence < 0) {
      return -1;
    }
    int keyAt = q + varintBytes(sequence) + ((flags & HAS_EXPIRY) != 0 ? Long.BYTES : 0);
    long end = keyAt + k + v;
    if (end > PAGE_BYTES) {
      return -1;
    }
    layout[at + START] = p;
    layout[at + KEY_AT] = keyAt;
    layout[at + KEY_LENGTH] = (int) k;
    return (int) end;
  }

  /** Writes {@code v} (>= 0) as a varint at {@code p}; returns the position after it. */
  private static int putVarint(ByteBuffer b, int p, long v) {
    while ((v & ~0x7FL) != 0) {
      b.put(p++, (byte) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    b.put(p++, (byte) v);
    return p;
  }

  /** The varint at {@code p} of a page whose {@link #layout} checked out. */
  private static long getVarint(ByteBuffer b, int p) {
    long v = 0;
    for (int shift = 0; ; shift += 7) {
      byte x = b.get(p++);
      v |= (long) (x & 0x7F) << shift;
      if (x >= 0) {
        return v;
      }
    }
  }

  /**
   * The varint at {@code p} if it ends within the page, takes at most {@value #MAX_VARINT_BYTES} bytes
   * (so it is >= 0, as every length and sequence is) and has no redundant high zero byte (so it takes
   * exactly {@link #varintBytes} of its value: the callers advance by that), else -1.
   */
  private static long checkedVarint(ByteBuffer b, int p) {
    long v = 0;
    for (int i = 0; i < MAX_VARINT_BYTES && p + i < PAGE_BYTES; i++) {
      byte x = b.get(p + i);
      v |= (long) (x & 0x7F) << (7 * i);
      if (x >= 0) {
        return x == 0 && i > 0 ? -1 : v;
      }
    }
    return -1;
  }

  private static int crc(ByteBuffer b) {
    CRC32C crc = new CRC32C();
    crc.update(b.duplicate().clear().position(CRC_START).limit(PAGE_BYTES));
    return (int) crc.getValue();
  }

  /** Total bytes {@code entries} take in a page. */
  static int bytesOf(List<Entry> entries) {
    int sum = 0;
    for (Entry e : entries) {
      sum += e.bytes();
    }
    return sum;
  }

  /** Keys are compared by content (for tests and merges). */
  static boolean sameKey(Entry a, Entry b) {
    return a.keyHash() == b.keyHash() && Arrays.equals(a.key(), b.key());
  }
}
