package io.hybridcache.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.hybridcache.core.ChildJvms;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Micrometer is optional: a JVM without it opens and uses a cache; only the binder needs it. */
class WithoutMicrometerTest {
  @TempDir Path dir;

  @Test
  void theCacheWorksWithoutMicrometerOnTheClassPath() throws Exception {
    String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(e -> !e.contains(File.separator + "micrometer")).collect(Collectors.joining(File.pathSeparator));
    File stderr = dir.resolve("stderr.txt").toFile();
    Process child = ChildJvms.start(WithoutMicrometerChild.class, classPath, "256m", List.of(), stderr,
        dir.resolve("cache").toString());
    String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(true, child.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, child.exitValue(), () -> out + readQuietly(stderr));
    assertEquals(List.of("micrometer absent", "get true, hits 1",
        "binder: NoClassDefFoundError io/micrometer/core/instrument/binder/MeterBinder"), out.lines().toList());
  }

  private static String readQuietly(File f) {
    try {
      return Files.readString(f.toPath());
    } catch (Exception e) {
      return e.toString();
    }
  }
}
