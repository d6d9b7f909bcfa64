package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plain {@code java -cp} with no JVM flag: the README's example runs on the default configuration
 * (the compact index), and choosing Chronicle without its flags, or without its jar, fails with an
 * error naming exactly what to add.
 */
class NoFlagsTest {
  @TempDir Path dir;

  private String run(String mode, String classPath) throws Exception {
    List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
        "-cp", classPath, NoFlagsChild.class.getName(), dir.resolve(mode).toString(), mode);
    File err = dir.resolve(mode + ".err").toFile();
    Process p = new ProcessBuilder(cmd).redirectError(err).start();
    String out = new String(p.getInputStream().readAllBytes()).trim();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    return out + (out.isEmpty() ? Files.readString(err.toPath()) : "");
  }

  @Test
  void theReadmeExampleRunsOnTheDefaultConfigWithoutFlags() throws Exception {
    String out = run("default", System.getProperty("java.class.path"));
    assertEquals("OK HEAP", out);
  }

  @Test
  void chronicleWithoutItsFlagsNamesTheFlags() throws Exception {
    String out = run("chronicle", System.getProperty("java.class.path"));
    assertTrue(out.startsWith("ERROR java.lang.IllegalStateException: indexType CHRONICLE needs these JVM flags"),
        out);
    for (String flag : ChronicleSupport.REQUIRED_FLAGS) {
      if (flag.contains("java.base/")) { // jdk.unsupported exports sun.misc anyway; jdk.compiler may be absent
        assertTrue(out.contains(flag), "names " + flag + ": " + out);
      }
    }
  }

  @Test
  void chronicleWithoutItsJarNamesTheJar() throws Exception {
    List<String> kept = new ArrayList<>();
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!e.contains("chronicle")) {
        kept.add(e);
      }
    }
    String out = run("chronicle", kept.stream().collect(Collectors.joining(File.pathSeparator)));
    assertTrue(out.startsWith("ERROR java.lang.IllegalStateException: indexType CHRONICLE needs Chronicle Map on "
        + "the class path: add the dependency " + ChronicleSupport.ARTIFACT), out);
    assertTrue(Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
        .anyMatch(e -> e.contains("chronicle")), "the test class path has Chronicle");
  }
}
