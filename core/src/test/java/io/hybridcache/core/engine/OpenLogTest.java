package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.IndexType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The INFO line of an open says what the directory was: "new" for one the cache never used (absent or
 * empty), "warm" after a clean close, never "recovered" for a new one (issue 35
 * item 17). Read from the test binding's output (slf4j-simple writes to the current System.err).
 */
class OpenLogTest {
  @TempDir Path tmp;

  private static String openAndLog(Path dir) {
    PrintStream err = System.err;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      TestCaches.open(TestCaches.small(dir, IndexType.HEAP).build()).close();
    } finally {
      System.setErr(err);
    }
    String line = captured.toString(StandardCharsets.UTF_8).lines()
        .filter(l -> l.contains("opened " + dir)).findFirst().orElse("");
    err.println(line);
    return line;
  }

  @Test
  void aNewDirectoryIsLoggedAsNewAndAReopenAsWarm() {
    Path dir = tmp.resolve("cache");
    String first = openAndLog(dir);
    assertTrue(first.contains("opened " + dir + " (new,"), "a new directory was not logged as new: " + first);
    String second = openAndLog(dir);
    assertTrue(second.contains("opened " + dir + " (warm,"), second);
  }
}
