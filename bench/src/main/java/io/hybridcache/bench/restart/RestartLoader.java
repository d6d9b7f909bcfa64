package io.hybridcache.bench.restart;

import io.hybridcache.core.api.HybridCache;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Child JVM of {@link RestartCommand}: opens the cache of {@code args} ({@link RestartCommand#config}) and
 * puts entries {@code 0..n-1}, printing {@code F <puts> <flash entries>} every 1,000 puts (one write per
 * line), until the parent kills it with SIGKILL. After the last put it prints {@code D} and keeps the
 * cache open.
 */
public final class RestartLoader {
  private static final FileOutputStream OUT = new FileOutputStream(FileDescriptor.out);

  private RestartLoader() {}

  public static void main(String[] args) throws Exception {
    RestartCommand.Sizes sizes = RestartCommand.Sizes.parse(args);
    HybridCache cache = HybridCache.open(RestartCommand.config(sizes, sizes.durability()));
    for (int i = 0; i < sizes.entries(); i++) {
      cache.put(RestartCommand.key(i), RestartCommand.value(i, sizes.valueBytes()));
      if ((i + 1) % 1000 == 0) {
        emit("F " + (i + 1) + " " + cache.stats().flashEntries());
      }
    }
    emit("D");
    Thread.sleep(Long.MAX_VALUE);
  }

  private static void emit(String line) throws IOException {
    OUT.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
  }
}
