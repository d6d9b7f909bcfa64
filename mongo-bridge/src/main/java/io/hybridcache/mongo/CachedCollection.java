package io.hybridcache.mongo;

import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.in;

import com.mongodb.MongoException;
import com.mongodb.MongoSocketException;
import com.mongodb.MongoTimeoutException;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.model.FindOneAndReplaceOptions;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.LifetimeClass;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDocument;
import org.bson.BsonValue;
import org.bson.Document;
import org.bson.RawBsonDocument;
import org.bson.codecs.Codec;
import org.bson.codecs.EncoderContext;
import org.bson.conversions.Bson;
import org.bson.io.BasicOutputBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A MongoDB collection behind the hybrid cache, addressed by {@code _id}; thread-safe: any number of
 * threads may read and write; see {@link FillGuard} for why a read racing a write never leaves the
 * cache older than MongoDB after the write returned.
 *
 * <ul>
 *   <li>{@link #findById}: DRAM, then flash, then MongoDB; a document read from MongoDB fills the cache.
 *   <li>{@link #findByIds}: the same for many ids, all misses in one {@code $in} query.
 *   <li>{@link #insertOne}, {@link #replaceOne}, {@link #updateOne}, {@link #deleteOne}: MongoDB first;
 *       then replace and update store the document MongoDB now holds (find-and-modify returns the
 *       server's own post-image), while insert, delete, a replace or update that matched nothing, an
 *       overlapping write or a failure invalidate the key.
 *   <li>An optional TTL per collection; {@link #invalidate} for writes that bypassed the bridge.
 * </ul>
 *
 * <p>Bad input and failures: a document without {@code _id} is refused ({@link IllegalArgumentException})
 * before anything is sent, so is one over MongoDB's 16 MiB ({@value BsonBytes#MAX_DOCUMENT_BYTES}
 * bytes) document cap; documents whose cache value exceeds {@link #maxCachedBytes} are served but never
 * cached. If MongoDB is unreachable, operations that need it throw {@link MongoUnavailableException}
 * (the driver's error as cause) while cached documents keep being served; a write that failed
 * invalidates its key, since it may have been applied. A cache value that fails to decode is dropped
 * and read again from MongoDB, never returned.
 *
 * <p>Reads go to the collection as configured: use the primary (the default read preference) for
 * the guarantee above. Numeric ids are canonical ({@code 1}, {@code 1L} and {@code 1.0} are one key,
 * as in MongoDB's equality); ids of other types must match exactly.
 */
public final class CachedCollection<T> {
  private static final Logger LOG = LoggerFactory.getLogger(CachedCollection.class);
  private static final EncoderContext COLLECTIBLE = EncoderContext.builder().isEncodingCollectibleDocument(true).build();

  private final HybridCache cache;
  private final FillGuard guard;
  private final MongoCollection<T> collection;
  private final MongoCollection<RawBsonDocument> raw;
  private final Codec<T> codec;
  private final String namespace;
  private final long collectionId;
  private final LifetimeClass lifetime;
  private final DocumentCodec documents;
  private final Duration ttl;
  private final int maxCachedBytes;
  private final int maxEntryBytes;

  private final LongAdder reads = new LongAdder();
  private final LongAdder cacheHits = new LongAdder();
  private final LongAdder queries = new LongAdder();
  private final LongAdder fetched = new LongAdder();
  private final LongAdder fills = new LongAdder();
  private final LongAdder fillsSkipped = new LongAdder();
  private final LongAdder notCached = new LongAdder();
  private final LongAdder writes = new LongAdder();
  private final LongAdder writesStored = new LongAdder();
  private final LongAdder invalidations = new LongAdder();
  private final LongAdder corruptValues = new LongAdder();
  private final LongAdder mongoErrors = new LongAdder();

  CachedCollection(MongoBridge bridge, MongoCollection<T> collection, long collectionId, LifetimeClass lifetime,
                   Duration ttl) {
    this.cache = bridge.cache();
    this.guard = bridge.guard();
    this.collection = collection;
    this.raw = collection.withDocumentClass(RawBsonDocument.class);
    this.codec = collection.getCodecRegistry().get(collection.getDocumentClass());
    this.namespace = collection.getNamespace().getFullName();
    this.collectionId = collectionId;
    this.lifetime = lifetime;
    this.documents = new DocumentCodec(bridge.catalog(), namespace);
    this.ttl = ttl;
    this.maxEntryBytes = cache.config().maxFlashEntryBytes();
    int configured = bridge.config().maxCachedBytes();
    this.maxCachedBytes = configured > 0 ? configured : maxEntryBytes - CacheConfig.FLASH_ENTRY_HEADER_BYTES;
  }

  // ---- reads ----

  /** The document with {@code _id} equal to {@code id}, or null if MongoDB has none. */
  public T findById(Object id) {
    BsonValue idv = idValue(id);
    byte[] key = key(idv);
    reads.increment();
    T hit = cached(key);
    if (hit != null) {
      return hit;
    }
    long token = guard.readToken(key);
    queries.increment();
    RawBsonDocument doc = mongo("findById", idv, () -> raw.find(eq("_id", idv)).first());
    if (doc == null) {
      return null;
    }
    fetched.increment();
    fill(key, token, doc);
    return toUser(doc);
  }

  /**
   * The documents with these ids that exist, keyed by the ids as given, in their order; cache hits
   * are served from the cache and all misses are fetched with one {@code $in} query.
   */
  public Map<Object, T> findByIds(Collection<?> ids) {
    Objects.requireNonNull(ids, "ids");
    Map<Object, T> found = new LinkedHashMap<>(ids.size() * 2);
    Map<ByteBuffer, List<Object>> missing = new LinkedHashMap<>();
    Map<ByteBuffer, Long> tokens = new LinkedHashMap<>();
    List<BsonValue> missingIds = new ArrayList<>();
    for (Object id : ids) {
      BsonValue idv = idValue(id);
      byte[] key = key(idv);
      reads.increment();
      T hit = cached(key);
      found.put(id, hit); // placeholder keeps the caller's order; absent ones are removed below
      if (hit == null) {
        ByteBuffer k = ByteBuffer.wrap(key);
        if (!missing.containsKey(k)) {
          tokens.put(k, guard.readToken(key));
          missingIds.add(idv);
        }
        missing.computeIfAbsent(k, x -> new ArrayList<>()).add(id);
      }
    }
    if (!missingIds.isEmpty()) {
      queries.increment();
      List<RawBsonDocument> docs = mongo("findByIds", missingIds.size() + " ids",
          () -> raw.find(in("_id", missingIds)).into(new ArrayList<>()));
      for (RawBsonDocument doc : docs) {
        byte[] key = key(doc.get("_id"));
        ByteBuffer k = ByteBuffer.wrap(key);
        List<Object> asked = missing.get(k);
        if (asked == null) {
          continue; // not one we asked for (cannot happen with $in on _id)
        }
        fetched.increment();
        fill(key, tokens.get(k), doc);
        T value = toUser(doc);
        for (Object id : asked) {
          found.put(id, value);
        }
      }
    }
    found.values().removeIf(Objects::isNull);
    return found;
  }

  /** The cached document for {@code key}, or null (a miss, or a value that did not decode: dropped). */
  private T cached(byte[] key) {
    byte[] v = cache.get(key);
    if (v == null) {
      return null;
    }
    try {
      T doc = toUser(new RawBsonDocument(documents.decode(v)));
      cacheHits.increment();
      return doc;
    } catch (IllegalArgumentException e) { // RowFormatException, UnknownSchemaException
      corruptValues.increment();
      LOG.warn("{}: dropping a cache value that does not decode ({}); reading MongoDB instead", namespace,
          e.getMessage());
      invalidateKey(key);
      return null;
    }
  }

  private void fill(byte[] key, long token, RawBsonDocument doc) {
    byte[] value = cacheValue(bytes(doc), key);
    if (value == null) {
      return;
    }
    if (guard.fill(key, token, () -> store(key, value))) {
      fills.increment();
    } else {
      fillsSkipped.increment();
    }
  }

  // ---- writes ----

  /**
   * Inserts {@code document} into MongoDB, then invalidates its key: the next read fills the cache
   * with the server's own bytes, since a server may store a document differently from how it was sent
   * (mongo-java-server turns {@code undefined} into {@code null}). It must have an {@code _id} (the
   * bridge caches by it; the driver would otherwise invent one the caller never sees).
   *
   * @throws IllegalArgumentException no {@code _id}, or larger than 16 MiB
   */
  public void insertOne(T document) {
    byte[] bson = checkedBson(document, "insertOne");
    BsonValue id = new RawBsonDocument(bson).get("_id");
    if (id == null) {
      throw new IllegalArgumentException(namespace + ": insertOne of a document without _id: the bridge caches by _id;"
          + " give it one (e.g. new ObjectId())");
    }
    RawBsonDocument doc = new RawBsonDocument(bson);
    write("insertOne", key(id), id, () -> {
      raw.insertOne(doc);
      return null;
    });
  }

  /**
   * Replaces the document with {@code _id} {@code id} by {@code replacement} (whose {@code _id}, if
   * any, must equal {@code id}); returns the document MongoDB now holds, or null if none matched.
   */
  public T replaceOne(Object id, T replacement) {
    BsonValue idv = idValue(id);
    byte[] key = key(idv);
    byte[] bson = checkedBson(replacement, "replaceOne");
    BsonValue own = new RawBsonDocument(bson).get("_id");
    if (own != null && !java.util.Arrays.equals(key(own), key)) {
      throw new IllegalArgumentException(namespace + ": replaceOne(" + idv + ") with a replacement whose _id is " + own);
    }
    RawBsonDocument doc = new RawBsonDocument(bson);
    return toUserOrNull(write("replaceOne", key, idv, () -> bytesOrNull(raw.findOneAndReplace(eq("_id", idv), doc,
        new FindOneAndReplaceOptions().returnDocument(ReturnDocument.AFTER)))));
  }

  /**
   * Applies {@code update} (update operators, e.g. {@code Updates.set("a", 1)}) to the document with
   * {@code _id} {@code id}; returns it as MongoDB now holds it, or null if none matched.
   */
  public T updateOne(Object id, Bson update) {
    Objects.requireNonNull(update, "update");
    BsonValue idv = idValue(id);
    return toUserOrNull(write("updateOne", key(idv), idv, () -> bytesOrNull(raw.findOneAndUpdate(eq("_id", idv), update,
        new FindOneAndUpdateOptions().returnDocument(ReturnDocument.AFTER)))));
  }

  /** Deletes the document with {@code _id} {@code id} from MongoDB, then from the cache; true if one was deleted. */
  public boolean deleteOne(Object id) {
    BsonValue idv = idValue(id);
    boolean[] deleted = {false};
    write("deleteOne", key(idv), idv, () -> {
      deleted[0] = raw.deleteOne(eq("_id", idv)).getDeletedCount() > 0;
      return null;
    });
    return deleted[0];
  }

  /**
   * Drops {@code id} from the cache (after a write that bypassed the bridge); reads in flight will not
   * fill it with what they fetched before.
   */
  public void invalidate(Object id) {
    byte[] key = key(idValue(id));
    writes.increment();
    invalidations.increment();
    invalidateKey(key);
  }

  /** Removes {@code key} as a write would: reads in flight do not fill it afterwards. */
  private void invalidateKey(byte[] key) {
    guard.endWrite(key, guard.beginWrite(key), null, () -> cache.remove(key));
  }

  /**
   * Runs {@code mongoWrite} (which returns the document's BSON after the write, or null if there is
   * none) between the guard's begin and end, then stores or invalidates. Returns what it returned.
   */
  private byte[] write(String op, byte[] key, Object id, Supplier<byte[]> mongoWrite) {
    writes.increment();
    long token = guard.beginWrite(key);
    byte[] after = null;
    byte[] value = null;
    try {
      after = mongo(op, id, mongoWrite);
      value = after == null ? null : cacheValue(after, key);
      return after;
    } finally {
      byte[] v = value;
      boolean stored = guard.endWrite(key, token, v == null ? null : () -> store(key, v), () -> cache.remove(key));
      (stored ? writesStored : invalidations).increment();
    }
  }

  // ---- cache entries ----

  /**
   * Puts {@code value} for {@code key} with the collection's TTL, in the collection's own lifetime
   * class: its segments (and SSD stream) hold only this collection's documents.
   */
  private void store(byte[] key, byte[] value) {
    if (ttl == null) {
      cache.put(key, value, lifetime);
    } else {
      cache.put(key, value, ttl, lifetime);
    }
  }

  /**
   * The cache value of {@code bson}, or null (counted) if too large to cache or if it cannot be
   * encoded now (e.g. the catalogue cannot make a new schema durable): MongoDB already answered, so
   * that is a document not cached, not a failed operation.
   */
  private byte[] cacheValue(byte[] bson, byte[] key) {
    byte[] value;
    try {
      value = documents.encode(bson);
    } catch (RuntimeException e) {
      notCached.increment();
      LOG.warn("{}: not caching a document: {}", namespace, e.toString());
      return null;
    }
    if (value.length > maxCachedBytes || CacheConfig.FLASH_ENTRY_HEADER_BYTES + key.length + value.length > maxEntryBytes) {
      notCached.increment();
      return null;
    }
    return value;
  }

  private byte[] key(BsonValue id) {
    return IdKeys.key(collectionId, id);
  }

  // ---- conversions ----

  private BsonValue idValue(Object id) {
    if (id == null) {
      throw new IllegalArgumentException(namespace + ": _id is null");
    }
    if (id instanceof BsonValue v) {
      return v;
    }
    return new Document("_id", id).toBsonDocument(BsonDocument.class, collection.getCodecRegistry()).get("_id");
  }

  /** The BSON of {@code doc} as MongoDB stores it ({@code _id} first); refuses documents over 16 MiB. */
  private byte[] checkedBson(T doc, String op) {
    Objects.requireNonNull(doc, "document");
    byte[] bson;
    if (doc instanceof RawBsonDocument r) {
      bson = bytes(r);
    } else {
      BasicOutputBuffer buf = new BasicOutputBuffer();
      try (BsonBinaryWriter w = new BsonBinaryWriter(buf)) {
        codec.encode(w, doc, COLLECTIBLE);
      }
      bson = buf.toByteArray();
    }
    if (bson.length > BsonBytes.MAX_DOCUMENT_BYTES) {
      throw new IllegalArgumentException(namespace + ": " + op + " of a " + bson.length + "-byte document: MongoDB's cap is "
          + BsonBytes.MAX_DOCUMENT_BYTES + " bytes (16 MiB); nothing was sent");
    }
    return BsonBytes.idFirst(bson);
  }

  private static byte[] bytes(RawBsonDocument doc) {
    ByteBuffer bb = doc.getByteBuffer().asNIO();
    byte[] b = new byte[bb.remaining()];
    bb.get(b);
    return b;
  }

  private static byte[] bytesOrNull(RawBsonDocument doc) {
    return doc == null ? null : bytes(doc);
  }

  @SuppressWarnings("unchecked")
  private T toUser(RawBsonDocument doc) {
    return collection.getDocumentClass() == RawBsonDocument.class ? (T) doc : doc.decode(codec);
  }

  private T toUserOrNull(byte[] bson) {
    return bson == null ? null : toUser(new RawBsonDocument(bson));
  }

  /** Runs a MongoDB operation; an unreachable server becomes {@link MongoUnavailableException}. */
  private <R> R mongo(String op, Object id, Supplier<R> call) {
    try {
      return call.get();
    } catch (MongoTimeoutException | MongoSocketException e) {
      mongoErrors.increment();
      throw new MongoUnavailableException(namespace + ": " + op + "(" + id + ") failed: MongoDB is unreachable ("
          + e.getMessage() + "); cached documents are still served", e);
    } catch (MongoException | IllegalArgumentException e) {
      mongoErrors.increment();
      throw e;
    }
  }

  // ---- accessors ----

  public String namespace() {
    return namespace;
  }

  /** This collection's lifetime class (see {@link MongoBridge#lifetimeClass}). */
  public LifetimeClass lifetimeClass() {
    return lifetime;
  }

  /** The TTL of cached documents, or null for none. */
  public Duration ttl() {
    return ttl;
  }

  /** The largest cache value (catalogue-encoded document) this collection caches. */
  public int maxCachedBytes() {
    return maxCachedBytes;
  }

  /** The underlying collection (writes made through it bypass the cache: see {@link #invalidate}). */
  public MongoCollection<T> collection() {
    return collection;
  }

  /** The codec documents of this collection are stored with (for footprint figures and catalogue reclaim). */
  public DocumentCodec documentCodec() {
    return documents;
  }

  public CollectionStats stats() {
    return new CollectionStats(reads.sum(), cacheHits.sum(), queries.sum(), fetched.sum(), fills.sum(),
        fillsSkipped.sum(), notCached.sum(), writes.sum(), writesStored.sum(), invalidations.sum(),
        corruptValues.sum(), mongoErrors.sum());
  }

  @Override
  public String toString() {
    return "CachedCollection[" + namespace + ", " + lifetime + (ttl == null ? "" : ", ttl " + ttl) + "]";
  }
}
