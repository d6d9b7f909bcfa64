package io.hybridcache.core;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Starts a test class's {@code main} in a child JVM (for kill -9 tests). Thread-safe: stateless. */
public final class ChildJvms {
  private ChildJvms() {}

  /**
   * Starts {@code main} with the test class path, the JVM flags surefire passes in
   * {@code hybridcache.jvm.opens}, {@code -Xmx<maxHeap>} and {@code args}; stderr goes to {@code stderr},
   * stdout is the process's input stream.
   */
  public static Process start(Class<?> main, String maxHeap, File stderr, String... args) throws Exception {
    return start(main, maxHeap, List.of(), stderr, args);
  }

  /** As {@link #start(Class, String, File, String...)}, with more JVM flags ({@code jvmFlags}) before the class. */
  public static Process start(Class<?> main, String maxHeap, List<String> jvmFlags, File stderr, String... args)
      throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    String opens = System.getProperty("hybridcache.jvm.opens", "");
    cmd.addAll(Arrays.stream(opens.split("\\s+")).filter(s -> !s.isBlank()).toList());
    cmd.addAll(jvmFlags);
    cmd.add("-Xmx" + maxHeap);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main.getName());
    cmd.addAll(List.of(args));
    return new ProcessBuilder(cmd).redirectError(stderr).start();
  }
}
