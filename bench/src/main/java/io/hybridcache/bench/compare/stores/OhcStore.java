package io.hybridcache.bench.compare.stores;

import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.compare.KvStore;
import io.hybridcache.bench.compare.StoreSettings;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.caffinitas.ohc.CacheSerializer;
import org.caffinitas.ohc.Eviction;
import org.caffinitas.ohc.OHCache;
import org.caffinitas.ohc.OHCacheBuilder;

/**
 * OHC alone (DRAM only, off-heap): a cache, it forgets what does not fit. Thread-safe (OHC locks
 * per segment; serialisation runs outside the locks).
 *
 * <p>Budget: OHC's {@code capacity} is the DRAM budget; it counts each entry as a 64-byte header
 * plus key plus value (malloc's own overhead is not counted). The hash tables come on top, 8 bytes
 * a bucket: OHC's README asks for a large table (short bucket chains), so each segment's initial
 * table holds the entries that fit in the budget (at most the expected entries) at the 0.75 load
 * factor, and OHC rehashes if more come. Otherwise its defaults: the linked implementation, 2 x
 * cores segments, LRU eviction (W-TinyLFU is opt-in there), an entry at most capacity / segments.
 * A put OHC cannot place (too large, or no memory) is dropped rather than blocking, so a later get
 * misses.
 *
 * <p>Keys are stored as UTF-8, values as they are; OHC records both lengths itself.
 */
public final class OhcStore implements KvStore {
  /** OHC's per-entry header in the linked implementation ({@code Util.ENTRY_OFF_DATA}). */
  static final int ENTRY_HEADER_BYTES = 64;
  private static final float LOAD_FACTOR = 0.75f;

  private final OHCache<String, byte[]> cache;
  private final int tableSizePerSegment;

  public OhcStore(StoreSettings s) {
    OHCacheBuilder<String, byte[]> builder = OHCacheBuilder.<String, byte[]>newBuilder()
        .keySerializer(KEYS)
        .valueSerializer(VALUES)
        .capacity(s.dramBytes())
        .eviction(Eviction.LRU);
    long entryBytes = ENTRY_HEADER_BYTES + PeerFiles.TYPICAL_KEY.length() + s.averageValueBytes();
    long fits = Math.min(s.expectedEntries(), s.dramBytes() / entryBytes);
    tableSizePerSegment = powerOfTwoAtLeast(fits / builder.getSegmentCount() / LOAD_FACTOR);
    cache = builder.hashTableSize(tableSizePerSegment).loadFactor(LOAD_FACTOR).build();
  }

  /** The smallest power of two >= {@code n}, between 1024 and 2^30. */
  static int powerOfTwoAtLeast(double n) {
    long v = 1024;
    while (v < n && v < 1 << 30) {
      v <<= 1;
    }
    return (int) v;
  }

  @Override
  public byte[] get(String key) {
    return cache.get(key);
  }

  @Override
  public void put(String key, byte[] value) {
    cache.put(key, value);
  }

  @Override
  public boolean delete(String key) {
    return cache.remove(key);
  }

  @Override
  public String describe() {
    long tableBytes = 8L * cache.segments() * tableSizePerSegment;
    return "ohc (linked, LRU): capacity " + Sizes.format(cache.capacity()) + " off-heap (" + ENTRY_HEADER_BYTES
        + " B header + key + value per entry), " + cache.segments() + " segments x " + tableSizePerSegment
        + " buckets at first (+" + Sizes.format(tableBytes) + " of hash tables)";
  }

  @Override
  public void close() throws Exception {
    cache.close();
  }

  /** UTF-8 without a length prefix (OHC keeps the key length); YCSB keys are ASCII: no copy to size them. */
  private static final CacheSerializer<String> KEYS = new CacheSerializer<>() {
    @Override
    public void serialize(String key, ByteBuffer buf) {
      buf.put(key.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String deserialize(ByteBuffer buf) {
      byte[] b = new byte[buf.remaining()];
      buf.get(b);
      return new String(b, StandardCharsets.UTF_8);
    }

    @Override
    public int serializedSize(String key) {
      for (int i = 0; i < key.length(); i++) {
        if (key.charAt(i) >= 0x80) {
          return key.getBytes(StandardCharsets.UTF_8).length;
        }
      }
      return key.length();
    }
  };

  /** The bytes as they are (OHC hands over a buffer of exactly the value's length). */
  private static final CacheSerializer<byte[]> VALUES = new CacheSerializer<>() {
    @Override
    public void serialize(byte[] value, ByteBuffer buf) {
      buf.put(value);
    }

    @Override
    public byte[] deserialize(ByteBuffer buf) {
      byte[] b = new byte[buf.remaining()];
      buf.get(b);
      return b;
    }

    @Override
    public int serializedSize(byte[] value) {
      return value.length;
    }
  };
}
