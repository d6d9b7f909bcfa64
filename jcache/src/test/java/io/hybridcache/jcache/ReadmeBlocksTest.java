package io.hybridcache.jcache;

import io.hybridcache.core.ReadmeBlocks;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's JCache block compiles and runs as written (its directory moved under a temp folder). */
class ReadmeBlocksTest {
  @TempDir Path work;

  @Test
  void theJcacheBlockCompilesAndRuns() throws Exception {
    ReadmeBlocks.compileAndRun(ReadmeBlocks.theBlockImporting("javax.cache"),
        Map.of("\"/var/cache/myapp\"", "\"" + work.resolve("myapp") + "\""), work.resolve("build"));
  }
}
