package io.hybridcache.core.api;

import java.util.List;

/** Which index implementation maps keys to flash addresses. */
public enum IndexType {
  /**
   * Chronicle Map persisted in the cache directory. Optional: needs {@code net.openhft:chronicle-map} on
   * the class path and the JVM flags {@link #CHRONICLE_JVM_FLAGS}; opening without either fails
   * with an error naming what is missing.
   */
  CHRONICLE,
  /**
   * The compact index (the default): primitive arrays on the heap, about 12-16 bytes per entry, no JVM
   * flags. Warm after a clean close, and after a process kill through checkpoints and an invalidation
   * journal (see {@link io.hybridcache.core.api.Durability}).
   */
  HEAP;

  /** The Maven coordinates {@link #CHRONICLE} needs on the class path (an optional dependency of core). */
  public static final String CHRONICLE_ARTIFACT = "net.openhft:chronicle-map:2026.1";

  /** The JVM flags {@link #CHRONICLE} needs on Java 17 and later. */
  public static final List<String> CHRONICLE_JVM_FLAGS = List.of(
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED",
      "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
      "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
      "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED",
      "--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED");
}
