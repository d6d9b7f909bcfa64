package io.hybridcache.core.engine;

import io.hybridcache.core.api.IndexType;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Checks, before any Chronicle class is loaded, that {@link IndexType#CHRONICLE} can run: Chronicle Map
 * on the class path (an optional dependency of core) and the {@code --add-opens/--add-exports} flags it
 * needs on Java 17. Without this check a missing jar is a {@link NoClassDefFoundError} and a missing flag
 * an {@link ExceptionInInitializerError} from Chronicle's internals, neither naming the fix.
 *
 * <p>Thread-safe: stateless.
 */
final class ChronicleSupport {
  /** Maven coordinates of the Chronicle Map version this library is built and tested with. */
  static final String ARTIFACT = IndexType.CHRONICLE_ARTIFACT;
  /** The JVM flags Chronicle Map needs on Java 17, as one would pass them to {@code java}. */
  static final List<String> REQUIRED_FLAGS = IndexType.CHRONICLE_JVM_FLAGS;
  private static final String MAP_CLASS = "net.openhft.chronicle.map.ChronicleMap";

  private ChronicleSupport() {}

  /**
   * Throws unless Chronicle can run here.
   *
   * @throws IllegalStateException naming the jar to add when Chronicle Map is not on the class path, or
   *     the exact flags to add when some are missing
   */
  public static void check() {
    check(ChronicleSupport.class.getClassLoader(), missingFlags(ChronicleSupport.class.getModule()));
  }

  static void check(ClassLoader loader, List<String> missing) {
    try {
      Class.forName(MAP_CLASS, false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw new IllegalStateException("indexType CHRONICLE needs Chronicle Map on the class path: add the "
          + "dependency " + ARTIFACT + " (an optional dependency of hybridcache-core) and the JVM flags "
          + String.join(" ", REQUIRED_FLAGS) + "; or use the default IndexType.HEAP, which needs neither", e);
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException("indexType CHRONICLE needs these JVM flags, missing here: "
          + String.join(" ", missing) + " (add them to the java command line, or use the default IndexType.HEAP,"
          + " which needs none)");
    }
  }

  /** The flags of {@link #REQUIRED_FLAGS} whose package is not opened or exported to {@code to}. */
  static List<String> missingFlags(Module to) {
    List<String> missing = new ArrayList<>();
    for (String flag : REQUIRED_FLAGS) {
      boolean open = flag.startsWith("--add-opens=");
      String spec = flag.substring(flag.indexOf('=') + 1, flag.lastIndexOf('='));
      String module = spec.substring(0, spec.indexOf('/'));
      String pkg = spec.substring(spec.indexOf('/') + 1);
      Optional<Module> m = ModuleLayer.boot().findModule(module);
      if (m.isEmpty()) {
        continue; // e.g. jdk.compiler absent from a JRE image: nothing to open
      }
      if (open ? !m.get().isOpen(pkg, to) : !m.get().isExported(pkg, to)) {
        missing.add(flag);
      }
    }
    return missing;
  }
}
