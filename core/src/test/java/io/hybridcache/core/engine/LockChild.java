package io.hybridcache.core.engine;

import io.hybridcache.core.api.IndexType;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Child JVM for {@link DirectoryLockTest}. {@code hold DIR}: opens the cache, prints "OPEN pid", keeps it
 * open until a line (or end of input) arrives on stdin, closes it and prints "CLOSED". {@code try DIR}:
 * opens and closes the cache, printing "OPENED" or "REFUSED message".
 */
public final class LockChild {
  private LockChild() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[1]);
    if (args[0].equals("hold")) {
      try (Engine cache = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).build())) {
        System.out.println("OPEN " + ProcessHandle.current().pid());
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      }
      System.out.println("CLOSED");
    } else {
      try (Engine cache = TestCaches.open(TestCaches.small(dir, IndexType.HEAP).build())) {
        System.out.println("OPENED");
      } catch (UncheckedIOException e) {
        System.out.println("REFUSED " + e.getMessage());
      }
    }
    System.out.flush();
  }
}
