package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.hybridcache.core.ReadmeBlocks;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's JCache block compiles and runs as written (its directory moved under a temp folder). */
class ReadmeBlocksTest {
  @TempDir Path work;

  @Test
  void theJcacheBlockCompilesAndRuns() throws Exception {
    List<ReadmeBlocks.Block> blocks = ReadmeBlocks.javaBlocks(ReadmeBlocks.readme()).stream()
        .filter(b -> b.imports("javax.cache")).toList();
    assertEquals(1, blocks.size(), "the README's JCache block");
    ReadmeBlocks.compileAndRun(blocks.get(0), Map.of("\"/var/cache/myapp\"", "\"" + work.resolve("myapp") + "\""),
        work.resolve("build"));
  }
}
