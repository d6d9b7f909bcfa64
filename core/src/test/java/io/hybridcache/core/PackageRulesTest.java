package io.hybridcache.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The engine stays sealed: which package may use which (no cycles), what the module exports, and
 * which engine types are public. A change that breaks a rule must change this test on purpose.
 */
class PackageRulesTest {
  private static final Path SOURCES = Path.of("src/main/java/io/hybridcache/core");
  private static final Pattern REFERENCE = Pattern.compile("io\\.hybridcache\\.core\\.([a-z]+)\\.[A-Z]");

  @Test
  void packagesDependOnlyDownwards() throws IOException {
    Map<String, Set<String>> allowed = Map.of(
        "device", Set.of(),
        "api", Set.of("device"),
        "engine", Set.of("api", "device"),
        "catalog", Set.of("api", "device", "engine"),
        "metrics", Set.of("api"));
    Map<String, Set<String>> found = new TreeMap<>();
    try (Stream<Path> files = Files.walk(SOURCES)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        String pkg = SOURCES.relativize(f.getParent()).toString();
        Set<String> deps = found.computeIfAbsent(pkg, k -> new TreeSet<>());
        for (String line : Files.readAllLines(f)) {
          String code = line.strip();
          if (code.startsWith("*") || code.startsWith("//") || code.startsWith("/*")) {
            continue; // documentation may name any package
          }
          Matcher m = REFERENCE.matcher(code);
          while (m.find()) {
            if (!m.group(1).equals(pkg)) {
              deps.add(m.group(1));
            }
          }
        }
      }
    }
    assertEquals(allowed.keySet(), found.keySet(), "the packages of core");
    for (var e : found.entrySet()) {
      assertTrue(allowed.get(e.getKey()).containsAll(e.getValue()),
          e.getKey() + " uses " + e.getValue() + ", may use only " + allowed.get(e.getKey()));
    }
  }

  /** Micrometer is optional: only the metrics package may name it, and the module requires it statically. */
  @Test
  void onlyTheMetricsPackageUsesMicrometer() throws IOException {
    Set<String> users = new TreeSet<>();
    try (Stream<Path> files = Files.walk(SOURCES)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        if (Files.readAllLines(f).stream().anyMatch(l -> l.strip().startsWith("import io.micrometer."))) {
          users.add(SOURCES.relativize(f.getParent()).toString());
        }
      }
    }
    assertEquals(Set.of("metrics"), users);
    ModuleDescriptor d = ModuleFinder.of(Path.of("target/classes")).find("io.hybridcache.core").orElseThrow()
        .descriptor();
    assertEquals(Set.of(ModuleDescriptor.Requires.Modifier.STATIC), d.requires().stream()
        .filter(r -> r.name().equals("micrometer.core")).findFirst().orElseThrow().modifiers());
  }

  @Test
  void theModuleExportsTheApiAndProvidesTheEngine() {
    ModuleReference ref = ModuleFinder.of(Path.of("target/classes")).find("io.hybridcache.core").orElseThrow();
    ModuleDescriptor d = ref.descriptor();
    assertEquals(Set.of("io.hybridcache.core.api", "io.hybridcache.core.catalog", "io.hybridcache.core.device",
            "io.hybridcache.core.metrics"),
        d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()));
    assertEquals(Set.of("io.hybridcache.core.engine.EngineProvider"),
        d.provides().stream().flatMap(p -> p.providers().stream()).collect(Collectors.toSet()));
  }

  @Test
  void onlyTheServiceAndTheRecordLogArePublicInTheEngine() throws Exception {
    Set<String> publicTypes = new TreeSet<>();
    Path classes = Path.of("target/classes/io/hybridcache/core/engine");
    try (Stream<Path> files = Files.list(classes)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
        String name = f.getFileName().toString().replace(".class", "");
        if (name.contains("$") || name.equals("package-info")) {
          continue;
        }
        Class<?> c = Class.forName("io.hybridcache.core.engine." + name, false, getClass().getClassLoader());
        if (Modifier.isPublic(c.getModifiers())) {
          publicTypes.add(name);
        }
      }
    }
    assertEquals(Set.of("EngineProvider", "RecordLog"), publicTypes);
  }
}
