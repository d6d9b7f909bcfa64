package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.TestCaches.key;
import static io.hybridcache.core.engine.TestCaches.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import io.hybridcache.core.api.LifetimeClass;
import io.hybridcache.core.device.Device;
import io.hybridcache.core.device.FaultInjectingDevice;
import io.hybridcache.core.device.FileDevice;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25, items 11 and 12: the direct memory the flash tier holds is bounded, whatever the number of
 * reading threads (platform or virtual) or of lifetime classes that write, and running out of it is a
 * counted miss, never an error out of {@code get}. Each bound is the one src/site/faults.md states; the JVM's
 * direct buffer pool ({@link BufferPoolMXBean} "direct") is the witness, measured after a GC at both ends
 * (garbage freed in between would hide growth; what a thread or class keeps is never garbage), and the
 * buffers' own count is checked too.
 */
class MemoryBoundTest {
  private static final int THREADS = 2_000;
  private static final int VALUE = 400;
  private static final long KIB = 1024;
  /** Direct memory the test itself may cause beside the bound (segment header pages, summaries). */
  private static final long SLACK = 1024 * KIB;

  @TempDir Path dir;

  private static BufferPoolMXBean directPool() {
    for (BufferPoolMXBean b : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (b.getName().equals("direct")) {
        return b;
      }
    }
    throw new AssertionError("no direct buffer pool MXBean");
  }

  private CacheConfig readConfig() {
    return TestCaches.small(dir, IndexType.HEAP)
        .dramBytes(16 * CacheConfig.MIB) // the reads' promotions evict nothing: only reads allocate
        .flashBytes(64L * TestCaches.SEGMENT)
        .build();
  }

  /** Every key written and on flash only (DRAM emptied). */
  private static void fill(Engine c) {
    for (int i = 0; i < THREADS; i++) {
      c.put(key(i), value(i, 1, VALUE));
    }
    c.writeBackAndDropDram();
  }

  /**
   * Starts {@link #THREADS} threads with {@code start}, each reading its own key from flash and then
   * waiting; returns the direct memory the cache added while all of them are alive, each having read.
   */
  private static long directGrowthWhileThreadsLive(Engine c, Function<Runnable, Thread> start) throws Exception {
    return directGrowthWhileThreadsLive(c, start, false);
  }

  /** As above; {@code missesAllowed}: a read may miss (the small engine's log drops), never serve another value. */
  private static long directGrowthWhileThreadsLive(Engine c, Function<Runnable, Thread> start, boolean missesAllowed)
      throws Exception {
    fill(c);
    byte[] first = c.get(key(0)); // the first buffer
    assertTrue(missesAllowed && first == null || java.util.Arrays.equals(value(0, 1, VALUE), first),
        "a warm-up read from flash");
    c.writeBackAndDropDram();
    long readsBefore = c.stats().deviceReads(); // both flash engines'
    System.gc(); // earlier garbage freed now, not while the threads read (it would hide growth)
    long before = directPool().getMemoryUsed();
    CountDownLatch read = new CountDownLatch(THREADS);
    CountDownLatch exit = new CountDownLatch(1);
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int i = t;
      threads.add(start.apply(() -> {
        try {
          byte[] v = c.get(key(i));
          if (v == null ? !missesAllowed : !java.util.Arrays.equals(value(i, 1, VALUE), v)) {
            failures.add(new AssertionError("key " + i + " read " + (v == null ? "a miss" : "a wrong value")));
          }
        } catch (Throwable e) {
          failures.add(e);
        } finally {
          read.countDown();
        }
        try {
          exit.await(); // alive, with whatever it keeps per thread
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }));
    }
    read.await();
    System.gc(); // frees garbage only: what the threads keep stays reachable
    long growth = directPool().getMemoryUsed() - before;
    exit.countDown();
    for (Thread t : threads) {
      t.join();
    }
    assertTrue(failures.isEmpty(), () -> failures.size() + " readers failed, first: " + failures.peek());
    long reads = c.stats().deviceReads() - readsBefore;
    assertTrue(reads >= (missesAllowed ? THREADS / 2 : THREADS), "every thread read flash: " + reads + " reads");
    return growth;
  }

