package io.hybridcache.mongo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;
import io.hybridcache.core.ReadmeBlocks;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's Mongo bridge block, compiled and run as written on an in-process MongoDB-wire server. */
class ReadmeBlocksTest {
  @TempDir Path work;

  @Test
  void theMongoBlockCompilesAndRuns() throws Exception {
    List<ReadmeBlocks.Block> blocks = ReadmeBlocks.javaBlocks(ReadmeBlocks.readme()).stream()
        .filter(b -> b.imports("io.hybridcache.mongo")).toList();
    assertEquals(1, blocks.size(), "the README's Mongo bridge block");
    MongoServer server = new MongoServer(new MemoryBackend());
    String uri = server.bindAndGetConnectionString();
    try {
      ReadmeBlocks.compileAndRun(blocks.get(0), Map.of(
          "mongodb://127.0.0.1:27017", uri,
          "Path.of(\"/var/cache/docs\")", "Path.of(\"" + work.resolve("docs") + "\")"), work.resolve("build"));
    } finally {
      server.shutdownNow();
    }
  }
}
