package io.hybridcache.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every Java block of the README that needs only core compiles and runs as written. */
class ReadmeBlocksTest {
  @TempDir Path work;

  @Test
  void everyCoreBlockOfTheReadmeCompilesAndRuns() throws Exception {
    List<ReadmeBlocks.Block> blocks = ReadmeBlocks.javaBlocks(ReadmeBlocks.readme());
    int ran = 0;
    for (ReadmeBlocks.Block b : blocks) {
      if (b.imports("io.hybridcache.mongo") || b.imports("io.hybridcache.cassandra") || b.imports("javax.cache")) {
        continue; // those modules' own README tests run them (jcache's for javax.cache)
      }
      ReadmeBlocks.compileAndRun(b, Map.of(), work.resolve("line" + b.line()));
      ran++;
    }
    assertTrue(ran >= 3, "the quickstart, the catalogue and the placement blocks, found " + ran);
  }
}