  private void assertReadBound(Function<Runnable, Thread> start, String threads) throws Exception {
    CacheConfig config = readConfig();
    Engine closed;
    try (Engine c = TestCaches.open(config)) {
      closed = c;
      long growth = directGrowthWhileThreadsLive(c, start);
      long bound = ReadBuffers.boundBytes(config);
      System.out.printf("%d %s reading threads: direct buffer pool +%,d B (bound %,d B)%n", THREADS, threads, growth,
          bound);
      assertTrue(growth <= bound + SLACK, THREADS + " " + threads + " reading threads grew the direct buffer pool by "
          + growth + " B; the documented bound for this config is " + bound + " B");
      assertTrue(c.flashTier().readBufferMemory() <= bound, "the read buffers by their own count: "
          + c.flashTier().readBufferMemory() + " B");
    }
    assertEquals(0, closed.flashTier().readBufferMemory(), "close drops the read buffers (the threads keep none)");
  }

  @Test
  void twoThousandReadingThreadsStayUnderTheReadBufferBound() throws Exception {
    assertReadBound(r -> {
      Thread t = new Thread(r);
      t.start();
      return t;
    }, "platform");
  }

  @Test
  void twoThousandVirtualReadingThreadsStayUnderTheReadBufferBound() throws Throwable {
    assumeTrue(Runtime.version().feature() >= 21, "virtual threads need JDK 21+");
    MethodHandle start = virtualStarter();
    assertReadBound(r -> {
      try {
        return (Thread) start.invoke(r);
      } catch (Throwable e) {
        throw new AssertionError(e);
      }
    }, "virtual");
  }

  /** {@code Thread.ofVirtual()::start}, found at run time: the build compiles with release 17. */
  private static MethodHandle virtualStarter() throws Throwable {
    MethodHandles.Lookup l = MethodHandles.publicLookup();
    Class<?> builder = Class.forName("java.lang.Thread$Builder");
    Class<?> ofVirtual = Class.forName("java.lang.Thread$Builder$OfVirtual");
    Object b = l.findStatic(Thread.class, "ofVirtual", MethodType.methodType(ofVirtual)).invoke();
    return l.findVirtual(builder, "start", MethodType.methodType(Thread.class, Runnable.class)).bindTo(b);
  }

  /**
   * The small-object engine adds a bounded pool of its own (its sets' page buffers, which its log's reads
   * share, and the log's write page: {@link SmallTier#directBoundBytes}, what the README adds to the bound),
   * whatever the number of threads reading it.
   */
  @Test
  void twoThousandThreadsReadingTheSmallEngineStayUnderItsBound() throws Exception {
    CacheConfig config = TestCaches.small(dir, IndexType.HEAP, true).dramBytes(16 * CacheConfig.MIB)
        .flashBytes(64L * TestCaches.SEGMENT).build();
    try (Engine c = TestCaches.open(config)) {
      long growth = directGrowthWhileThreadsLive(c, r -> {
        Thread t = new Thread(r);
        t.start();
        return t;
      }, true);
      assertEquals(0.27, (double) SmallTier.directBoundBytes() / CacheConfig.MIB, 0.005,
          "the README's figure for the small engine's direct memory (0.27 MiB)");
      long bound = ReadBuffers.boundBytes(config) + SmallTier.directBoundBytes();
      System.out.printf("%d threads reading the small engine: direct buffer pool +%,d B (bound %,d B)%n", THREADS,
          growth, bound);
      assertTrue(c.stats().smallObjects().deviceReads() > 0, "the threads read the small engine's pages");
      assertTrue(growth <= bound + SLACK, THREADS + " threads reading the small engine grew the direct buffer pool by "
          + growth + " B; the documented bound is " + bound + " B");
    }
  }

  @Test
  void anOutOfMemoryErrorForDirectMemoryIsACountedMiss() {
    FaultInjectingDevice[] device = new FaultInjectingDevice[1];
    try (Engine c = Engine.open(readConfig(), (d, n, b, direct) -> {
      device[0] = new FaultInjectingDevice(FileDevice.open(d, n, b, direct));
      return device[0];
    })) {
      fill(c);
      device[0].throwOnReads(new OutOfMemoryError("Cannot reserve 69632 bytes of direct buffer memory (injected)"));
      assertNull(c.get(key(3)), "a miss, not an error out of get");
      assertEquals(1, c.stats().outOfMemoryMisses(), "counted");
      assertEquals(0, c.stats().segmentsDropped(), "memory is not the segment's fault");
      device[0].heal();
      assertArrayEquals(value(3, 1, VALUE), c.get(key(3)), "the entry stays on flash");
    }
  }

