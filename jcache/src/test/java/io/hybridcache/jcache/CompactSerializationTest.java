package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.HybridCache;
import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 37 item 5: a small serializable object is stored with its class descriptors written once per manager
 * directory ({@link ClassDescriptors}), not in every value; a value whose descriptors are gone is a miss, never
 * a wrong object.
 */
class CompactSerializationTest {
  @TempDir Path dir;

  record Point(int x, int y) implements Serializable {}

  record Labelled(String label, Point at, List<Point> path) implements Serializable {}

  private static SerialFilter filter() {
    return SerialFilter.of("io.hybridcache.**;java.base/*;!*");
  }

  private static MutableConfiguration<String, Labelled> labelled() {
    return new MutableConfiguration<String, Labelled>().setTypes(String.class, Labelled.class);
  }

  private static Labelled sample(int i) {
    return new Labelled("l" + i, new Point(i, -i), List.of(new Point(1, 2), new Point(3, 4)));
  }

  @Test
  void aSmallObjectIsAFewTimesSmallerAndReadsBack() throws IOException {
    ClassDescriptors descriptors = ClassDescriptors.open(dir);
    try {
      ClassLoader loader = getClass().getClassLoader();
      SerializingCodec<Point> compact = new SerializingCodec<>(loader, filter(), descriptors);
      SerializingCodec<Point> standard = new SerializingCodec<>(loader, filter());
      byte[] small = compact.encode(new Point(7, 8));
      byte[] plain = standard.encode(new Point(7, 8));
      System.out.printf("Point(7, 8) serialized: %d B standard, %d B compact%n", plain.length, small.length);
      // 8 B of data: the compact head (5 B), object and descriptor tags, a 4 B number and its 4 B CRC, the ints
      assertTrue(small.length <= 28, "compact: " + small.length + " B");
      assertTrue(plain.length >= 3 * small.length, "standard " + plain.length + " B against compact " + small.length);
      assertEquals(new Point(7, 8), compact.decode(small));
      assertEquals(new Point(7, 8), compact.decode(plain), "a standard stream (an earlier version's) still reads");
      assertArrayEquals(small, compact.encode(new Point(7, 8)), "the same object, the same bytes (keys compare so)");
      Undecodable e = assertThrows(Undecodable.class, () -> standard.decode(small));
      assertTrue(e.getMessage().contains("class-descriptor"), e.getMessage());
      // a stream that names no class descriptor (a String in an Object cache) is written as a standard one:
      // it needs no table, so a restart that finds none (never made: nothing to record) still reads it
      SerializingCodec<Object> objects = new SerializingCodec<>(getClass().getClassLoader(), filter(), descriptors);
      byte[] text = objects.encode("row");
      SerializingCodec<Object> plainObjects = new SerializingCodec<>(getClass().getClassLoader(), filter());
      assertArrayEquals(plainObjects.encode("row"), text);
      assertEquals("row", plainObjects.decode(text));
    } finally {
      descriptors.close();
    }
  }

  /** Forced interleaving: threads record new classes at once; each class gets one number, and all read back. */
  @Test
  void concurrentFirstUsesOfClassesGetOneNumberEach() throws Exception {
    ClassDescriptors descriptors = ClassDescriptors.open(dir);
    try {
      SerializingCodec<Object> codec = new SerializingCodec<>(getClass().getClassLoader(), filter(), descriptors);
      List<Object> values = List.of(new Point(1, 1), sample(2), new java.util.ArrayList<>(List.of(3)),
          java.time.Duration.ofSeconds(4), new java.util.TreeMap<>(java.util.Map.of("5", 5)));
      CountDownLatch start = new CountDownLatch(1);
      List<CompletableFuture<byte[]>> runs = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        Object v = values.get(t % values.size());
        runs.add(CompletableFuture.supplyAsync(() -> {
          try {
            start.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return codec.encode(v);
        }));
      }
      start.countDown();
      Set<Integer> generations = ConcurrentHashMap.newKeySet();
      for (int t = 0; t < runs.size(); t++) {
        byte[] b = runs.get(t).get(30, TimeUnit.SECONDS);
        assertEquals(values.get(t % values.size()), codec.decode(b));
        generations.add(java.nio.ByteBuffer.wrap(b, 1, 4).getInt());
      }
      assertEquals(1, generations.size());
    } finally {
      descriptors.close();
    }
    // a fresh open reads back every record written: the same numbers, so the same bytes
    ClassDescriptors again = ClassDescriptors.open(dir);
    try {
      SerializingCodec<Point> codec = new SerializingCodec<>(getClass().getClassLoader(), filter(), again);
      assertEquals(new Point(1, 1), codec.decode(codec.encode(new Point(1, 1))));
    } finally {
      again.close();
    }
  }

