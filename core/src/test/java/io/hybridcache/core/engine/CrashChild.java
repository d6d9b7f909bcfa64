package io.hybridcache.core.engine;

import io.hybridcache.core.api.IndexType;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Child JVM for {@link CrashTest}. Reports on stdout, one line per event, each line a single
 * {@code write} to the pipe (so a kill never leaves half a line):
 * <ul>
 *   <li>{@code S}: {@code main} started, the cache is about to open; {@code O}: it is open;
 *   <li>{@code G key version} for every key it holds right after the open (a miss prints nothing, a value
 *       not written for the key prints {@code X key}), then {@code C};
 *   <li>then {@value #WRITERS} writer threads, each owning the keys {@code k % WRITERS == thread}, so a
 *       key's operations are sequential and its lines are in operation order: {@code I key version}
 *       before a put is issued, {@code P key version} after it returned, {@code R key version} after a
 *       remove returned (the version only orders it), {@code G}/{@code X} after a get; now and then
 *       {@link Engine#writeBack()} pushes every dirty entry to flash.
 * </ul>
 * Versions are {@code round * ROUND_VERSIONS + n} with one counter for all threads: a key's versions
 * grow across operations and rounds. With a sixth argument {@code small} the small-object engine is on
 * ({@link TestCaches#small(Path, IndexType, boolean)}), so a key's versions move between the two engines. It writes until it is killed; any exception halts it with exit 3.
 */
public final class CrashChild {
  /** Small, yet 1.6 MB of values at ~1.6 KB each against 1 MiB of DRAM: many keys live on flash. */
  public static final int KEYS = 1000;
  static final int WRITERS = 2;
  static final long ROUND_VERSIONS = 1_000_000_000L;
  private static final FileOutputStream OUT = new FileOutputStream(FileDescriptor.out);

  private CrashChild() {}

  public static void main(String[] args) {
    Path dir = Path.of(args[0]);
    IndexType index = IndexType.valueOf(args[1]);
    int round = Integer.parseInt(args[2]);
    long seed = Long.parseLong(args[3]);
    long closeAfterMillis = args.length > 4 ? Long.parseLong(args[4]) : -1;
    boolean smallObjects = args.length > 5 && args[5].equals("small");
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
      e.printStackTrace();
      Runtime.getRuntime().halt(3);
    });
    emit("S");
    Engine cache = TestCaches.open(TestCaches.small(dir, index, smallObjects).build());
    emit("O");
    for (int k = 0; k < KEYS; k++) {
      read(cache, k);
    }
    emit("C");
    AtomicLong versions = new AtomicLong(round * ROUND_VERSIONS);
    for (int t = 0; t < WRITERS; t++) {
      int thread = t;
      Random rnd = new Random(seed * 31 + t);
      new Thread(() -> write(cache, thread, rnd, versions), "crash-writer-" + t).start();
    }
    if (closeAfterMillis >= 0) { // a kill during close: close while the writers run, then wait for the kill
      try {
        Thread.sleep(closeAfterMillis);
        emit("Z");
        closing = true;
        cache.close();
        emit("E");
        Thread.sleep(Long.MAX_VALUE);
      } catch (InterruptedException e) {
        Runtime.getRuntime().halt(5);
      }
    }
  }

  private static volatile boolean closing;

  private static void write(Engine cache, int thread, Random rnd, AtomicLong versions) {
    try {
      writeLoop(cache, thread, rnd, versions);
    } catch (IllegalStateException e) {
      if (!closing) {
        throw e;
      }
    }
  }

  private static void writeLoop(Engine cache, int thread, Random rnd, AtomicLong versions) {
    while (true) {
      int k = thread + WRITERS * rnd.nextInt(KEYS / WRITERS);
      int dice = rnd.nextInt(1000);
      if (dice < 650) {
        long v = versions.incrementAndGet();
        emit("I " + k + " " + v);
        cache.put(TestCaches.key(k), TestCaches.value(k, v, 200 + rnd.nextInt(2800)));
        emit("P " + k + " " + v);
      } else if (dice < 800) {
        long v = versions.incrementAndGet();
        cache.remove(TestCaches.key(k));
        emit("R " + k + " " + v);
      } else if (dice < 999) {
        read(cache, k);
      } else {
        cache.writeBack();
      }
    }
  }

  private static void read(Engine cache, int k) {
    byte[] v = cache.get(TestCaches.key(k));
    if (v != null) {
      long version = TestCaches.versionOf(k, v);
      emit(version > 0 ? "G " + k + " " + version : "X " + k);
    }
  }

  /** One line in one {@code write}: the parent sees it whole or not at all. */
  private static synchronized void emit(String line) {
    try {
      OUT.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
    } catch (IOException e) {
      Runtime.getRuntime().halt(4);
    }
  }
}
