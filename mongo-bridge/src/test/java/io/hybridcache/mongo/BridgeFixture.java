package io.hybridcache.mongo;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.MongoTimeoutException;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.event.CommandListener;
import com.mongodb.event.CommandStartedEvent;
import com.mongodb.event.CommandSucceededEvent;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.catalog.CatalogConfig;
import io.hybridcache.core.catalog.SchemaCatalog;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.bson.Document;

/**
 * A MongoDB-wire server, a small cache with its catalogue and a bridge over them, for one test.
 * The server is an in-process mongo-java-server (memory backend) on a loopback port, or the server at
 * {@code -Dhybridcache.mongo.uri=...} (the FerretDB end-to-end run of {@code src/it/mongo-ferretdb.sh});
 * each fixture uses its own database and drops it at close; {@code dir} is the test's temporary directory. Commands are counted by name, and a test
 * can hook the calling thread after a command's reply ({@link #afterReply}). Not thread-safe to set up;
 * the bridge and counters are.
 */
final class BridgeFixture implements AutoCloseable {
  static final String URI_PROPERTY = "hybridcache.mongo.uri";

  final Path dir;
  final HybridCache cache;
  final SchemaCatalog catalog;
  final MongoBridge bridge;
  final MongoClient client;
  final MongoDatabase db;
  private MongoServer server; // null when external
  private MemoryBackend backend;
  private InetSocketAddress address;
  private final Map<String, AtomicLong> commands = new ConcurrentHashMap<>();
  /** Runs on the calling thread after a command's reply arrived, before the driver returns it. */
  volatile Consumer<CommandSucceededEvent> afterReply = e -> { };

  private BridgeFixture(Path dir, CacheConfig.Builder cache, BridgeConfig config, boolean guarded, boolean inProcess)
      throws IOException {
    this.dir = dir;
    String uri = inProcess ? null : System.getProperty(URI_PROPERTY);
    if (uri == null || uri.isBlank()) {
      backend = new MemoryBackend() {
        @Override
        public void close() {
          // keeps the data when the server stops, so a test can restart it over the same documents
        }
      };
      server = new MongoServer(backend);
      address = server.bind();
      uri = "mongodb://127.0.0.1:" + address.getPort();
    }
    CommandListener listener = new CommandListener() {
      @Override
      public void commandStarted(CommandStartedEvent e) {
        commands.computeIfAbsent(e.getCommandName(), k -> new AtomicLong()).incrementAndGet();
      }

      @Override
      public void commandSucceeded(CommandSucceededEvent e) {
        afterReply.accept(e);
      }
    };
    this.client = MongoClients.create(MongoClientSettings.builder()
        .applyConnectionString(new ConnectionString(uri))
        .applyToClusterSettings(b -> b.serverSelectionTimeout(inProcess || server != null ? 500 : 10_000,
            TimeUnit.MILLISECONDS))
        .applyToSocketSettings(b -> b.connectTimeout(2, TimeUnit.SECONDS).readTimeout(30, TimeUnit.SECONDS))
        .addCommandListener(listener)
        .build());
    this.db = client.getDatabase("hc_" + Long.toHexString(System.nanoTime()));
    this.cache = HybridCache.open(cache.build());
    this.catalog = SchemaCatalog.open(CatalogConfig.builder(dir.resolve(SchemaCatalog.SUBDIRECTORY)).directIo(false)
        .build());
    this.bridge = guarded ? MongoBridge.over(this.cache, catalog, config)
        : MongoBridge.unguardedForTests(this.cache, catalog, config);
  }

  /** 1 MiB DRAM over 16 x 64 KiB flash segments, heap index, buffered I/O. */
  static CacheConfig.Builder smallCache(Path dir) {
    return CacheConfig.builder(dir.resolve("cache"))
        .dramBytes(CacheConfig.MIB)
        .flashBytes(16L * 64 * 1024)
        .segmentBytes(64 * 1024)
        .writeBufferBytes(32 * 1024)
        .indexType(IndexType.HEAP)
        .directIo(false)
        .jmx(false);
  }

  /** The server from the system property if set, else in-process. */
  static BridgeFixture start(Path dir) throws IOException {
    return new BridgeFixture(dir, smallCache(dir), BridgeConfig.defaults(), true, false);
  }

  static BridgeFixture start(Path dir, CacheConfig.Builder cache, BridgeConfig config) throws IOException {
    return new BridgeFixture(dir, cache, config, true, false);
  }

  /** Always an in-process server (tests that stop and restart it). */
  static BridgeFixture inProcess(Path dir, BridgeConfig config) throws IOException {
    return new BridgeFixture(dir, smallCache(dir), config, true, true);
  }

  /** A bridge without the fill guard, to show the race the guard prevents. */
  static BridgeFixture unguarded(Path dir) throws IOException {
    return new BridgeFixture(dir, smallCache(dir), BridgeConfig.defaults(), false, true);
  }

  static boolean external() {
    String uri = System.getProperty(URI_PROPERTY);
    return uri != null && !uri.isBlank();
  }

  MongoCollection<Document> collection(String name) {
    return db.getCollection(name);
  }

  CachedCollection<Document> cached(String name) {
    return bridge.collection(collection(name));
  }

  long commands(String name) {
    AtomicLong n = commands.get(name);
    return n == null ? 0 : n.get();
  }

  /** Stops the in-process server (its data stays in the backend). */
  void stopServer() {
    server.shutdownNow();
  }

  /**
   * Starts the in-process server again on the same port over the same data, and returns once the
   * client reaches it: the driver's monitor reconnects in the background, so a busy machine may need
   * more than one server-selection timeout (500 ms) to see the server back.
   */
  void restartServer() {
    server = new MongoServer(backend);
    server.bind(address.getHostString(), address.getPort());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        db.runCommand(new Document("ping", 1));
        return;
      } catch (MongoTimeoutException e) {
        if (System.nanoTime() - deadline > 0) {
          throw new IllegalStateException("the restarted server at " + address + " is not reachable after 60 s", e);
        }
      }
    }
  }

  @Override
  public void close() throws IOException {
    try {
      try {
        db.drop();
      } catch (RuntimeException ignored) {
        // the server may be stopped by the test
      }
      client.close();
      if (server != null) {
        server.shutdownNow();
      }
    } finally {
      try {
        cache.close();
      } finally {
        catalog.close();
      }
    }
  }
}
