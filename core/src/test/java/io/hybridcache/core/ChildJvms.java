package io.hybridcache.core;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a test class's {@code main} in a child JVM (for kill -9 tests), as users start theirs: no module
 * flags unless the caller passes them (only Chronicle Map needs any). The child runs on the test JVM's
 * {@code java} and inherits the flags that make a plain JVM stricter ({@link #STRICT_PREFIXES}, e.g.
 * {@code --sun-misc-unsafe-memory-access=deny} in CI's JDK 25 run), so a child is never laxer than its
 * parent. Thread-safe: stateless.
 */
public final class ChildJvms {
  /** Flags of the test JVM a child inherits. */
  static final List<String> STRICT_PREFIXES = List.of("--sun-misc-unsafe-memory-access=", "--enable-native-access=");

  private ChildJvms() {}

  /** {@code main} with {@code -Xmx<maxHeap>} and {@code args}; stderr goes to {@code stderr}, stdout is the process's input stream. */
  public static Process start(Class<?> main, String maxHeap, File stderr, String... args) throws Exception {
    return start(main, maxHeap, List.of(), stderr, args);
  }

  /** As {@link #start(Class, String, File, String...)}, with more JVM flags ({@code jvmFlags}) before the class. */
  public static Process start(Class<?> main, String maxHeap, List<String> jvmFlags, File stderr, String... args)
      throws Exception {
    return start(main, System.getProperty("java.class.path"), maxHeap, jvmFlags, stderr, args);
  }

  /** As {@link #start(Class, String, List, File, String...)}, on the class path {@code classPath}. */
  public static Process start(Class<?> main, String classPath, String maxHeap, List<String> jvmFlags, File stderr,
      String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(strictFlagsOfThisJvm());
    cmd.addAll(jvmFlags);
    cmd.add("-Xmx" + maxHeap);
    cmd.add("-cp");
    cmd.add(classPath);
    cmd.add(main.getName());
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectError(stderr).start();
  }

  /** The test JVM's own flags that a child inherits. */
  public static List<String> strictFlagsOfThisJvm() {
    return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> STRICT_PREFIXES.stream().anyMatch(a::startsWith)).toList();
  }
}
