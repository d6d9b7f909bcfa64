package io.hybridcache.jcache;

import io.hybridcache.core.api.Codec;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.Tier;
import io.hybridcache.core.api.TieredDecoder;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Store-by-value in a namespace of the shared engine: each put encodes the value once; a get decodes the
 * stored bytes (a new copy for the caller, as the spec asks). Thread-safe.
 *
 * <p>Format of a stored value: {@code expireAt} (8 bytes, big-endian epoch milliseconds,
 * {@code Long.MAX_VALUE} for none; its top bit, never set by a time, marks Spring's null value,
 * {@link NullValues}, with no payload) then the value codec's bytes. A bounded entry is also given to the
 * engine with its expiry time, so the engine frees its space even if it is never read; while the cache keeps
 * expired entries ({@link #keepExpired}: an EXPIRED listener, or access deadlines in DRAM) that time is
 * {@link #ENGINE_TTL_SLACK} later, so a read before then still finds the entry and reports it expired.
 *
 * <p>Copies: a put encodes the value behind the header's reserved bytes ({@link ReservingCodec}), and hands
 * that array and the namespaced key (also encoded in one array) to the engine, which keeps both
 * ({@code HybridCache.putOwned}): one copy of the value per put, two for a {@code String} value or key of at most
 * {@link ReservingCodec#JDK_ENCODED_CHARS} chars (the JDK's encoding, then the copy behind the head: faster), and
 * for a longer {@code String} that is not all ASCII the part written before its first non-ASCII char, the JDK's
 * encoding and the copy ({@link ReservingCodec#utf8}). A read, single ({@code HybridCache.readTiered}) or
 * batch ({@code HybridCache.readAll}), reads the engine's array in place (a {@code String} value is decoded from it
 * straight, any other codec gets a copy of the payload) and keeps the tier that served it ({@link Stored#fromFlash()}), for the cache's hits by tier.
 *
 * <p>Sizes: a key whose encoding (with the namespace prefix) is over the engine's limit is a miss on a read
 * and is not stored by a write; an entry a tier cannot hold is counted and logged ({@link Oversized}).
 */
final class ValueStore<K, V> implements Store<K, V> {
  static final int HEADER = Long.BYTES;
  static final Duration ENGINE_TTL_SLACK = Duration.ofMinutes(1);
  private static final long NULL_VALUE_FLAG = Long.MIN_VALUE;
  /** The header's long in a stored array, big-endian as {@code ByteBuffer}'s (no buffer per read or write). */
  private static final VarHandle HEADER_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
  private static final Logger LOG = LoggerFactory.getLogger(ValueStore.class);

  private final HybridCache engine;
  private final Namespaces namespaces;
  private final Namespace namespace;
  private final Codec<K> keys;
  private final Codec<V> values;
  /** {@link #keys} and {@link #values} as reserving codecs, resolved once ({@link ReservingCodec#of}). */
  private final ReservingCodec<K> keyBytes;
  private final ReservingCodec<V> valueBytes;
  private final Oversized oversized;
  private final ClassLoader loader;
  /** Makes the stored version of a read's bytes, told the tier that served them: one instance, no per-read lambda. */
  private final TieredDecoder<Stored<V>> decoder = this::bytes;
  private volatile boolean keepExpired;

  ValueStore(HybridCache engine, Namespaces namespaces, Namespace namespace, Codec<K> keys, Codec<V> values,
      Oversized oversized, ClassLoader loader) {
    this.engine = engine;
    this.namespaces = namespaces;
    this.namespace = namespace;
    this.keys = keys;
    this.values = values;
    this.keyBytes = ReservingCodec.of(keys);
    this.valueBytes = ReservingCodec.of(values);
    this.oversized = oversized;
    this.loader = loader;
  }

  @Override
  public Slot<V> slot(K key) {
    byte[] engineKey; // handed to the engine by each write, which keeps it: never changed
    try {
      engineKey = namespace.keyOf(keyBytes, key);
    } catch (Unstorable e) {
      return new RefusedKey<>(key, e);
    }
    return new EngineSlot(engineKey);
  }

  /**
   * {@inheritDoc} One engine batch read ({@code HybridCache.getAll}) for every slot of this store: the engine
   * answers its DRAM hits first and reads the rest from flash in address order.
   */
  @Override
  public List<Stored<V>> getAll(List<Slot<V>> slots) {
    List<Stored<V>> found = new ArrayList<>(Collections.nCopies(slots.size(), null));
    List<byte[]> engineKeys = new ArrayList<>(slots.size());
    List<Integer> at = new ArrayList<>(slots.size());
    for (int i = 0; i < slots.size(); i++) {
      if (slots.get(i) instanceof ValueStore<?, ?>.EngineSlot s && s.store() == this && !s.tooLong) {
        engineKeys.add(s.engineKey);
        at.add(i);
      } else {
        found.set(i, slots.get(i).get()); // a refused or too long key (a miss), another store's slot
      }
    }
    if (!engineKeys.isEmpty()) {
      List<Stored<V>> read = engine.readAll(engineKeys, decoder); // the engine's arrays: copied once, by bytes()
      for (int j = 0; j < read.size(); j++) {
        found.set(at.get(j), read.get(j));
      }
    }
    return found;
  }

  /**
   * The stored version in {@code raw} (the engine's bytes, read in place: header, then payload, never copied here),
   * served by {@code tier}.
   */
  private Stored<V> bytes(byte[] raw, Tier tier) {
    if (raw.length < HEADER) {
      return null; // not this store's format (no header): absent for it, never an exception
    }
    return new Bytes<>((long) HEADER_LONG.get(raw, 0), raw, values, loader, tier == Tier.FLASH);
  }

  /** The slot of a key this store can encode: its namespaced engine key, encoded once. */
  private final class EngineSlot implements Slot<V> {
    private final byte[] engineKey;
    private final boolean tooLong;
    private int hash; // KeyLocks.hash of engineKey once asked (0: not yet, or a key whose hash is 0)
    private V prepared;
    private byte[] preparedRaw; // the header's bytes reserved, the value's behind; the engine keeps it

    EngineSlot(byte[] engineKey) {
      this.engineKey = engineKey;
      this.tooLong = engineKey.length > io.hybridcache.core.api.CacheConfig.MAX_KEY_BYTES;
    }

    ValueStore<K, V> store() {
      return ValueStore.this;
    }

    @Override
    public int hash() {
      int h = hash;
      if (h == 0) {
        h = KeyLocks.hash(engineKey);
        hash = h;
      }
      return h;
    }

    @Override
    public Object id() {
      return ByteBuffer.wrap(engineKey); // equal by content: the key of the current epoch
    }

    @Override
    public Stored<V> get() {
      if (tooLong) {
        return null; // never stored: a miss
      }
      // the engine's own bytes, read in place (Bytes: decoded from them, or from a copy for a codec that may keep it)
      return engine.readTiered(engineKey, decoder);
    }

    @Override
    public Stored<V> head() {
      if (tooLong) {
        return null;
      }
      byte[] h = engine.readHead(engineKey, HEADER); // the expiry time: no payload read, nothing decoded
      return h == null || h.length < HEADER ? null : new Head<>((long) HEADER_LONG.get(h, 0) & ~NULL_VALUE_FLAG);
    }

    @Override
    public void prepare(V value) {
      preparedRaw = encode(value);
      prepared = value;
    }

    @Override
    public void put(V value, long expireAt) {
      byte[] raw = value == prepared && preparedRaw != null ? preparedRaw : encode(value);
      prepared = null;
      preparedRaw = null; // the engine keeps it: never written again
      write(engineKey, tooLong, raw, NullValues.is(value) ? expireAt | NULL_VALUE_FLAG : expireAt);
    }

    @Override
    public void setExpiry(Stored<V> current, long expireAt) {
      Bytes<V> b = (Bytes<V>) current;
      byte[] raw = ReservingCodec.behind(b.raw, HEADER, b.raw.length - HEADER, HEADER);
      write(engineKey, tooLong, raw, b.nullValue ? expireAt | NULL_VALUE_FLAG : expireAt);
    }

    @Override
    public void remove() {
      if (!tooLong) {
        engine.remove(engineKey);
      }
    }
  }

  /** The stored bytes of {@code value}, its header's {@link #HEADER} bytes reserved (zero) in front. */
  private byte[] encode(V value) {
    return NullValues.is(value) ? new byte[HEADER] : valueBytes.encode(value, HEADER);
  }

  @Override
  public void keepExpired(boolean on) {
    keepExpired = on;
  }

  /**
   * Writes an entry, handing {@code raw} (the header's bytes reserved in front) and {@code engineKey} over to the
   * engine; {@code header} is the expiry time, with the null-value flag if set.
   */
  private void write(byte[] engineKey, boolean tooLong, byte[] raw, long header) {
    if (tooLong) {
      oversized.keyTooLong(engineKey.length);
      return;
    }
    oversized.check(engineKey.length, raw.length);
    HEADER_LONG.set(raw, 0, header);
    engine.putOwned(engineKey, raw, engineExpiry(header & ~NULL_VALUE_FLAG));
  }

  /** When the engine lets an entry of expiry time {@code expireAt} go: then, or a slack later ({@link #keepExpired}). */
  private long engineExpiry(long expireAt) {
    if (expireAt == Stored.ETERNAL || !keepExpired) {
      return expireAt;
    }
    long slack = ENGINE_TTL_SLACK.toMillis();
    return expireAt > Stored.ETERNAL - 1 - slack ? Stored.ETERNAL - 1 : expireAt + slack;
  }

  @Override
  public void clear() {
    namespaces.bump(namespace);
  }

  /**
   * {@inheritDoc} The engine's keys of this namespace's current epoch; if the engine's flash keys cannot be listed
   * (a degraded tier, a read error) {@code hasNext} throws {@link Store.KeysUnavailable}, and no other cache's
   * entries are dropped ({@code HybridCache.keysOrFail}).
   */
  @Override
  public Iterator<K> keys() {
    Iterator<byte[]> all = engine.keysOrFail();
    Set<ByteBuffer> seen = new HashSet<>();
    return new Iterator<>() {
      private K next;

      @Override
      public boolean hasNext() {
        try {
          return advance();
        } catch (IllegalStateException e) {
          throw new Store.KeysUnavailable("cache " + namespace.name() + ": " + e.getMessage(), e);
        }
      }

      private boolean advance() {
        while (next == null && all.hasNext()) {
          byte[] k = namespace.strip(all.next());
          if (k != null && seen.add(ByteBuffer.wrap(k))) {
            try {
              next = keys.decode(k);
            } catch (RuntimeException e) {
              LOG.warn("cache {}: a key that does not decode is skipped", namespace.name(), e);
            }
          }
        }
        return next != null;
      }

      @Override
      public K next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        K k = next;
        next = null;
        return k;
      }
    };
  }

  /**
   * The slot of a key the serialization filter refuses (its class, or its graph over a limit): never stored,
   * so a read is a miss and a write fails with the refusal, naming the class.
   */
  private static final class RefusedKey<V> implements Slot<V> {
    private final int hash;
    private final Unstorable refusal;

    RefusedKey(Object key, Unstorable refusal) {
      this.hash = key.getClass().hashCode();
      this.refusal = refusal;
    }

    @Override
    public int hash() {
      return hash;
    }

    @Override
    public Object id() {
      return this; // never stored: equal to no other slot
    }

    @Override
    public void prepare(V value) {
      throw new IllegalArgumentException("a key the serialization filter refuses: " + refusal.getMessage(), refusal);
    }

    @Override
    public Stored<V> get() {
      return null;
    }

    @Override
    public void put(V value, long expireAt) {
      prepare(value);
    }

    @Override
    public void setExpiry(Stored<V> current, long expireAt) {
      prepare(null);
    }

    @Override
    public void remove() {
      // never stored
    }
  }

  /** A stored entry of which only the header was read ({@link Slot#head()}): its expiry time, no value. */
  private static final class Head<V> extends Stored<V> {
    Head(long expireAt) {
      super(expireAt);
    }

    @Override
    V value() {
      throw new IllegalStateException("only the header of this entry was read");
    }

    @Override
    boolean sameValue(Stored<V> other) {
      return false; // its value is unknown
    }
  }

  /**
   * A stored value's payload (the codec's bytes behind the header, in the engine's own array, which nobody changes
   * and this class never hands out), decoded on each {@link #value()}: a {@code String} of the UTF-8 codec straight
   * from the array (the decode is the one copy), any other codec from a copy of the payload (a codec may keep or
   * return the array it is given). One that does not decode throws {@link Undecodable} (the same one on each
   * call: it is counted once), which the cache reads as a miss. Confined to the operation that read it.
   */
  private static final class Bytes<V> extends Stored<V> {
    private final byte[] raw;
    private final boolean nullValue;
    private final Codec<V> codec;
    private final ClassLoader loader;
    private final boolean fromFlash;
    private Undecodable failure;

    Bytes(long header, byte[] raw, Codec<V> codec, ClassLoader loader, boolean fromFlash) {
      super(header & ~NULL_VALUE_FLAG);
      this.nullValue = header < 0;
      this.raw = raw;
      this.codec = codec;
      this.loader = loader;
      this.fromFlash = fromFlash;
    }

    @Override
    boolean fromFlash() {
      return fromFlash;
    }

    @Override
    @SuppressWarnings("unchecked")
    V value() {
      if (failure != null) {
        throw failure;
      }
      try {
        if (nullValue) {
          return (V) NullValues.instance(loader);
        }
        return codec == Codec.utf8() ? (V) new String(raw, HEADER, raw.length - HEADER, StandardCharsets.UTF_8)
            : codec.decode(Arrays.copyOfRange(raw, HEADER, raw.length));
      } catch (RuntimeException e) {
        failure = Undecodable.of(codec, e);
        throw failure;
      }
    }

    @Override
    boolean sameValue(Stored<V> other) {
      return other instanceof Bytes<V> b && b.nullValue == nullValue
          && Arrays.equals(b.raw, HEADER, b.raw.length, raw, HEADER, raw.length);
    }
  }
}
