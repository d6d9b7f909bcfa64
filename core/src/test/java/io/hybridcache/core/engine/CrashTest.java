package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.ChildJvms;
import io.hybridcache.core.index.IndexType;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A child JVM writing continuously is killed with SIGKILL at random points, several rounds on the same
 * directory; after each kill the reopened cache must return, for every key, a miss or a value that was
 * written for that key (values name their key and carry a key-derived pattern).
 */
class CrashTest {
  private static final int ROUNDS = 4;
  @TempDir Path dir;
  @TempDir Path logs; // not in dir: the cache refuses a directory holding files it did not make

  @ParameterizedTest
  @EnumSource(IndexType.class)
  void killDashNineNeverYieldsAWrongValue(IndexType index) throws Exception {
    Random rnd = new Random();
    long hits = 0;
    for (int round = 1; round <= ROUNDS; round++) {
      int killAfter = 2 + rnd.nextInt(40); // progress lines of 200 operations each
      Process child = startChild(index, round);
      try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        int progress = 0;
        String line;
        while (progress < killAfter && (line = out.readLine()) != null) {
          if (line.startsWith("P ")) {
            progress++;
          }
        }
        assertTrue(child.isAlive(), "child died before the kill in round " + round);
        child.destroyForcibly(); // SIGKILL on Linux
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(137, child.exitValue(), "killed by SIGKILL");
      }
      try (Engine cache = TestCaches.open(TestCaches.small(dir, index).build())) {
        for (int k = 0; k < CrashChild.KEYS; k++) {
          byte[] v = cache.get(TestCaches.key(k));
          if (v != null) {
            hits++;
            assertTrue(TestCaches.versionOf(k, v) > 0, "round " + round + ": key " + k + " returned a value not written for it");
          }
        }
      }
    }
    if (index == IndexType.CHRONICLE) {
      assertTrue(hits > 0, "a recovered persisted index must serve what reached flash");
    } // the heap index is not persisted on a crash: the recovered cache is empty, which is correct
  }

  private Process startChild(IndexType index, int round) throws Exception {
    return ChildJvms.start(CrashChild.class, "512m", new File(logs.toFile(), "child-" + round + ".err"),
        dir.toString(), index.name(), Integer.toString(round));
  }

}
