package io.hybridcache.jcache;

import io.hybridcache.core.device.AtomicFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import javax.cache.CacheException;

/**
 * The namespace table of one manager directory: cache name to (id, epoch), in {@code namespaces.properties}
 * ({@code name=id.epoch}), replaced atomically and synced before a new id or epoch is used, so a cleared
 * or destroyed cache's entries never come back after a restart. Thread-safe (synchronized).
 */
final class Namespaces {
  static final String FILE = "namespaces.properties";

  private final Path file;
  private final Map<String, Namespace> byName = new HashMap<>();
  private int nextId;

  Namespaces(Path directory) {
    this.file = directory.resolve(FILE);
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      p.load(in);
    } catch (NoSuchFileException e) {
      // a new directory
    } catch (IOException e) {
      throw new CacheException("cannot read " + file, e);
    }
    for (String name : p.stringPropertyNames()) {
      String v = p.getProperty(name);
      int dot = v.indexOf('.');
      try {
        int id = Integer.parseInt(v.substring(0, dot));
        int epoch = Integer.parseInt(v.substring(dot + 1));
        byName.put(name, new Namespace(name, id, epoch));
        nextId = Math.max(nextId, id + 1);
      } catch (RuntimeException e) {
        throw new CacheException(file + ": bad namespace entry " + name + "=" + v, e);
      }
    }
  }

  /** The namespace of {@code cacheName}, made (and persisted) on first use. */
  synchronized Namespace of(String cacheName) {
    Namespace ns = byName.get(cacheName);
    if (ns == null) {
      ns = new Namespace(cacheName, nextId++, 0);
      byName.put(cacheName, ns);
      persistLocked();
    }
    return ns;
  }

  /** The namespace of {@code cacheName} if it has one, else null (nothing is made). */
  synchronized Namespace find(String cacheName) {
    return byName.get(cacheName);
  }

  /** Moves {@code ns} to a new epoch, persisted before it is used: every entry of the old one is dropped. */
  synchronized void bump(Namespace ns) {
    int next = ns.epoch() + 1;
    Properties p = snapshotLocked();
    p.setProperty(ns.name(), ns.id() + "." + next);
    write(p);
    ns.setEpoch(next);
  }

  private Properties snapshotLocked() {
    Properties p = new Properties();
    for (Namespace ns : byName.values()) {
      p.setProperty(ns.name(), ns.id() + "." + ns.epoch());
    }
    return p;
  }

  private void persistLocked() {
    write(snapshotLocked());
  }

  private void write(Properties p) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      p.store(out, "hybridcache JCache namespaces: cache name = id.epoch");
      byte[] bytes = out.toByteArray();
      AtomicFile.replace(file, ch -> AtomicFile.writeFully(ch, ByteBuffer.wrap(bytes)));
    } catch (IOException e) {
      throw new CacheException("cannot write " + file, e);
    }
  }
}
