package io.hybridcache.mongo;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.hybridcache.core.ReadmeBlocks;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Mongo bridge block ({@code src/site/mongo.md}, moved from the README), compiled and run as written
 * on an in-process MongoDB-wire server.
 */
class ReadmeBlocksTest {
  @TempDir Path work;

  @Test
  void theMongoBlockCompilesAndRuns() throws Exception {
    ReadmeBlocks.Block block = ReadmeBlocks.theBlockImporting("io.hybridcache.mongo");
    MongoServer server = new MongoServer(new MemoryBackend());
    String uri = server.bindAndGetConnectionString();
    try {
      ReadmeBlocks.compileAndRun(block, Map.of(
          "mongodb://127.0.0.1:27017", uri,
          "Path.of(\"/var/cache/docs\")", "Path.of(\"" + work.resolve("docs") + "\")"), work.resolve("build"));
    } finally {
      server.shutdownNow();
    }
  }
}
