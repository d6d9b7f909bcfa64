package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.ChildJvms;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.FactoryBuilder;
import javax.cache.configuration.MutableCacheEntryListenerConfiguration;
import javax.cache.configuration.MutableConfiguration;
import javax.cache.event.CacheEntryCreatedListener;
import javax.cache.event.CacheEntryEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A manager's close is bounded whatever its listeners do; an opt-in shutdown hook closes it at JVM exit. */
class ShutdownTest {
  static final int ENTRIES = 500;

  @TempDir Path dir;

  /** An asynchronous listener that never returns (until the test lets it go), interrupts or not. */
  public static final class Stuck implements CacheEntryCreatedListener<String, String>, java.io.Serializable {
    static volatile boolean release;

    @Override
    public void onCreated(Iterable<CacheEntryEvent<? extends String, ? extends String>> events) {
      while (!release) {
        Thread.onSpinWait();
        Thread.interrupted(); // ignores shutdownNow's interrupt
      }
    }
  }

  @Test
  void closeIsBoundedWhateverAListenerDoes() {
    Properties p = TestManagers.small(dir.resolve("cache"));
    p.setProperty("close-timeout", "1s");
    CacheManager m = new HybridCachingProvider().getCacheManager(URI.create("test:stuck"), getClass().getClassLoader(), p);
    Stuck.release = false;
    try {
      for (String name : new String[] {"a", "b", "c"}) {
        Cache<String, String> c = m.createCache(name, new MutableConfiguration<String, String>()
            .addCacheEntryListenerConfiguration(new MutableCacheEntryListenerConfiguration<>(
                FactoryBuilder.factoryOf(Stuck.class), null, false, false)));
        c.put("k1", "v"); // the listener takes this one and never returns
        c.put("k2", "v"); // queued behind it
      }
      long start = System.nanoTime();
      m.close();
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      // the stated bound: close-timeout (1s) + 5s; listeners, pool and the engine's close together
      assertTrue(ms < 6_000, "close took " + ms + " ms with listeners that never return");
      assertTrue(m.isClosed());
    } finally {
      Stuck.release = true;
    }
  }

  /** The child: puts ENTRIES (in DRAM only: nothing flushed), says READY and exits without closing the manager. */
  public static void main(String[] args) {
    Properties p = TestManagers.small(Path.of(args[0]), "c"); // warm: the next run reads what this one left
    p.setProperty("dram-bytes", "8m");
    p.setProperty("shutdown-hook", args[1]);
    CacheManager m = new HybridCachingProvider().getCacheManager(URI.create("test:hook"),
        ShutdownTest.class.getClassLoader(), p);
    Cache<String, String> c = m.createCache("c", new MutableConfiguration<String, String>().setTypes(String.class,
        String.class));
    for (int i = 0; i < ENTRIES; i++) {
      c.put("k" + i, "v" + i);
    }
    System.out.println("READY");
    System.out.flush();
    System.exit(0); // no close: only a shutdown hook can close the manager
  }

  private int survivorsOfAnExit(String hook) throws Exception {
    Path cache = dir.resolve("hook-" + hook);
    Process child = ChildJvms.start(ShutdownTest.class, "256m", dir.resolve("child.err").toFile(), cache.toString(),
        hook);
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line = out.readLine();
      if (!"READY".equals(line)) {
        throw new AssertionError("child failed: " + Files.readString(dir.resolve("child.err")));
      }
    }
    assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child did not exit");
    Properties p = TestManagers.small(cache, "c");
    p.setProperty("dram-bytes", "8m");
    try (CacheManager m = new HybridCachingProvider().getCacheManager(URI.create("test:hook"),
        getClass().getClassLoader(), p)) {
      Cache<String, String> c = m.createCache("c", new MutableConfiguration<String, String>().setTypes(String.class,
          String.class));
      int n = 0;
      for (int i = 0; i < ENTRIES; i++) {
        if (("v" + i).equals(c.get("k" + i))) {
          n++;
        }
      }
      return n;
    }
  }

  @Test
  void theOptInShutdownHookClosesTheManagerAtExit() throws Exception {
    assertEquals(ENTRIES, survivorsOfAnExit("true"), "with shutdown-hook=true an exit closes the manager cleanly");
    assertEquals(0, survivorsOfAnExit("false"), "without it the entries only in DRAM are lost at exit (the default)");
  }
}
