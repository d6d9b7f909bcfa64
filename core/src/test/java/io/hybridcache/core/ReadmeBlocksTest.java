package io.hybridcache.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java block of the README and of the {@code src/site/} pages that needs only core compiles and
 * runs as written (a block's {@code /var/cache/} directory moved under a temp folder).
 */
class ReadmeBlocksTest {
  @TempDir Path work;

  @Test
  void everyCoreBlockOfTheReadmeAndTheSitePagesCompilesAndRuns() throws Exception {
    List<ReadmeBlocks.Block> blocks = ReadmeBlocks.allJavaBlocks();
    Set<String> ran = new TreeSet<>();
    for (ReadmeBlocks.Block b : blocks) {
      if (b.imports("io.hybridcache.mongo") || b.imports("io.hybridcache.cassandra") || b.imports("javax.cache")) {
        continue; // those modules' own README tests run them (jcache's for javax.cache)
      }
      Path dir = work.resolve(b.className());
      ReadmeBlocks.compileAndRun(b, Map.of("Path.of(\"/var/cache/", "Path.of(\"" + dir.resolve("var-cache") + "/"),
          dir.resolve("build"));
      ran.add(b.where());
    }
    Set<String> pages = new TreeSet<>();
    ran.forEach(w -> pages.add(w.substring(0, w.indexOf(':'))));
    assertEquals(Set.of("README.md", "catalog.md", "metrics.md", "placement.md"), pages,
        "the quickstart, the catalogue, the metrics and the placement blocks ran: " + ran);
  }
}
