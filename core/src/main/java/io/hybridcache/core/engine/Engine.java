package io.hybridcache.core.engine;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.api.PlacementStats;
import io.hybridcache.core.api.RemovalCause;
import io.hybridcache.core.device.FileDevice;
import io.hybridcache.core.device.FileModes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link HybridCache}: a Caffeine DRAM tier chained over the segmented flash tier of the CaSSanDra
 * paper (section IV), with reclaim, admission and warm restart beyond it.
 *
 * <p>Thread-safe. The engine only orchestrates: DRAM lives in {@link DramTier}, flash in
 * {@link FlashTier} (index, segments, write path, reclaim).
 *
 * <p>Concurrency: {@code get} walks DRAM then flash without locks and promotes a flash hit as a clean
 * DRAM entry inside {@code compute}, only if the index still points at what was read. {@code put} and
 * {@code remove} run their flash invalidation inside the DRAM tier's {@code compute} for the key, which
 * is atomic with that key's eviction, and a dirty eviction is written to flash and indexed inside that
 * eviction: this keeps a key's versions ordered: after {@code put(k, v2)} returns, no tier ever serves
 * an older {@code k}. Dirty evictions go through the admission policy and are written by the evicting
 * thread itself (Caffeine evicts on the calling thread); when flash has no room, the eviction waits up
 * to {@link CacheConfig#cascadeWait()}, which throttles writers to the device's pace, then is refused and
 * counted. An eviction on a thread that is reading waits one device write at most, never for reclaim.
 * Why waiting cannot deadlock, and how faults and close end a wait, is in {@link FlashTier}.
 *
 * <p>Reclaim and restart are described in {@link FlashTier}, {@link FlashOpener} and
 * {@link io.hybridcache.core.engine.Reclaimer}.
 *
 * <p>Two flash engines (CacheLib navy's BlockCache and BigHash under one driver, OSDI 2020; Kangaroo, SOSP
 * 2021): with {@link CacheConfig#smallObjectShare()} above 0, a dirty eviction whose key + value fit in
 * {@link CacheConfig#smallObjectMaxBytes()} goes to the small-object engine ({@link
 * SmallTier}), every other one to the log engine ({@link FlashTier}). Every put and remove, inside the key's
 * {@code compute}, invalidates the log engine's index entry before it returns. A remove, and a put with a
 * TTL, also remove the small engine's versions (log and set) synchronously. A put without a TTL does no
 * I/O there: it only asks the small engine's DRAM (log index, set filter) whether it may hold the key and,
 * if so, flags the new DRAM entry ({@link DramEntry#smallStale()}; the key's next put inherits the flag).
 * Every read looks in DRAM first, so the older version stays harmless while the entry is in DRAM, and after it is evicted into the small engine's log, whose newer
 * version shadows it for every read there (the log is read newest first, before the sets, and never drops
 * a version whose set may hold an older one). Every other way out of DRAM (to the log engine, refused,
 * expired, written back to the log engine) first removes the small engine's versions
 * ({@link #invalidateSmall}). So the put of a tiny object over its flash version costs DRAM lookups only,
 * where it cost a set page's read and rewrite (issue 27). Reads look in the log engine's index, then in
 * the small engine; a small-engine hit is promoted to DRAM only if no put, remove or clear of the key
 * completed since the lookup began ({@link SmallTier#unchangedSince}). The small engine is warm after a
 * clean close (its DRAM entries written back into it and its state saved) and cold after a crash.
 */
final class Engine implements HybridCache {
  private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

  /**
   * Set while this thread reads: Caffeine may run its evictions on any thread that touches it (a
   * same-thread executor), and an eviction on a reader's thread waits for flash room only briefly.
   */
  private static final ThreadLocal<boolean[]> READING = ThreadLocal.withInitial(() -> new boolean[1]);

  private final CacheConfig config;
  private final Counters counters = new Counters();
  private final AtomicLong sequence = new AtomicLong();
  private final LifetimeClasses classes = new LifetimeClasses();
  private final DramTier dram;
  private final FlashTier flash;
  private final SmallTier small; // null when smallObjectShare is 0
  /**
   * Twice the clears ended, plus one while a {@link #clear} runs (a seqlock count): a flash read whose count
   * was odd, or changed before its promotion, never promotes.
   */
  private final java.util.concurrent.atomic.AtomicLong clearsBegun = new java.util.concurrent.atomic.AtomicLong();
  private final Object clearLock = new Object();
  private final StatsMXBean mbean;
  private final CallGate calls;
  private final KeysIterator.Promotions promotions = new KeysIterator.Promotions();
  private final Removals removals;
  /** Told of evictions by key on the evicting thread ({@link io.hybridcache.core.api.EvictionHook}), or null. */
  private final io.hybridcache.core.api.EvictionHook evictionHook;
  private final SingleFlight loads = new SingleFlight();
  /** Tests: called after a flash engine served a lookup, before the promotion ("log" or "small", key). */
  private volatile java.util.function.BiConsumer<String, byte[]> afterFlashRead = (engine, key) -> { };
  private volatile CacheStats finalStats; // taken at close, returned by stats() afterwards

  private Engine(CacheConfig config, FlashOpener.DeviceFactory devices, int tagBits,
      java.util.function.UnaryOperator<Index> indexView) throws IOException {
    this.config = config;
    this.calls = new CallGate(config.name());
    this.flash = FlashOpener.open(config, devices, counters, sequence, classes, tagBits, indexView);
    SmallTier smallTier = null;
    try {
      if (config.smallObjectsEnabled()) {
        smallTier = SmallTier.open(config, devices,
            FileModes.supported(config.directory()) ? config.filePermissionSet() : null);
      } else { // its files, checkpoint included, would bring back versions removed while it was off
        SmallTier.deleteSlotFiles(config.directory().resolve(OwnedFiles.SMALL));
      }
      this.small = smallTier;
      if (smallTier != null) { // a warm small engine beside a log engine that opened unclean: never below its versions
        sequence.accumulateAndGet(smallTier.maxSequence(), Math::max);
      }
      this.removals = new Removals(config.name(), config.removalListener(), config.removalExecutor());
      this.evictionHook = config.evictionHook();
      this.dram = new DramTier(config.dramBytes(), this::onDramEviction, flash.groups());
      java.util.function.Predicate<byte[]> inDram = k -> dram.map().containsKey(new ByteKey(k)); // no maintenance
      if (removals.active()) {
        flash.onReclaimEvicted(e -> removals.notifyUnless(e.key(), e.value(), RemovalCause.EVICTED, inDram));
      }
      if (evictionHook != null) { // no value, no read: the key from the scan's buffer or the summary's key bytes
        flash.onReclaimEvictedKey(this::tellEvicted);
      }
      if (small != null && (removals.active() || evictionHook != null)) {
        small.onEvicted((k, v) -> {
          removals.notifyUnless(k, v, RemovalCause.EVICTED, inDram);
          if (evictionHook != null && !inDram.test(k)) {
            tellEvicted(k);
          }
        });
      }
      flash.start();
      this.mbean = config.jmx() ? StatsMXBean.register(config.name(), this::stats) : null;
    } catch (Throwable t) { // never leave the directory locked or files open behind a failed open
      long deadline = deadline();
      if (smallTier != null) {
        try {
          smallTier.close();
        } catch (IOException | RuntimeException e) {
          t.addSuppressed(e);
        }
      }
      flash.close(flash.stop(deadline), deadline, () -> { });
      throw t;
    }
  }

  /** Opens a cache on files in {@code config.directory()}. */
  static Engine open(CacheConfig config) {
    return open(config, FileDevice::open);
  }

  /** Opens a cache over the devices {@code devices} makes (fault injection in tests). */
  static Engine open(CacheConfig config, FlashOpener.DeviceFactory devices) {
    return open(config, devices, IndexEntry.SEGMENT_TAG_BITS);
  }

  /** As above with {@code tagBits} of segment tag in the index (tests drive ids past a narrow one). */
  static Engine open(CacheConfig config, FlashOpener.DeviceFactory devices, int tagBits) {
    return open(config, devices, tagBits, java.util.function.UnaryOperator.identity());
  }

  /** As above, the flash tier seeing the index through {@code indexView} (tests: an index that refuses keys). */
  static Engine open(CacheConfig config, FlashOpener.DeviceFactory devices, int tagBits,
      java.util.function.UnaryOperator<Index> indexView) {
    Objects.requireNonNull(config, "config");
    try {
      return new Engine(config, devices, tagBits, indexView);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open hybridcache in " + config.directory() + ": " + e.getMessage(), e);
    }
  }

  /**
   * {@inheritDoc} Returns a copy: the caller may change it without changing the cache.
   *
   * @throws IllegalStateException after {@link #close()}
   */
  @Override
  public byte[] get(byte[] key) {
    checkKey(key);
    calls.enter();
    try {
      return read(key, new ByteKey(key), true);
    } finally {
      calls.exit();
    }
  }

  /**
   * DRAM, then flash (promoting the hit); {@code count} false for the second look of a load (not a get).
   * Returns a copy the caller owns.
   */
  private byte[] read(byte[] key, ByteKey k, boolean count) {
    return lookup(key, k, count, true);
  }

  /** {@inheritDoc} A DRAM hit, and a flash hit, cost no copy of the value. */
  @Override
  public <T> T read(byte[] key, Function<ByteBuffer, T> decoder) {
    Objects.requireNonNull(decoder, "decoder");
    return readArray(key, v -> decoder.apply(ByteBuffer.wrap(v).asReadOnlyBuffer()));
  }

  /**
   * {@inheritDoc} A DRAM hit and a flash hit cost no copy of the value: the decoder reads DRAM's array,
   * or the one the flash read made (promoted or not).
   */
  @Override
  public <T> T readArray(byte[] key, Function<byte[], T> decoder) {
    Objects.requireNonNull(decoder, "decoder");
    return decoded(key, decoder, null);
  }

  /** {@inheritDoc} As {@link #readArray}: the tier is known from where the lookup found the entry. */
  @Override
  public <T> T readTiered(byte[] key, io.hybridcache.core.api.TieredDecoder<T> decoder) {
    Objects.requireNonNull(decoder, "decoder");
    return decoded(key, null, decoder);
  }

  /**
   * The lookup of {@link #readArray} and {@link #readTiered}, its value (not copied) decoded by {@code plain} or,
   * if that is null, by {@code tiered}, after the lookup.
   */
  private <T> T decoded(byte[] key, Function<byte[], T> plain, io.hybridcache.core.api.TieredDecoder<T> tiered) {
    checkKey(key);
    calls.enter();
    try {
      ByteKey k = new ByteKey(key);
      byte[] v;
      boolean fromDram;
      boolean[] reading = beginRead(); // a DRAM hit may run Caffeine's evictions on this thread
      try {
        v = dramValue(k, true);
        fromDram = v != null;
        if (!fromDram) {
          v = lookupFlash(key, k, true, false);
        }
      } finally {
        endRead(reading);
      }
      if (v == null) {
        return null;
      }
      return plain != null ? plain.apply(v)
          : tiered.decode(v, fromDram ? io.hybridcache.core.api.Tier.DRAM : io.hybridcache.core.api.Tier.FLASH);
    } finally {
      calls.exit();
    }
  }

  /**
   * The value of {@code key}: with {@code copy} an array the caller owns, else possibly the cache's own
   * (DRAM's, or the one just read from flash and promoted), which must never be handed out.
   */
  private byte[] lookup(byte[] key, ByteKey k, boolean count, boolean copy) {
    boolean[] reading = beginRead();
    try {
      return lookupReading(key, k, count, copy);
    } finally {
      endRead(reading);
    }
  }

  /** Marks this thread as reading ({@link #READING}); returns the flag to clear, or null if it was set. */
  private static boolean[] beginRead() {
    boolean[] reading = READING.get();
    if (reading[0]) {
      return null; // an outer read ends it
    }
    reading[0] = true;
    return reading;
  }

  private static void endRead(boolean[] reading) {
    if (reading != null) {
      reading[0] = false;
    }
  }

  private byte[] lookupReading(byte[] key, ByteKey k, boolean count, boolean copy) {
    byte[] d = dramValue(k, count);
    if (d != null) {
      return copy ? d.clone() : d;
    }
    return lookupFlash(key, k, count, copy);
  }

  /**
   * DRAM's own array of {@code k}'s live value (never to be handed out), or null; counts the DRAM hit if
   * {@code count} (a get is not counted apart: every counted get ends as one DRAM hit, flash hit or miss, and
   * the stats add them up, so a hot key's get writes one counter, not two). Call while reading ({@link #beginRead}).
   */
  private byte[] dramValue(ByteKey k, boolean count) {
    DramEntry d = liveInDram(k);
    if (d == null) {
      return null;
    }
    if (count) {
      counters.dramHits.increment();
    }
    return d.value();
  }

  /**
   * {@code k}'s DRAM entry if it is live, else null; one found expired is told now ({@link DramTier#expiredSeen}:
   * with a batch of other passed deadlines swept, so a read-only workload's expired entries leave too), by a get,
   * a {@code containsKey} or a {@code readHead} alike.
   */
  private DramEntry liveInDram(ByteKey k) {
    DramEntry d = dram.get(k);
    if (d != null && d.expiredNow()) {
      dram.expiredSeen(k, d);
      return null;
    }
    return d;
  }

  private byte[] lookupFlash(byte[] key, ByteKey k, boolean count, boolean copy) {
    long clearsSeen = clearsBegun.get(); // before the read: a clear begun since forbids the promotion
    FlashTier.Hit hit = flash.lookup(k.hash64(), key);
    if (hit == null && small != null) {
      return lookupSmall(key, k, count, copy, clearsSeen);
    }
    if (!counted(hit != null, count)) {
      return null;
    }
    afterFlashRead.accept("log", key);
    EntryFormat.Entry e = hit.entry();
    return promote(k.withBytes(e.key()), new DramEntry(e.value(), false, e.sequence(), e.expiryMillis()),
        kk -> flash.stillAt(kk.hash64(), hit.packed()), copy, clearsSeen);
  }

  /**
   * A lookup in the small-object engine, promoting the hit (with its expiry) to DRAM only if no put, remove
   * or clear of the key completed since the stamp was taken ({@link SmallTier}).
   */
  private byte[] lookupSmall(byte[] key, ByteKey k, boolean count, boolean copy, long clearsSeen) {
    long stamp = small.stamp(k.hash64());
    long clears = small.clears();
    SmallSetPage.Entry e = small.lookup(key);
    if (!counted(e != null, count)) {
      return null;
    }
    afterFlashRead.accept("small", key);
    return promote(k.withBytes(key.clone()), new DramEntry(e.value(), false, e.sequence(), e.expiryMillis()),
        kk -> small.unchangedSince(kk.hash64(), stamp, clears), copy, clearsSeen);
  }


  /** Counts a flash hit or a miss (if {@code count}); returns {@code hit}. */
  private boolean counted(boolean hit, boolean count) {
    if (count) {
      (hit ? counters.flashHits : counters.misses).increment();
    }
    return hit;
  }

  /**
   * Installs {@code promoted} (a clean copy of what flash served) in DRAM under the key's map-bin lock if
   * DRAM holds nothing for the key, {@code still} says the read version is still the newest, and no
   * {@link #clear} overlapped the read: {@code clearsSeen} (taken before the flash read) is even (no clear
   * was running: a clear makes the count odd while it runs, even again when it ends) and unchanged. Returns
   * its value (a copy if {@code copy} and DRAM kept the array). A clear that begins while the copy goes in
   * may already have passed the key's bin: the count is read again after the install, and a copy it missed
   * is taken out, so no promotion outlives a clear.
   */
  private byte[] promote(ByteKey promotedKey, DramEntry promoted, java.util.function.Predicate<ByteKey> still,
      boolean copy, long clearsSeen) {
    byte[] v = promoted.value();
    if ((clearsSeen & 1) != 0 || dram.compute(promotedKey, (kk, cur) -> cur != null ? cur
        : clearsBegun.get() == clearsSeen && still.test(kk) ? promoted : null) != promoted) {
      return v; // not promoted (read during a clear, or a clear began since): nobody else holds this array
    }
    if (clearsBegun.get() != clearsSeen) {
      dram.remove(promotedKey, promoted); // a clear began during the install
      return v;
    }
    promotions.promoted(promotedKey); // a keys() scan in progress must return it (KeysIterator)
    return copy ? v.clone() : v; // DRAM keeps the read array
  }

  /**
   * {@inheritDoc} DRAM hits are answered first; the flash lookups of the rest follow in flash address
   * order (segment, then offset), one after another on the calling thread.
   */
  @Override
  public List<byte[]> getAll(List<byte[]> keys) {
    return Arrays.asList(batchRead(keys, true, null));
  }

  /**
   * {@inheritDoc} The batch read of {@link #getAll} without its copies: a DRAM hit's decoder reads DRAM's array, a
   * flash hit's the one its read made (one copy per hit, the caller's decoder's, where {@code getAll} then
   * {@code decoder} made two).
   */
  @Override
  public <T> List<T> readAll(List<byte[]> keys, io.hybridcache.core.api.TieredDecoder<T> decoder) {
    Objects.requireNonNull(decoder, "decoder");
    boolean[] fromDram = new boolean[keys.size()];
    byte[][] values = batchRead(keys, false, fromDram);
    List<T> decoded = new ArrayList<>(values.length);
    for (int i = 0; i < values.length; i++) {
      decoded.add(values[i] == null ? null : decoder.decode(values[i],
          fromDram[i] ? io.hybridcache.core.api.Tier.DRAM : io.hybridcache.core.api.Tier.FLASH));
    }
    return decoded;
  }

  /**
   * The values of {@code keys} (copies the caller owns if {@code copy}, else possibly the cache's own arrays, never
   * to be handed out), DRAM hits first, then the flash lookups in flash address order; {@code fromDram}, if not
   * null, marks the DRAM hits.
   */
  private byte[][] batchRead(List<byte[]> keys, boolean copy, boolean[] fromDram) {
    Objects.requireNonNull(keys, "keys");
    keys.forEach(Engine::checkKey);
    calls.enter();
    boolean[] reading = beginRead();
    try {
      byte[][] values = new byte[keys.size()][];
      List<long[]> flashCandidates = new ArrayList<>(); // {address, position}
      ByteKey[] ks = new ByteKey[keys.size()];
      for (int i = 0; i < values.length; i++) {
        ks[i] = new ByteKey(keys.get(i));
        byte[] d = dramValue(ks[i], true);
        if (d != null) {
          values[i] = copy ? d.clone() : d;
          if (fromDram != null) {
            fromDram[i] = true;
          }
        } else {
          flashCandidates.add(new long[] {flash.address(ks[i].hash64()), i});
        }
      }
      flashCandidates.sort((a, b) -> Long.compareUnsigned(a[0], b[0])); // segment tag, then offset
      for (long[] c : flashCandidates) {
        int i = (int) c[1];
        values[i] = lookupFlash(keys.get(i), ks[i], true, copy);
      }
      return values;
    } finally {
      endRead(reading);
      calls.exit();
    }
  }

  /** {@inheritDoc} The loader runs on the first caller's thread, outside the cache's locks. */
  @Override
  public byte[] get(byte[] key, Function<byte[], byte[]> loader) {
    checkKey(key);
    Objects.requireNonNull(loader, "loader");
    calls.enter();
    try {
      ByteKey k = new ByteKey(key.clone());
      byte[] v = read(key, k, true);
      if (v != null) {
        return v;
      }
      byte[] loaded = loads.get(k, () -> {
        dram.map().computeIfAbsent(k, kk -> null); // waits for a put or remove of k in progress (SingleFlight)
        return read(key, k, false);
      }, loader, this::installLoaded);
      return loaded == null ? null : loaded.clone();
    } finally {
      calls.exit();
    }
  }

  @Override
  public void put(byte[] key, byte[] value) {
    put(key, value, 0L, LifetimeClass.FRESH);
  }

  @Override
  public void put(byte[] key, byte[] value, Duration ttl) {
    put(key, value, ttl, LifetimeClass.FRESH);
  }

  @Override
  public void put(byte[] key, byte[] value, LifetimeClass lifetimeClass) {
    put(key, value, 0L, checkClass(lifetimeClass));
  }

  @Override
  public void put(byte[] key, byte[] value, Duration ttl, LifetimeClass lifetimeClass) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive: " + ttl);
    }
    put(key, value, expiryOf(ttl, System.currentTimeMillis()), checkClass(lifetimeClass));
  }

  /** {@inheritDoc} Keeps both arrays: no copy (the key's {@link ByteKey} and the DRAM entry hold them). */
  @Override
  public void putOwned(byte[] key, byte[] value, long expireAtMillis) {
    if (expireAtMillis <= 0) {
      throw new IllegalArgumentException("expireAtMillis must be positive (Long.MAX_VALUE: none): " + expireAtMillis);
    }
    checkKey(key);
    Objects.requireNonNull(value, "value");
    calls.enter();
    try {
      put(new ByteKey(key), value, false, expireAtMillis == Long.MAX_VALUE ? 0L : expireAtMillis,
          LifetimeClass.FRESH);
    } finally {
      calls.exit();
    }
  }

  /** Now + ttl in epoch milliseconds, saturating: a TTL of centuries (or FOREVER) never expires. */
  static long expiryOf(Duration ttl, long nowMillis) {
    long millis;
    try {
      millis = Math.max(1, ttl.toMillis());
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
    return millis > Long.MAX_VALUE - nowMillis ? Long.MAX_VALUE : nowMillis + millis;
  }

  /** A class a caller may write to, registered (so recovery and stats know its name). */
  private LifetimeClass checkClass(LifetimeClass c) {
    Objects.requireNonNull(c, "lifetimeClass");
    if (c.equals(LifetimeClass.FRESH)) {
      return c;
    }
    if (c.builtIn()) {
      throw new IllegalArgumentException("lifetime class " + c.name() + " (id " + c.id()
          + ") is reserved for the cache; use FRESH or LifetimeClass.named(id >= "
          + LifetimeClass.FIRST_CALLER_ID + ", name)");
    }
    return classes.register(c);
  }

  /**
   * An entry neither tier can hold (larger than the DRAM budget and than {@link
   * CacheConfig#maxFlashEntryBytes()}) is not cached: the put removes the key's older version, counts
   * the entry in {@link CacheStats#tooLargeRejected()} and returns.
   */
  private void put(byte[] key, byte[] value, long expiryMillis, LifetimeClass lifetimeClass) {
    checkKey(key);
    Objects.requireNonNull(value, "value");
    calls.enter();
    try {
      put(new ByteKey(key.clone()), value, true, expiryMillis, lifetimeClass);
    } finally {
      calls.exit();
    }
  }

  /** A put of a key the caller cannot change; {@code copy}: of a value the caller may change (else kept as is). */
  private void put(ByteKey k, byte[] value, boolean copy, long expiryMillis, LifetimeClass lifetimeClass) {
    counters.puts.increment();
    if (!cacheable(k.bytes().length, value.length)) {
      counters.tooLargeRejected.increment();
      removeLocked(k);
      return;
    }
    byte[] kept = copy ? value.clone() : value;
    dram.compute(k, (kk, old) -> written(kk, old, kept, expiryMillis, lifetimeClass));
  }

  /**
   * A loaded value, installed only if no put or remove of the key took effect since the load checked the
   * cache (decided under the key's map-bin lock, see {@link SingleFlight}); one no tier can hold is
   * counted and dropped (the key was absent when the load began).
   */
  private void installLoaded(ByteKey k, byte[] value, SingleFlight.Load load) {
    counters.puts.increment();
    if (!cacheable(k.bytes().length, value.length)) {
      counters.tooLargeRejected.increment();
      return;
    }
    byte[] copy = value.clone();
    dram.compute(k, (kk, old) -> load.superseded() ? old : written(kk, old, copy, 0L, LifetimeClass.FRESH));
  }

  /**
   * The new DRAM entry of a put over {@code old} (the key's DRAM entry, or null); call inside the DRAM
   * tier's compute for the key. The small engine's older versions are removed now only for a put with a
   * TTL (an expired DRAM entry is invisible to reads, which would then find them); otherwise the entry is
   * flagged if that engine may hold one (see the class note).
   */
  private DramEntry written(ByteKey k, DramEntry old, byte[] copy, long expiryMillis,
      LifetimeClass lifetimeClass) {
    loads.supersede(k); // a load in progress for k must not install after this put
    // drawn here: a key's sequences grow in the order its puts and removes take effect (WarmRecovery)
    long seq = sequence.incrementAndGet();
    flash.invalidate(k.hash64(), seq);
    boolean smallStale = false;
    if (small != null) {
      if (expiryMillis != 0) {
        small.invalidate(k.bytes(), k.hash64());
      } else {
        smallStale = (old != null && old.smallStale()) | small.supersede(k.bytes(), k.hash64());
      }
    }
    return new DramEntry(copy, true, seq, expiryMillis, lifetimeClass, smallStale);
  }

  /**
   * Removes the small engine's versions of a key whose DRAM entry {@code e} leaves DRAM other than into
   * that engine's log; call inside the key's atomic removal or compute.
   */
  private void invalidateSmall(ByteKey key, DramEntry e) {
    if (e.smallStale()) {
      small.invalidate(key.bytes(), key.hash64());
    }
  }

  /** Whether some tier can hold an entry of these lengths. */
  private boolean cacheable(int keyLength, int valueLength) {
    return EntryFormat.entryBytes(keyLength, valueLength) <= config.maxFlashEntryBytes()
        || DramTier.weigh(keyLength, valueLength) <= dram.maximumBytes();
  }

  @Override
  public boolean remove(byte[] key) {
    checkKey(key);
    calls.enter();
    try {
      counters.removes.increment();
      return removeLocked(new ByteKey(key));
    } finally {
      calls.exit();
    }
  }

  private boolean removeLocked(ByteKey key) {
    boolean[] held = {false};
    boolean[] expired = {false}; // DRAM's entry had expired (told EXPIRED): a flash copy is that version or older
    DramEntry[] was = {null};
    dram.compute(key, (kk, old) -> {
      loads.supersede(kk); // a load in progress for the key must not install after this remove
      boolean below = flash.invalidate(kk.hash64(), sequence.incrementAndGet());
      if (small != null) {
        below |= small.invalidate(kk.bytes(), kk.hash64());
      }
      held[0] = old != null || below && !expired[0];
      was[0] = old;
      return null;
    }, expired);
    if (held[0]) {
      removals.notify(key.bytes(), was[0] == null ? null : was[0].value(), RemovalCause.EXPLICIT);
    }
    return held[0];
  }

  @Override
  public boolean containsKey(byte[] key) {
    checkKey(key);
    calls.enter();
    try {
      ByteKey k = new ByteKey(key);
      DramEntry d = liveInDram(k);
      if (d != null) {
        return true;
      }
      return flash.lookup(k.hash64(), key) != null || small != null && small.get(key) != null;
    } finally {
      calls.exit();
    }
  }

  /**
   * {@inheritDoc} DRAM, then the log engine's index and the entry's header ({@link FlashTier#lookupHead}: one
   * page for a value of any size), then the small engine (whose entries are read whole: each is in one page).
   */
  @Override
  public byte[] readHead(byte[] key, int n) {
    checkKey(key);
    if (n < 0) {
      throw new IllegalArgumentException("n must not be negative: " + n);
    }
    calls.enter();
    try {
      ByteKey k = new ByteKey(key);
      DramEntry d = liveInDram(k);
      if (d != null) {
        return Arrays.copyOf(d.value(), Math.min(n, d.value().length));
      }
      byte[] head = flash.lookupHead(k.hash64(), key, n);
      if (head == null && small != null) {
        byte[] v = small.get(key);
        head = v == null ? null : Arrays.copyOf(v, Math.min(n, v.length));
      }
      return head;
    } finally {
      calls.exit();
    }
  }

  /**
   * {@inheritDoc} First forbids the promotion of every flash read begun before it ({@link #promote}) and
   * every small-engine read until it ends ({@link SmallTier#beginClear}): a put over a small-engine
   * version leaves that version in place behind a flagged DRAM entry, so once DRAM is emptied the older
   * version must not be served nor promoted while the small engine is not yet emptied. Clears run one at a
   * time (the count's parity says whether one runs).
   */
  @Override
  public void clear() {
    calls.enter();
    try {
      synchronized (clearLock) {
        clearLocked();
      }
    } finally {
      calls.exit();
    }
  }

  private void clearLocked() {
    if (small != null) {
      small.beginClear();
    }
    clearsBegun.incrementAndGet(); // odd while it runs
    try {
      dram.clear();
      flash.clear(deadline());
    } finally {
      try {
        if (small != null) {
          small.clear();
        }
      } finally {
        clearsBegun.incrementAndGet(); // even again, and another count than any read overlapping it took
        if (small != null) {
          small.endClear();
        }
      }
    }
  }

  private long deadline() {
    return System.nanoTime() + config.closeTimeout().toNanos();
  }

  /**
   * DRAM keys (weakly consistent), then the flash keys read by a {@link FlashKeyScan} after the write
   * buffers are flushed, skipping those already returned from DRAM, then the keys promoted from flash
   * to DRAM meanwhile ({@link KeysIterator}). A key evicted from DRAM during the DRAM pass is on flash
   * (the scan's first flush) before the flash pass reads, so no key held when the call starts is missed.
   */
  @Override
  public Iterator<byte[]> keys() {
    return keys(true);
  }

  @Override
  public Iterator<byte[]> keysOrFail() {
    return keys(false);
  }

  /** {@link #keys()}; {@code dropOnFailure} false: a log engine that cannot be scanned throws instead. */
  private Iterator<byte[]> keys(boolean dropOnFailure) {
    calls.ensureOpen();
    KeysIterator keys = new KeysIterator(dram.liveKeys(), () -> flashKeys(dropOnFailure), promotions);
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        calls.enter();
        try {
          return keys.hasNext();
        } finally {
          calls.exit();
        }
      }

      @Override
      public byte[] next() {
        calls.enter();
        try {
          return keys.next();
        } finally {
          calls.exit();
        }
      }
    };
  }

  /**
   * The flash keys: the log engine's, then the small engine's ({@link SmallKeyScan}, which starts after
   * the DRAM pass and the log engine's, so a key evicted into it before then is in it). Never partial: when
   * the tier is degraded, or a scan cannot finish (a read error, a flush that did not happen), that
   * engine is emptied instead ({@link FlashTier#dropAll}, {@link SmallTier#dropAll}), so every one of its
   * keys is then invalidated.
   */
  private Iterator<byte[]> flashKeys(boolean dropOnFailure) {
    Iterator<byte[]> logKeys;
    java.util.function.Consumer<String> onFailure = dropOnFailure ? flash::dropAll : reason -> {
      throw new IllegalStateException("the flash keys cannot be listed: " + reason);
    };
    if (flash.degraded()) {
      onFailure.accept("keys() while the flash tier is degraded");
      logKeys = java.util.Collections.emptyIterator();
    } else {
      logKeys = new FlashKeyScan(flash.index(), flash.table(), flash.device(), config.maxFlashEntryBytes(),
          sequence.get() + 1, () -> flash.barrier(true, deadline()), onFailure);
    }
    if (small == null) {
      return logKeys;
    }
    return new Iterator<>() { // the log engine's keys, then the small engine's (its scan starts there)
      private Iterator<byte[]> smallKeys;

      @Override
      public boolean hasNext() {
        if (logKeys.hasNext()) {
          return true;
        }
        if (smallKeys == null) {
          smallKeys = small.keys();
        }
        return smallKeys.hasNext();
      }

      @Override
      public byte[] next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException();
        }
        return logKeys.hasNext() ? logKeys.next() : smallKeys.next();
      }
    };
  }

  @Override
  public List<byte[]> hottestKeys(int n) {
    if (n <= 0) {
      return List.of();
    }
    return dram.hottest(n).stream().map(k -> k.bytes().clone()).toList();
  }

  @Override
  public long dramCapacity() {
    return dram.maximumBytes();
  }

  @Override
  public void setDramCapacity(long bytes) {
    if (bytes < CacheConfig.MIB) {
      throw new IllegalArgumentException("DRAM capacity must be >= 1 MiB, was " + bytes);
    }
    dram.setMaximumBytes(bytes);
  }

  /**
   * Dirty DRAM eviction: admission, then the writer's queue (waiting up to {@code cascadeWait} for room).
   * Runs inside Caffeine's eviction, on the thread whose DRAM write caused it.
   */
  /** Inside the atomic removal of {@code key} from DRAM (Caffeine's eviction listener). */
  private void onDramEviction(ByteKey key, DramEntry e, boolean expired) {
    if (expired || !e.dirty()) {
      invalidateSmall(key, e); // a flagged entry is dirty and has no TTL: never, but cheap to keep true
    }
    if (expired) {
      removals.notify(key.bytes(), e.value(), RemovalCause.EXPIRED);
    } else if (!e.dirty()) { // a promoted copy: gone unless flash still holds the entry
      if (removals.active() || evictionHook != null) {
        boolean onFlash = heldBelowDram(key, e); // promoted from it
        removals.notify(key.bytes(), e.value(), onFlash ? RemovalCause.EVICTED_FROM_DRAM : RemovalCause.EVICTED);
        if (!onFlash) {
          tellEvicted(key.bytes());
        }
      }
    } else {
      boolean onFlash = onDirtyEviction(key, e);
      removals.notify(key.bytes(), e.value(), onFlash ? RemovalCause.EVICTED_FROM_DRAM : RemovalCause.EVICTED);
      if (!onFlash) {
        tellEvicted(key.bytes(), true);
      }
    }
  }

  @Override
  public long dramBytesOf(long group) {
    GroupBytes g = flash.groups();
    return g == null ? -1 : g.dramBytes(group);
  }

  @Override
  public long flashBytesOf(long group) {
    GroupBytes g = flash.groups();
    return g == null ? -1 : g.flashBytes(group);
  }

  /** Tells the eviction hook, if any, on this thread; what it throws is logged, never the cache's failure. */
  private void tellEvicted(byte[] key) {
    tellEvicted(key, false);
  }

  /** As {@link #tellEvicted(byte[])}; {@code refused}: a dirty DRAM eviction flash did not take. */
  private void tellEvicted(byte[] key, boolean refused) {
    if (evictionHook == null) {
      return;
    }
    try {
      if (refused) {
        evictionHook.refused(key);
      } else {
        evictionHook.evicted(key);
      }
    } catch (RuntimeException ex) {
      LOG.warn("{}: the eviction hook threw; ignored", config.name(), ex);
    }
  }

  /**
   * How long a dirty eviction into the small engine may wait for room in its log's buffer: as the log
   * engine's ({@link FlashTier#offer}), {@code cascadeWait}, and on a reading thread at most one device
   * write ({@link FlashTier#READER_WAIT_MILLIS} ms).
   */
  private long smallEvictionDeadline() {
    long wait = config.cascadeWait().toNanos();
    return System.nanoTime() + (READING.get()[0] ? Math.min(wait, FlashTier.READER_WAIT_NANOS) : wait);
  }

  /** Offers a dirty eviction to flash; false if flash did not take it (counted by reason). */
  private boolean onDirtyEviction(ByteKey key, DramEntry e) {
    int bytes = EntryFormat.entryBytes(key.bytes().length, e.value().length);
    if (toSmall(key, e)) {
      boolean stored = config.admission().accept(key.hash64(), bytes)
          && small.put(key.bytes(), key.hash64(), e.value(), e.sequence(), e.expiryMillis(), smallEvictionDeadline());
      if (!stored) {
        invalidateSmall(key, e);
      }
      return stored;
    }
    invalidateSmall(key, e); // before the log engine may hold (or drop) the newer version
    if (bytes > config.maxFlashEntryBytes()) {
      counters.tooLargeRejected.increment();
      return false;
    }
    if (!flash.acceptsWrites()) {
      counters.degradedRejected.increment();
      return false;
    }
    if (!config.admission().accept(key.hash64(), bytes)) {
      return false;
    }
    return flash.offer(key, e.value(), e.sequence(), e.expiryMillis(), e.lifetimeClass(), READING.get()[0]);
  }

  /** Whether the entry goes to the small-object engine: it is on and the entry fits. */
  private boolean toSmall(ByteKey key, DramEntry e) {
    return small != null && config.isSmallObject(key.bytes().length, e.value().length);
  }

  @Override
  public io.hybridcache.core.device.DeviceCounters.Snapshot deviceCounters() {
    io.hybridcache.core.device.DeviceCounters.Snapshot log = flash.device().counters().snapshot();
    if (small == null || small.device() == flash.device()) {
      return log;
    }
    io.hybridcache.core.device.DeviceCounters.Snapshot s = small.device().counters().snapshot();
    return new io.hybridcache.core.device.DeviceCounters.Snapshot(log.reads() + s.reads(), log.writes() + s.writes(),
        log.bytesRead() + s.bytesRead(), log.bytesWritten() + s.bytesWritten(), log.discards() + s.discards(),
        log.discardsIgnored() + s.discardsIgnored());
  }

  @Override
  public CacheStats stats() {
    CacheStats last = finalStats;
    return last != null ? last : snapshot();
  }

  private CacheStats snapshot() {
    int free = flash.table().freeSlots();
    int active = 0;
    int sealed = 0;
    long live = 0;
    for (Segment s : flash.table().segments()) {
      if (s.state() == Segment.State.ACTIVE) {
        active++;
      } else {
        sealed++;
      }
      live += s.liveBytes();
    }
    Counters c = counters;
    io.hybridcache.core.api.SmallObjectStats so = small == null ? io.hybridcache.core.api.SmallObjectStats.OFF
        : small.stats();
    // cache-wide figures: the log engine's counters plus the small engine's part (each small read is one page)
    long dramHits = c.dramHits.sum();
    long flashHits = c.flashHits.sum();
    long misses = c.misses.sum();
    return new CacheStats(dramHits + flashHits + misses, dramHits, flashHits, misses,
        c.flashLookups.sum(), c.deviceReads.sum() + so.deviceReads(), c.bufferHits.sum() + so.bufferHits(),
        c.corruptReads.sum(),
        c.puts.sum(), c.removes.sum(), dram.entries(), dram.weightedBytes(), flash.index().size() + so.entries(),
        live, flash.index().memoryBytes() + so.dramBytes(), c.bytesAdmitted.sum() + so.bytesAdmitted(),
        c.flushBytesWritten.sum() + so.bytesWritten(),
        c.reclaimBytesWritten.sum(), c.reinserted.sum(), c.reclaimEvicted.sum() + so.evicted(),
        c.reclaimedSegments.sum(),
        config.admission().rejected(), c.queueRejected.sum() + (small == null ? 0 : small.refusals()),
        c.cascadeWaits.sum() + so.cascadeWaits(), c.tooLargeRejected.sum(),
        c.degradedRejected.sum(), free, active, sealed, c.ioErrors.sum(), flash.degraded(),
        c.writerFaults.sum(), c.segmentsDropped.sum(), c.entriesDropped.sum() + so.objectsLost(),
        c.indexFullRejected.sum(),
        c.flashIndexDrops.sum(), c.interruptedReads.sum(), flash.lastFault(), c.devicePagesRead.sum() + so.deviceReads(),
        c.checkpoints.sum(), c.checkpointFailures.sum(), flash.nextUncleanOpenCold(),
        c.outOfMemoryMisses.sum() + so.outOfMemoryMisses(), c.groupCapRejected.sum(), so);
  }

  @Override
  public CacheConfig config() {
    return config;
  }

  @Override
  public PlacementStats placement() {
    return flash.placement().stats();
  }

  /** Waits until every write queued so far is on flash and indexed (tests and benchmarks). */
  void awaitFlashWrites() {
    flash.barrier(true, deadline());
  }

  /** Pushes every dirty DRAM entry to flash now, keeping them in DRAM as clean copies. */
  void writeBack() {
    writeBack(deadline(), true);
  }

  /** {@inheritDoc} */
  @Override
  public void flush() {
    calls.enter();
    try {
      writeBack();
    } finally {
      calls.exit();
    }
  }

  /**
   * As {@link #writeBack()}, giving up at {@code deadlineNanos} (a writer that makes no progress). An entry
   * flash refuses stays dirty (a refusal by the index is not a store); the others are still offered unless
   * no write can succeed any more (the deadline passed, the tier is degraded, the thread interrupted).
   */
  private void writeBack(long deadlineNanos, boolean includeSmall) {
    boolean[] stalled = {false};
    for (Map.Entry<ByteKey, DramEntry> en : dram.map().entrySet()) {
      if (stalled[0]) {
        break;
      }
      DramEntry e = en.getValue();
      // a clean (promoted) copy is written too once flash no longer holds the entry: reclaim drops an entry DRAM
      // holds clean instead of reinserting it, and a warm open would otherwise lose the hottest entries
      if (!e.dirty() && heldBelowDram(en.getKey(), e)
          || deadGroup(en.getKey())
          || EntryFormat.entryBytes(en.getKey().bytes().length, e.value().length) > config.maxFlashEntryBytes()
          || toSmall(en.getKey(), e) && (!includeSmall || System.nanoTime() - deadlineNanos >= 0)) {
        continue;
      }
      DramEntry clean = new DramEntry(e.value(), false, e.sequence(), e.expiryMillis(), e.lifetimeClass());
      dram.computeIfPresent(en.getKey(), (k, cur) -> {
        if (cur != e) {
          return cur;
        }
        if (!toSmall(k, e)) {
          invalidateSmall(k, e); // before the log engine holds the newer version
        }
        if (toSmall(k, e) ? !small.put(k.bytes(), k.hash64(), e.value(), e.sequence(), e.expiryMillis(), deadlineNanos)
            : !flash.put(k, e.value(), e.sequence(), e.expiryMillis(), e.lifetimeClass(), deadlineNanos)) {
          stalled[0] = System.nanoTime() - deadlineNanos >= 0 || !flash.acceptsWrites()
              || Thread.currentThread().isInterrupted();
          return cur;
        }
        return clean;
      });
    }
    flash.barrier(true, deadlineNanos);
  }

  /**
   * Whether {@code key}'s group may hold no flash at all (a flash cap of 0: a cleared JCache cache's earlier epoch,
   * whose entries no read can reach): a write-back skips it.
   */
  private boolean deadGroup(ByteKey key) {
    GroupBytes g = flash.groups();
    return g != null && !g.flashRoomAllowed(g.groupOf(key.bytes()));
  }

  /** Whether flash (the log's index, or the small engine for a small entry) still holds a clean DRAM entry's key. */
  private boolean heldBelowDram(ByteKey key, DramEntry e) {
    return toSmall(key, e) || flash.address(key.hash64()) != IndexEntry.NONE;
  }

  /** Writes every dirty entry to flash and empties DRAM, so the next reads are flash reads (tests). */
  void writeBackAndDropDram() {
    writeBack();
    dram.clear();
  }

  /** The sequence counter: the last sequence handed to a put (tests). */
  long sequence() {
    return sequence.get();
  }

  /** True once close has started (tests). */
  boolean closing() {
    return calls.closed();
  }

  DramTier dramTier() {
    return dram;
  }

  FlashTier flashTier() {
    return flash;
  }

  /** The live counters (tests: read them while an eviction waits, when {@link #stats()} would block). */
  Counters counters() {
    return counters;
  }

  /**
   * Closes in bounded time ({@link CacheConfig#closeTimeout()} in all): later calls throw
   * {@link IllegalStateException}; calls in flight are waited for; dirty entries are written back, the
   * writer stopped, the tier persisted. What does not finish in time goes on in the background: if calls
   * or the writer did not end in time, every file stays open under them (never closed under a reader) and
   * the directory locked until they end, and no clean marker is written: the next open recovers.
   */
  @Override
  public void close() {
    long deadline = deadline();
    if (!calls.close(deadline)) {
      return;
    }
    boolean stopped = false;
    if (small != null) {
      small.closing(deadline); // its removes (of flagged entries' older versions) wait no longer than this close
    }
    try {
      if (!flash.degraded()) {
        writeBack(deadline, true); // small entries into the small engine's log: it is saved for a warm open
      }
    } catch (RuntimeException e) {
      LOG.warn("{}: write-back at close failed: {}", config.name(), e.toString());
    } finally {
      stopped = flash.stop(deadline);
      finalStats = snapshot(); // includes what close wrote back
      // on the close thread, before the directory lock is released: the small engine closes once no call
      // is in flight, even when that is after this close returned
      flash.close(stopped && calls.drained(), deadline, () -> {
        calls.awaitDrained();
        closeSmall(deadline);
      });
      if (mbean != null) {
        mbean.unregister();
      }
      LOG.info("{}: closed", config.name());
    }
  }

  /**
   * Closes the small engine, saved for a warm open when the deadline has not passed. A DRAM entry still
   * dirty and flagged (its write-back failed) leaves an older version there: removed first, so the saved
   * state never serves it; if those removals reach the deadline, the engine is not saved (cold next time).
   * Runs on the log engine's close thread once no call is in flight, so its reclaimer has ended before
   * the directory lock is released ({@link SmallTier#close(boolean, long)}).
   */
  private void closeSmall(long deadline) {
    if (small != null) {
      try {
        boolean save = System.nanoTime() - deadline < 0;
        for (Map.Entry<ByteKey, DramEntry> en : dram.map().entrySet()) {
          if (!save) {
            break; // not saved: the next open is cold and nothing older can come back; close stays bounded
          }
          if (en.getValue().dirty() && en.getValue().smallStale()) {
            small.invalidate(en.getKey().bytes(), en.getKey().hash64());
            save = System.nanoTime() - deadline < 0;
          }
        }
        small.close(save, deadline);
      } catch (IOException | RuntimeException e) {
        LOG.warn("{}: closing the small-object engine failed: {}", config.name(), e.toString());
      }
    }
  }

  /** Test seam: {@code probe} runs after a flash engine served a lookup, before its promotion to DRAM. */
  void afterFlashRead(java.util.function.BiConsumer<String, byte[]> probe) {
    afterFlashRead = probe;
  }

  SmallTier smallTier() {
    return small;
  }

  private static void checkKey(byte[] key) {
    Objects.requireNonNull(key, "key");
    if (key.length == 0 || key.length > EntryFormat.MAX_KEY_BYTES) {
      throw new IllegalArgumentException("key length must be 1.." + EntryFormat.MAX_KEY_BYTES + ", was " + key.length);
    }
  }
}
