package io.hybridcache.bench.jmh;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCache;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.Caching;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.spi.CachingProvider;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of the standard doorway: {@code get} (a hit) and {@code put} (an overwrite) of {@code String}
 * keys and values through {@code javax.cache.Cache} (JSR-107) of this project's provider, against the same
 * engine called directly, and against Caffeine's and Ehcache 3's JCache providers, all at a size that fits in
 * DRAM, average time per call (single-threaded unless run with {@code -t N}).
 *
 * <p>Workload: {@code entries} (default 10,000) keys {@code user0..} with values of 100 ASCII characters
 * (the key, a colon, then fixed-seed random letters), loaded at set-up; each call takes the next key of a
 * random permutation of all keys, every thread from its own place ({@link Cursor}). {@code get} checks that the
 * value it got is this key's (it starts with the key and a colon, and has 100 characters; a full comparison of
 * every key runs after each iteration) and throws otherwise; {@code put} writes the key's own value again, so
 * the cache's content never changes. {@code provider}:
 * <ul>
 *   <li>{@code HYBRIDCACHE_DIRECT}, the baseline: {@link HybridCache#get}/{@link HybridCache#put} of the
 *       key's and value's UTF-8 bytes, encoded on each call and the value decoded on each get (the work a
 *       JCache codec does), no JCache layer.
 *   <li>{@code HYBRIDCACHE_JCACHE}: {@code io.hybridcache.jcache.HybridCachingProvider}, one manager (one
 *       engine) whose cache is a namespace of it: the doorway adds the namespace prefix of the key, the expiry
 *       header of the value, and the JSR-107 bookkeeping.
 *   <li>{@code CAFFEINE_JCACHE}: {@code com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider}.
 *   <li>{@code EHCACHE_JCACHE}: {@code org.ehcache.jsr107.EhcacheCachingProvider} (Ehcache 3, heap).
 * </ul>
 * Each JCache provider is chosen by class name (all three are on the class path) and its cache is created with
 * the same standard {@code MutableConfiguration<String, String>}: store-by-value (the JSR-107 default, set
 * explicitly), eternal, no statistics, no management, no listeners, no loader or writer. Both hybridcache
 * variants get the same engine settings: 64 MiB DRAM, 64 MiB flash in 4 MiB segments, a 1 MiB write buffer,
 * files in a scratch directory under {@code target/jmh-data} ({@link Fixtures#DIR_PROPERTY}; deleted at
 * teardown). Read figures with what each provider does at its defaults:
 * <ul>
 *   <li>hybridcache (both variants) keeps bytes: a put encodes, a get decodes a new {@code String}; its DRAM
 *       tier is bounded (by weight) and the flash tier stays idle, since nothing is evicted.
 *   <li>Caffeine's and Ehcache's caches of a plain {@code MutableConfiguration} are unbounded on-heap maps,
 *       and under store-by-value both keep a {@code String} by reference (an immutable type: no copy), so
 *       their get returns the stored instance. Set-up prints which providers did.
 * </ul>
 * Set-up fails unless every key reads back its value; for the hybridcache variants after each iteration it
 * also fails unless every get of the iteration was a DRAM hit and nothing was evicted towards flash, and the
 * engine's counters are printed at the end.
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar jmh JCacheBenchmark} (3 forks by default, so
 * JMH's error and the per-fork figures give a spread; {@code -f 5 -wi 3 -i 5 -w 1s -r 1s} for a tighter one,
 * {@code -f 1 -wi 2 -i 3} for a quick look; add {@code -t 2} for two threads, {@code -p provider=HYBRIDCACHE_DIRECT,HYBRIDCACHE_JCACHE} for the doorway alone).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(3)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class JCacheBenchmark {
  static final int VALUE_CHARS = 100;
  private static final long DRAM_BYTES = 64 * CacheConfig.MIB;
  private static final long FLASH_BYTES = 64 * CacheConfig.MIB;
  private static final long SEGMENT_BYTES = 4 * CacheConfig.MIB;
  private static final long WRITE_BUFFER_BYTES = CacheConfig.MIB;
  private static final String CACHE_NAME = "jmh";

  /** Who serves the calls (see the class comment). */
  public enum Provider {
    HYBRIDCACHE_DIRECT(null),
    HYBRIDCACHE_JCACHE("io.hybridcache.jcache.HybridCachingProvider"),
    CAFFEINE_JCACHE("com.github.benmanes.caffeine.jcache.spi.CaffeineCachingProvider"),
    EHCACHE_JCACHE("org.ehcache.jsr107.EhcacheCachingProvider");

    /** The JSR-107 provider's class name; null for the direct calls. */
    final String className;

    Provider(String className) {
      this.className = className;
    }

    boolean hybrid() {
      return this == HYBRIDCACHE_DIRECT || this == HYBRIDCACHE_JCACHE;
    }
  }

  @Param({"HYBRIDCACHE_DIRECT", "HYBRIDCACHE_JCACHE", "CAFFEINE_JCACHE", "EHCACHE_JCACHE"})
  public Provider provider;

  @Param("10000")
  public int entries;

  private Path dir;
  private CacheManager manager;
  private HybridCache engine; // the hybridcache variants' engine (for its counters); null for the peers
  private Store store;
  private String[] keys; // in the order the calls visit them
  private String[] prefixes; // key + ":": how every value of that key starts
  private String[] values;
  private CacheStats last;

  /** The calls under test: a {@code String} get and put. */
  interface Store {
    String get(String key);

    void put(String key, String value);
  }

  /** The engine's byte[] API, with the UTF-8 encoding and decoding a JCache codec would do. */
  static final class DirectStore implements Store {
    private final HybridCache cache;

    DirectStore(HybridCache cache) {
      this.cache = cache;
    }

    @Override
    public String get(String key) {
      byte[] v = cache.get(key.getBytes(StandardCharsets.UTF_8));
      return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }

    @Override
    public void put(String key, String value) {
      cache.put(key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** A JSR-107 cache. */
  static final class JCacheStore implements Store {
    private final Cache<String, String> cache;

    JCacheStore(Cache<String, String> cache) {
      this.cache = cache;
    }

    @Override
    public String get(String key) {
      return cache.get(key);
    }

    @Override
    public void put(String key, String value) {
      cache.put(key, value);
    }
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    Fixtures.setUpOrTearDown(this::open, this::tearDown);
  }

  private void open() throws IOException {
    if (provider.hybrid()) {
      dir = Fixtures.scratchDir("jcache-" + provider.name().toLowerCase());
    }
    if (provider == Provider.HYBRIDCACHE_DIRECT) {
      engine = HybridCache.open(CacheConfig.builder(dir)
          .dramBytes(DRAM_BYTES)
          .flashBytes(FLASH_BYTES)
          .segmentBytes(SEGMENT_BYTES)
          .writeBufferBytes(WRITE_BUFFER_BYTES)
          .jmx(false)
          .build());
      store = new DirectStore(engine);
    } else {
      CachingProvider jsr107 = Caching.getCachingProvider(provider.className);
      Properties settings = new Properties();
      URI uri = jsr107.getDefaultURI();
      if (provider == Provider.HYBRIDCACHE_JCACHE) {
        settings.setProperty("directory", dir.toString());
        settings.setProperty("dram-bytes", Long.toString(DRAM_BYTES));
        settings.setProperty("flash-bytes", Long.toString(FLASH_BYTES));
        settings.setProperty("segment-bytes", Long.toString(SEGMENT_BYTES));
        settings.setProperty("write-buffer-bytes", Long.toString(WRITE_BUFFER_BYTES));
        uri = URI.create("jmh-" + dir.getFileName()); // a manager of its own, on this directory
      }
      manager = jsr107.getCacheManager(uri, jsr107.getDefaultClassLoader(), settings);
      Cache<String, String> cache = manager.createCache(CACHE_NAME, new MutableConfiguration<String, String>()
          .setTypes(String.class, String.class)
          .setStoreByValue(true)
          .setStatisticsEnabled(false)
          .setManagementEnabled(false));
      if (provider == Provider.HYBRIDCACHE_JCACHE) {
        engine = manager.unwrap(HybridCache.class);
      }
      store = new JCacheStore(cache);
    }
    makeData();
    for (int i = 0; i < entries; i++) {
      store.put(keys[i], values[i]);
    }
    last = engine == null ? null : engine.stats();
    int sameInstance = checkEveryValue("setup");
    System.out.printf("%n%s: %d entries loaded; %d of %d gets returned the stored String instance%n",
        provider, entries, sameInstance, entries);
    checkDramOnly("setup");
  }

  private void makeData() {
    int[] order = Fixtures.permutation(entries);
    keys = new String[entries];
    prefixes = new String[entries];
    values = new String[entries];
    Random rnd = new Random(entries);
    for (int i = 0; i < entries; i++) {
      keys[i] = "user" + order[i];
      prefixes[i] = keys[i] + ":";
      StringBuilder v = new StringBuilder(VALUE_CHARS).append(prefixes[i]);
      while (v.length() < VALUE_CHARS) {
        v.append((char) ('a' + rnd.nextInt(26)));
      }
      values[i] = v.toString();
    }
  }

  /** Fails unless every key reads back its own value; returns how many gets returned the stored instance. */
  private int checkEveryValue(String when) {
    int same = 0;
    for (int i = 0; i < entries; i++) {
      String v = store.get(keys[i]);
      if (!values[i].equals(v)) {
        throw new IllegalStateException(when + ": " + provider + " returned " + v + " for " + keys[i]
            + ", expected " + values[i]);
      }
      same += v == values[i] ? 1 : 0;
    }
    return same;
  }

  /**
   * For the hybridcache variants: fails unless every get since the last check was a DRAM hit and nothing was
   * evicted towards flash (the data set is DRAM-resident, as the class comment says).
   */
  private void checkDramOnly(String when) {
    if (engine == null) {
      return;
    }
    CacheStats now = engine.stats();
    long gets = now.gets() - last.gets();
    long dramHits = now.dramHits() - last.dramHits();
    long admitted = now.bytesAdmitted() - last.bytesAdmitted();
    long refused = (now.queueRejected() - last.queueRejected()) + (now.admissionRejected() - last.admissionRejected())
        + (now.degradedRejected() - last.degradedRejected()) + (now.tooLargeRejected() - last.tooLargeRejected());
    last = now;
    if (dramHits != gets || admitted != 0 || refused != 0) {
      throw new IllegalStateException(String.format("%s: %s: %d of %d gets were DRAM hits, %d bytes were evicted"
          + " towards flash and %d evictions refused; expected every get a DRAM hit and no eviction: %s",
          when, provider, dramHits, gets, admitted, refused, Fixtures.describe(now)));
    }
  }

  /** Fails the iteration unless every key still reads back its value, and (hybridcache) all from DRAM. */
  @TearDown(Level.Iteration)
  public void checkIteration() {
    checkDramOnly("iteration");
    checkEveryValue("iteration");
    checkDramOnly("iteration check");
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    try {
      if (engine != null) {
        System.out.println(System.lineSeparator() + provider + ", since open: " + Fixtures.describe(engine.stats()));
      }
    } finally {
      Path d = dir;
      CacheManager m = manager;
      HybridCache e = engine;
      manager = null;
      engine = null;
      dir = null;
      Fixtures.closeAndDelete(m, e, d); // the manager closes its caches (and, for hybridcache, its engine)
    }
  }

  @Benchmark
  public String get(Cursor c) {
    int i = c.next(keys.length);
    String v = store.get(keys[i]);
    // cheap and the same for every provider (no equals, which is free on the stored instance)
    if (v == null || v.length() != VALUE_CHARS || !v.startsWith(prefixes[i])) {
      throw new IllegalStateException(provider + " returned " + v + " for " + keys[i]);
    }
    return v;
  }

  @Benchmark
  public void put(Cursor c) {
    int i = c.next(keys.length);
    store.put(keys[i], values[i]);
  }
}