  @Test
  void writeBuffersOfManyLifetimeClassesStayUnderTheirBound() {
    int classes = 100;
    CacheConfig config = TestCaches.small(dir, IndexType.HEAP)
        .segmentBytes(2 * TestCaches.SEGMENT)
        .writeBufferBytes(64 * KIB)
        .flashBytes((2L * classes + 8) * 2 * TestCaches.SEGMENT) // room for an active segment per class
        .build();
    try (Engine c = TestCaches.open(config)) {
      System.gc();
      long before = directPool().getMemoryUsed();
      for (int k = 0; k < classes; k++) {
        LifetimeClass lc = LifetimeClass.named(LifetimeClass.FIRST_CALLER_ID + k, "collection-" + k);
        for (int i = 0; i < 20; i++) {
          int n = k * 1000 + i;
          c.put(key(n), value(n, 1, VALUE), lc);
        }
      }
      c.writeBackAndDropDram(); // every class writes to flash
      System.gc(); // frees garbage only (header pages): the buffers the classes keep stay reachable
      long growth = directPool().getMemoryUsed() - before;
      long bound = SegmentWriter.boundBytes(config);
      System.out.printf("%d lifetime classes writing: direct buffer pool +%,d B (bound %,d B)%n", classes, growth,
          bound);
      long headers = classes * 2L * Device.ALIGNMENT; // each new segment's header page, garbage until a GC
      assertTrue(growth <= bound + headers + SLACK, classes + " lifetime classes that wrote grew the direct buffer "
          + "pool by " + growth + " B; the documented bound for this config is " + bound + " B");
      assertTrue(c.flashTier().writeBufferMemory() <= bound, "the write buffers by their own count: "
          + c.flashTier().writeBufferMemory() + " B");
      for (int k = 0; k < classes; k += 9) {
        int n = k * 1000 + 7;
        assertArrayEquals(value(n, 1, VALUE), c.get(key(n)), "class " + k + "'s entries read back");
      }
    }
  }

  /**
   * Issue 38: at the default configuration the write buffers are DRAM beside the DRAM tier, so they are kept
   * in proportion to it: twelve classes holding a filling buffer each make two classes' worth of 1 MiB
   * buffers (eight), not twelve (the earlier default allowed sixteen whatever the DRAM tier, 16.1 MiB beside
   * a 64 MiB one).
   */
  @Test
  void atTheDefaultsTheWriteBuffersOfTwelveClassesStayWithinTwoClassesWorth() {
    int classes = 12;
    CacheConfig config = CacheConfig.builder(dir).flashBytes(512 * CacheConfig.MIB).build();
    long allowed = (long) CacheConfig.MIN_WRITE_BUFFER_CLASSES * config.writeBuffers();
    try (Engine c = TestCaches.open(config)) {
      for (int k = 0; k < classes; k++) {
        LifetimeClass lc = LifetimeClass.named(LifetimeClass.FIRST_CALLER_ID + k, "table-" + k);
        for (int i = 0; i < 100; i++) { // 40 KB a class: each holds a partly filled 1 MiB buffer
          int n = k * 1000 + i;
          c.put(key(n), value(n, 1, VALUE), lc);
        }
      }
      c.writeBackAndDropDram();
      long buffers = c.flashTier().writeBufferMemory() / (config.writeBufferBytes() + Device.ALIGNMENT);
      assertTrue(buffers <= allowed, classes + " classes made " + buffers + " write buffers of "
          + config.writeBufferBytes() + " B beside a DRAM tier of " + config.dramBytes() + " B; at most " + allowed
          + " (two classes' worth) are allowed");
      for (int k = 0; k < classes; k++) {
        int n = k * 1000 + 99;
        assertArrayEquals(value(n, 1, VALUE), c.get(key(n)), "class " + k + "'s last entry reads back");
      }
    }
  }
}
