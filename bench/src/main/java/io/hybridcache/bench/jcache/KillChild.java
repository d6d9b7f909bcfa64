package io.hybridcache.bench.jcache;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import javax.cache.Cache;
import javax.cache.CacheManager;

/**
 * The child JVM of {@link JCacheProbe}'s kill probe: opens a provider's bounded cache on a directory, puts the
 * {@link JCacheProbe#ENTRIES} values, prints {@code written PID} and waits, never closing anything, for the
 * parent's SIGKILL. Arguments: the subject's class simple name, the directory.
 */
public final class KillChild {
  private KillChild() {}

  public static void main(String[] args) throws InterruptedException {
    ProbeSubject subject = JCacheProbe.subject(args[0]);
    CacheManager manager = subject.boundedManager(Path.of(args[1]));
    Cache<Integer, String> cache = subject.boundedCache(manager);
    for (int i = 0; i < JCacheProbe.ENTRIES; i++) {
      cache.put(i, JCacheProbe.value(i));
    }
    System.out.println("written " + ProcessHandle.current().pid());
    System.out.flush();
    new CountDownLatch(1).await(); // until killed
  }
}
