package io.hybridcache.mongo;

import com.mongodb.client.MongoCollection;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.catalog.CatalogConfig;
import io.hybridcache.core.catalog.SchemaCatalog;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The hybrid cache (DRAM over flash) in front of MongoDB collections; thread-safe. {@link #collection} wraps a
 * driver {@link MongoCollection} in a {@link CachedCollection} that reads DRAM, then flash, then
 * MongoDB, and writes MongoDB first, then the cache. Documents are stored catalogue-encoded
 * ({@link DocumentCodec}): field names in the schema catalogue, values with their exact BSON types.
 *
 * <p>Concurrency: collections may be made and used from any threads. All collections share one
 * cache, one catalogue and one fill guard; their keys are apart by a per-collection id.
 *
 * <p>Each collection is its own lifetime class ({@link #lifetimeClass}: id 16 + its catalogue id
 * modulo 65520, named {@code mongo:<db>.<collection>}), so placement can group collections by their
 * own update rates (seed: dynamic stream mapping, collections with different write lifetimes).
 *
 * <p>Ownership: {@link #open} opens the cache and its catalogue and {@link #close} closes both;
 * {@link #over} uses a cache and catalogue the caller owns and closes neither. MongoDB clients are
 * always the caller's.
 */
public final class MongoBridge implements AutoCloseable {
  /** The catalogue namespace that gives each collection ({@code db.collection}) its durable id. */
  public static final String COLLECTIONS_NAMESPACE = "hybridcache.mongo.collections";
  /** Lifetime class ids below this are the engine's built-in classes. */
  public static final int FIRST_LIFETIME_CLASS = 16;

  private final HybridCache cache;
  private final SchemaCatalog catalog;
  private final BridgeConfig config;
  private final FillGuard guard;
  private final boolean owns;

  private MongoBridge(HybridCache cache, SchemaCatalog catalog, BridgeConfig config, boolean owns, boolean guarded) {
    this.cache = Objects.requireNonNull(cache, "cache");
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.config = Objects.requireNonNull(config, "config");
    this.guard = new FillGuard(config.guardStripes(), guarded);
    this.owns = owns;
  }

  /** Opens a cache as {@code cacheConfig} says and its catalogue in its {@code catalog/} subdirectory. */
  public static MongoBridge open(CacheConfig cacheConfig, BridgeConfig config) {
    Objects.requireNonNull(config, "config");
    HybridCache cache = HybridCache.open(cacheConfig);
    try {
      SchemaCatalog catalog = SchemaCatalog.open(CatalogConfig.builder(
          cacheConfig.directory().resolve(SchemaCatalog.SUBDIRECTORY)).directIo(cacheConfig.directIo()).build());
      return new MongoBridge(cache, catalog, config, true, true);
    } catch (RuntimeException e) {
      cache.close();
      throw e;
    }
  }

  /** A bridge over a cache and catalogue the caller keeps and closes. */
  public static MongoBridge over(HybridCache cache, SchemaCatalog catalog, BridgeConfig config) {
    return new MongoBridge(cache, catalog, config, false, true);
  }

  /** As {@link #over}, without the fill guard: only for tests that show the race it prevents. */
  static MongoBridge unguardedForTests(HybridCache cache, SchemaCatalog catalog, BridgeConfig config) {
    return new MongoBridge(cache, catalog, config, false, false);
  }

  /** {@code collection} behind the cache, with the bridge's TTL. */
  public <T> CachedCollection<T> collection(MongoCollection<T> collection) {
    return collection(collection, config.ttl());
  }

  /** {@code collection} behind the cache, its documents expiring after {@code ttl} (null: never). */
  public <T> CachedCollection<T> collection(MongoCollection<T> collection, Duration ttl) {
    Objects.requireNonNull(collection, "collection");
    String ns = collection.getNamespace().getFullName();
    return new CachedCollection<>(this, collection, collectionId(ns), lifetimeClass(ns),
        BridgeConfig.checkTtl("ttl", ttl));
  }

  /** The durable id of the collection {@code namespace} ({@code db.collection}), the prefix of its keys. */
  long collectionId(String namespace) {
    long id = catalog.idFor(COLLECTIONS_NAMESPACE, List.of(namespace));
    if (id == SchemaCatalog.NO_ID) {
      throw new IllegalStateException("no id for collection " + namespace + ": the catalogue namespace "
          + COLLECTIONS_NAMESPACE + " is at its schema cap (" + catalog.config().capFor(COLLECTIONS_NAMESPACE)
          + "; raise it with CatalogConfig.namespaceCap)");
    }
    return id;
  }

  /**
   * The lifetime class of the collection {@code namespace}: stable across restarts (derived from its
   * durable id); two collections share one only if their catalogue ids differ by a multiple of 65520.
   */
  public LifetimeClass lifetimeClass(String namespace) {
    long id = collectionId(namespace);
    return new LifetimeClass(FIRST_LIFETIME_CLASS + (int) (id % (0x10000 - FIRST_LIFETIME_CLASS)), "mongo:" + namespace);
  }

  public HybridCache cache() {
    return cache;
  }

  public SchemaCatalog catalog() {
    return catalog;
  }

  public BridgeConfig config() {
    return config;
  }

  FillGuard guard() {
    return guard;
  }

  /** Closes the cache and catalogue if {@link #open} opened them; idempotent. */
  @Override
  public void close() {
    if (owns) {
      try {
        cache.close();
      } finally {
        catalog.close();
      }
    }
  }
}