  /**
   * Through the public API: values come back after a restart (the table persisted); once the table is gone or
   * damaged they are misses, counted as undecodable, and the cache goes on storing.
   */
  @Test
  void valuesSurviveARestartAndAreMissesWithoutTheirTable() throws IOException {
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir, "places")) {
      Cache<String, Labelled> c = m.createCache("places", labelled());
      for (int i = 0; i < 100; i++) {
        c.put("k" + i, sample(i));
      }
      m.unwrap(HybridCache.class).flush();
    }
    assertTrue(Files.size(dir.resolve(ClassDescriptors.FILE)) > 0);
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir, "places")) {
      Cache<String, Labelled> c = m.createCache("places", labelled());
      for (int i = 0; i < 100; i++) {
        assertEquals(sample(i), c.get("k" + i), "k" + i);
      }
    }
    // a damaged table (a flipped byte in a record): a new generation, every stored value a miss
    byte[] table = Files.readAllBytes(dir.resolve(ClassDescriptors.FILE));
    table[table.length - 6] ^= 0x40;
    Files.write(dir.resolve(ClassDescriptors.FILE), table);
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir, "places")) {
      Cache<String, Labelled> c = m.createCache("places", labelled());
      for (int i = 0; i < 100; i++) {
        assertNull(c.get("k" + i), "k" + i + " read with another table");
      }
      assertEquals(100, c.unwrap(HybridCacheStatisticsMXBean.class).getUndecodableValues());
      c.put("k1", sample(1));
      assertEquals(sample(1), c.get("k1"), "stored and read with the new table");
    }
  }

  /**
   * Review: a table restored from an older copy (a file-by-file backup taken while values were written), then
   * appended to, gives a number a value already names to another class. The value names the record's CRC too,
   * so it is a miss, never an instance of the other class.
   */
  @Test
  void aNumberReusedByARestoredOlderTableIsAMissNeverAnotherClass() throws IOException {
    ClassLoader loader = getClass().getClassLoader();
    byte[] older;
    byte[] labelled;
    try (ClassDescriptors t = ClassDescriptors.open(dir)) {
      SerializingCodec<Object> codec = new SerializingCodec<>(loader, filter(), t);
      codec.encode(new Point(1, 2)); // Point is #1
      older = Files.readAllBytes(dir.resolve(ClassDescriptors.FILE));
      labelled = codec.encode(sample(3)); // Labelled and the list's classes: #2 and on
      assertEquals(sample(3), codec.decode(labelled));
    }
    Files.write(dir.resolve(ClassDescriptors.FILE), older); // the backup's copy comes back
    try (ClassDescriptors t = ClassDescriptors.open(dir)) {
      SerializingCodec<Object> codec = new SerializingCodec<>(loader, filter(), t);
      codec.encode(java.time.Duration.ofSeconds(5)); // the next class takes #2
      Undecodable e = assertThrows(Undecodable.class, () -> codec.decode(labelled));
      assertTrue(e.getMessage().contains("is not in"), e.getMessage());
    }
  }

  /** A table that takes no record (closed, full, a write error) makes a value a standard stream, never a failed put. */
  @Test
  void aTableThatTakesNoRecordMakesStandardStreams() throws IOException {
    ClassDescriptors t = ClassDescriptors.open(dir);
    SerializingCodec<Object> codec = new SerializingCodec<>(getClass().getClassLoader(), filter(), t);
    t.close();
    byte[] b = codec.encode(new Point(5, 6));
    assertEquals((byte) 0xAC, b[0], "a standard stream");
    assertEquals(new Point(5, 6), codec.decode(b));
    assertTrue(!Files.exists(dir.resolve(ClassDescriptors.FILE)), "a closed table makes no file");
  }

  /** A class the filter refuses fails its put before the table records it. */
  @Test
  void aRefusedClassIsNeverRecorded() throws IOException {
    try (ClassDescriptors t = ClassDescriptors.open(dir)) {
      SerializingCodec<Object> codec = new SerializingCodec<>(getClass().getClassLoader(),
          SerialFilter.of("java.base/*;!*"), t);
      assertThrows(IllegalArgumentException.class, () -> codec.encode(new Point(1, 1)));
      assertTrue(!Files.exists(dir.resolve(ClassDescriptors.FILE)), "the refused class was recorded");
    }
  }

  /** Keys are standard streams: a key's bytes never depend on the table, so a lost table costs values, not keys. */
  @Test
  void serializedKeysDoNotDependOnTheTable() throws IOException {
    MutableConfiguration<Point, String> byPoint = new MutableConfiguration<Point, String>()
        .setTypes(Point.class, String.class);
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir, "byPoint")) {
      m.createCache("byPoint", byPoint).put(new Point(1, 2), "p");
      m.createCache("values", labelled()).put("v", sample(1)); // records descriptors: the table has a file
    }
    Files.delete(dir.resolve(ClassDescriptors.FILE));
    try (CacheManager m = TestManagers.open(new HybridCachingProvider(), dir, "byPoint")) {
      assertEquals("p", m.createCache("byPoint", byPoint).get(new Point(1, 2)));
    }
  }
}
