package io.hybridcache.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(Arrays.stream(System.getProperty("hybridcache.jvm.opens", "").split("\\s+"))
        .filter(s -> !s.isBlank()).toList());
    cmd.addAll(List.of("-Xmx256m", "-cp", classPath, WithoutMicrometerChild.class.getName(),
        dir.resolve("cache").toString()));
    File stderr = dir.resolve("stderr.txt").toFile();
    Process child = new ProcessBuilder(cmd).redirectError(stderr).start();
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
