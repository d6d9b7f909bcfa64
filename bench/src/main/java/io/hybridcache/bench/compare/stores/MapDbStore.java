package io.hybridcache.bench.compare.stores;

import io.hybridcache.bench.Sizes;
import io.hybridcache.bench.compare.StoreSettings;
import java.nio.file.Path;
import org.mapdb.DB;
import org.mapdb.DBMaker;
import org.mapdb.HTreeMap;
import org.mapdb.Serializer;

/**
 * MapDB 3 file store: one {@link HTreeMap}{@code <String, byte[]>} in {@code mapdb.db} in the
 * settings' directory; a store, it keeps every entry. Thread-safe (HTreeMap and the store lock per
 * segment).
 *
 * <p>Configured as MapDB's performance notes advise for speed: transactions off (the default
 * without {@code transactionEnable()}: no write-ahead log, a crash may lose the file), memory-mapped
 * ({@code fileMmapEnableIfSupported}: "much faster" than RandomAccessFile, and better than
 * FileChannel, which MapDB itself ranks between the two), {@code fileMmapPreclearDisable} (no
 * zero fill when the file grows), {@code cleanerHackEnable} (unmap at close, not at GC), and
 * {@code allocateIncrement} {@value #INCREMENT_MIB} MiB instead of 1 MiB: the file grows and is mapped
 * in slices of that size, sparse until written. No {@code allocateStartSize}: MapDB zero-fills the
 * whole start size when it opens the file.
 * Values are stored outside the hash tree's nodes (MapDB's default, right for ~1 KB records).
 *
 * <p>Budget: MapDB 3 has no cache of its own (2.x's instance cache is gone; entries are
 * deserialised on each get), so {@code dramBytes} has no knob. With mmap the page cache is its
 * DRAM, bounded by the harness's memory cgroup, as for Chronicle Map.
 */
public final class MapDbStore extends ConcurrentMapStore {
  static final int INCREMENT_MIB = 64;
  private static final String FILE = "mapdb.db";
  private final DB db;
  private final Path file;
  private final long dramBytes;

  public MapDbStore(StoreSettings s) {
    this(s, open(PeerFiles.fileIn(s.directory(), FILE)));
  }

  private MapDbStore(StoreSettings s, DB db) {
    super(db.hashMap("compare", Serializer.STRING, Serializer.BYTE_ARRAY).createOrOpen());
    this.db = db;
    this.file = s.directory().resolve(FILE);
    this.dramBytes = s.dramBytes();
  }

  private static DB open(Path file) {
    return DBMaker.fileDB(file.toFile())
        .fileMmapEnableIfSupported()
        .fileMmapPreclearDisable()
        .cleanerHackEnable()
        .allocateIncrement((long) INCREMENT_MIB << 20)
        .make();
  }

  @Override
  public String describe() {
    return "mapdb: HTreeMap in " + file + ", memory-mapped (page cache is its DRAM; no cache of its own, dramBytes "
        + Sizes.format(dramBytes) + " unused), transactions off, grows in " + INCREMENT_MIB + " MiB slices";
  }

  @Override
  public void close() {
    db.close();
  }
}
