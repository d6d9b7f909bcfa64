package io.hybridcache.core.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.ChildJvms;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM assigning schemas from three threads is killed with SIGKILL at a random point, several
 * rounds on one directory; every id the child printed (it prints only after {@code idFor} returned)
 * must resolve to the same schema after the reopen, and new ids must be above all of them.
 */
class CatalogCrashTest {
  private static final int ROUNDS = 3;
  @TempDir Path dir;

  @Test
  void idsReturnedBeforeAKillDashNineResolveAfterRestart() throws Exception {
    Random rnd = new Random();
    Map<Long, String> printed = new HashMap<>();
    Path catalogDir = dir.resolve("catalog");
    for (int round = 1; round <= ROUNDS; round++) {
      int killAfter = 20 + rnd.nextInt(300);
      Process child = startChild(catalogDir, round);
      try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        int seen = 0;
        String line;
        while (seen < killAfter && (line = out.readLine()) != null) {
          if (line.startsWith("A ")) {
            String[] p = line.split(" ", 4);
            String def = p[2] + " " + (p.length > 3 ? p[3] : "");
            String prev = printed.put(Long.parseLong(p[1]), def);
            assertTrue(prev == null || prev.equals(def), "id " + p[1] + " named two schemas: " + prev + " / " + def);
            seen++;
          }
        }
        assertTrue(child.isAlive(), "child died before the kill in round " + round + " (see child-" + round + ".err)");
        child.destroyForcibly(); // SIGKILL on Linux
        assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        assertEquals(137, child.exitValue(), "killed by SIGKILL");
      }
      long max = printed.keySet().stream().mapToLong(Long::longValue).max().orElse(0);
      try (SchemaCatalog cat = SchemaCatalog.open(CatalogConfig.builder(catalogDir).segmentCount(8).build())) {
        for (Map.Entry<Long, String> e : printed.entrySet()) {
          Schema s = cat.schema(e.getKey());
          assertEquals(e.getValue(), s.namespace() + " " + String.join(",", s.columns()), "round " + round + " id " + e.getKey());
        }
        long fresh = cat.idFor(List.of("after-round-" + round));
        assertTrue(fresh > max, "new id " + fresh + " must be above every id handed out (" + max + ")");
      }
    }
  }

  private Process startChild(Path catalogDir, int round) throws Exception {
    return ChildJvms.start(CatalogCrashChild.class, "256m", new File(dir.toFile(), "child-" + round + ".err"),
        catalogDir.toString(), Integer.toString(round));
  }

}
