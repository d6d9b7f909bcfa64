package io.hybridcache.bench.mongo;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoDatabase;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.bson.Document;

/**
 * The MongoDB-wire server a YCSB run of the Mongo bindings talks to: the one at a given URI, or a
 * mongo-java-server (memory backend) this JVM starts on a loopback port for the run, so load and run
 * phases in their child JVMs see the same data. Names the server honestly (these are not MongoDB).
 * Not thread-safe: made and closed by the ycsb command's thread.
 */
public final class MongoTarget implements AutoCloseable {
  private final String uri;
  private final String serverName;
  private final MongoServer server; // null: external

  private MongoTarget(String uri, String serverName, MongoServer server) {
    this.uri = uri;
    this.serverName = serverName;
    this.server = server;
  }

  /** The server at {@code uri}, or an in-process mongo-java-server if {@code uri} is null. */
  public static MongoTarget open(String uri) {
    if (uri != null) {
      return new MongoTarget(uri, describe(uri), null);
    }
    MongoServer s = new MongoServer(new MemoryBackend());
    s.bind("127.0.0.1", 0);
    InetSocketAddress a = s.getLocalAddress();
    String u = "mongodb://127.0.0.1:" + a.getPort() + "/ycsb";
    return new MongoTarget(u, "mongo-java-server " + version("mongo-java-server")
        + " (in the harness JVM, memory backend; a MongoDB-wire server, not MongoDB)", s);
  }

  public String uri() {
    return uri;
  }

  public String serverName() {
    return serverName;
  }

  /** Drops {@code collection} in the URI's database (default ycsb), so a load starts from nothing. */
  public void dropCollection(String collection) {
    ConnectionString cs = new ConnectionString(uri);
    try (MongoClient c = client(cs)) {
      MongoDatabase db = c.getDatabase(cs.getDatabase() == null ? "ycsb" : cs.getDatabase());
      if (db.listCollectionNames().into(new java.util.ArrayList<>()).contains(collection)) {
        db.getCollection(collection).drop();
      }
    }
  }

  /** What the server's buildInfo says, e.g. "FerretDB v1.24.2 (reports MongoDB 7.0.77)". */
  private static String describe(String uri) {
    try (MongoClient c = client(new ConnectionString(uri))) {
      Document info = c.getDatabase("admin").runCommand(new Document("buildInfo", 1));
      String version = String.valueOf(info.get("version"));
      Object ferret = info.get("ferretdbVersion");
      if (ferret == null && info.get("ferretdbFeatures") != null) {
        ferret = "(version not reported)";
      }
      return ferret != null ? "FerretDB " + ferret + " (reports MongoDB " + version + "; a MongoDB-wire server, not MongoDB)"
          : "server reporting MongoDB " + version + " at " + uri;
    }
  }

  private static MongoClient client(ConnectionString cs) {
    return MongoClients.create(MongoClientSettings.builder().applyConnectionString(cs)
        .applyToClusterSettings(b -> b.serverSelectionTimeout(10, TimeUnit.SECONDS)).build());
  }

  /** The pinned version of a bundled artifact (versions.properties, filled in by the build). */
  private static String version(String artifact) {
    try (InputStream in = MongoTarget.class.getResourceAsStream("versions.properties")) {
      if (in == null) {
        return "(version unknown)";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty(artifact, "(version unknown)");
    } catch (IOException e) {
      return "(version unknown)";
    }
  }

  @Override
  public void close() {
    if (server != null) {
      server.shutdownNow();
    }
  }
}
