package io.hybridcache.cassandra;

import io.hybridcache.core.api.AdmissionPolicies;
import io.hybridcache.core.api.AdmissionPolicy;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.cassandra.config.DataStorageSpec;

/**
 * The flash tier's settings for the Cassandra row cache, read from one properties file: the file the
 * system property {@value #FILE_PROPERTY} names, else {@value #FILE_NAME} beside cassandra.yaml. The
 * DRAM tier's size is not here: it is Cassandra's {@code row_cache_size}.
 *
 * <p>Immutable and thread-safe. Every value is validated when loaded; an error names the file, the
 * setting and the bad value. Unknown settings are errors (a typo must not silently fall back).
 *
 * <table>
 *   <caption>settings</caption>
 *   <tr><td>directory</td><td>(required) where segment files and the index live</td></tr>
 *   <tr><td>flash_size</td><td>flash byte budget, e.g. {@code 8GiB} (default 1GiB)</td></tr>
 *   <tr><td>segment_size</td><td>segment file size (default 64MiB)</td></tr>
 *   <tr><td>write_buffer_size</td><td>write buffer; also the largest partition kept on flash (default 1MiB)</td></tr>
 *   <tr><td>admission</td><td>accept-all, random:P, write-rate:BYTES_PER_SECOND, second-hit:SLOTS</td></tr>
 *   <tr><td>direct_io</td><td>true (default) or false</td></tr>
 *   <tr><td>expected_entries</td><td>initial size of the heap index (default flash_size / 4KiB; it grows)</td></tr>
 *   <tr><td>index</td><td>heap (the only index inside Cassandra, see src/site/cassandra.md)</td></tr>
 *   <tr><td>start</td><td>cold (default: empty on every start) or warm (kept only after a clean drain,
 *       see {@link HybridRowCacheProvider})</td></tr>
 *   <tr><td>name</td><td>name in logs and the JMX ObjectName (default cassandra-row-cache)</td></tr>
 *   <tr><td>table_classes</td><td>single (default: every table in one lifetime class) or per_table (each
 *       table its own class, see {@link TableClasses})</td></tr>
 * </table>
 *
 * Sizes use cassandra.yaml's units: {@code B}, {@code KiB}, {@code MiB}, {@code GiB}.
 */
public final class RowCacheSettings {
  public static final String FILE_PROPERTY = "hybridcache.config";
  public static final String FILE_NAME = "hybridcache.properties";
  static final String PREFIX = "hybridcache row cache: ";
  /** Default {@code write_buffers}: write buffers per lifetime class. */
  static final int DEFAULT_WRITE_BUFFERS = 16;

  private static final Set<String> KNOWN = Set.of("directory", "flash_size", "segment_size", "write_buffer_size",
      "write_buffers", "admission", "direct_io", "index", "start", "name", "expected_entries", "table_classes");
  /** CacheConfig's field names as this file calls them, for CacheConfig's own validation messages. */
  private static final Map<String, String> FIELD_NAMES = Map.of("flashBytes", "flash_size", "segmentBytes",
      "segment_size", "writeBufferBytes", "write_buffer_size", "writeBuffers", "write_buffers", "directory",
      "directory", "name", "name");

  private final Path source;
  private final CacheConfig flash; // validated with a 1 MiB DRAM tier; the real size comes from Cassandra
  private final boolean warmStart;
  private final boolean classPerTable;

  private RowCacheSettings(Path source, CacheConfig flash, boolean warmStart, boolean classPerTable) {
    this.source = source;
    this.flash = flash;
    this.warmStart = warmStart;
    this.classPerTable = classPerTable;
  }

  /** The file this was read from. */
  public Path source() {
    return source;
  }

  public boolean warmStart() {
    return warmStart;
  }

  /** {@code table_classes=per_table}: each table's partitions in a lifetime class of their own on flash. */
  public boolean classPerTable() {
    return classPerTable;
  }

  /** The cache's configuration with a DRAM tier of {@code dramBytes} (Cassandra's row_cache_size). */
  public CacheConfig cacheConfig(long dramBytes) {
    try {
      return flash.toBuilder().dramBytes(dramBytes).build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(PREFIX + "row_cache_size in cassandra.yaml: " + e.getMessage(), e);
    }
  }

  private static CacheConfig validate(Path source, CacheConfig.Builder b) {
    try {
      return b.dramBytes(CacheConfig.MIB).build();
    } catch (IllegalArgumentException e) {
      String msg = e.getMessage();
      for (Map.Entry<String, String> f : FIELD_NAMES.entrySet()) {
        if (msg.startsWith(f.getKey() + " ")) {
          msg = f.getValue() + msg.substring(f.getKey().length());
        }
      }
      throw new IllegalArgumentException(PREFIX + source + ": " + msg, e);
    }
  }

  /** Finds and reads the settings file. */
  public static RowCacheSettings load() {
    return read(locate());
  }

  /** The settings file: {@value #FILE_PROPERTY} if set, else beside cassandra.yaml. */
  static Path locate() {
    String explicit = System.getProperty(FILE_PROPERTY);
    if (explicit != null && !explicit.isBlank()) {
      Path p = toPath(explicit.trim(), "-D" + FILE_PROPERTY);
      if (!Files.isReadable(p)) {
        throw new IllegalArgumentException(PREFIX + "-D" + FILE_PROPERTY + "=" + explicit + ": no readable file there");
      }
      return p;
    }
    List<String> tried = new ArrayList<>();
    Path yaml = cassandraYaml();
    if (yaml != null && yaml.getParent() != null) {
      Path p = yaml.getParent().resolve(FILE_NAME);
      if (Files.isReadable(p)) {
        return p;
      }
      tried.add(p.toString());
    }
    throw new IllegalArgumentException(PREFIX + "no settings file: set -D" + FILE_PROPERTY + "=/path/to/" + FILE_NAME
        + " or put " + FILE_NAME + " beside cassandra.yaml" + (tried.isEmpty() ? "" : " (looked at " + tried + ")"));
  }

  /** cassandra.yaml as Cassandra finds it: -Dcassandra.config (a URL or path), else on the class path. */
  private static Path cassandraYaml() {
    String config = System.getProperty("cassandra.config");
    if (config != null && !config.isBlank()) {
      return toPath(config.trim(), "-Dcassandra.config");
    }
    URL url = RowCacheSettings.class.getClassLoader().getResource("cassandra.yaml");
    if (url != null && "file".equals(url.getProtocol())) {
      try {
        return Path.of(url.toURI());
      } catch (URISyntaxException | IllegalArgumentException e) {
        return null;
      }
    }
    return null;
  }

  private static Path toPath(String text, String what) {
    try {
      return text.startsWith("file:") ? Path.of(URI.create(text)) : Path.of(text);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(PREFIX + what + "=" + text + " is not a file path or file: URL", e);
    }
  }

  /** Reads and validates {@code file}. */
  public static RowCacheSettings read(Path file) {
    Properties p = new Properties();
    try (InputStream in = Files.newInputStream(file)) {
      p.load(in);
    } catch (IOException e) {
      throw new IllegalArgumentException(PREFIX + "cannot read " + file + ": " + e, e);
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (String k : p.stringPropertyNames()) {
      if (!KNOWN.contains(k)) {
        throw new IllegalArgumentException(PREFIX + file + ": unknown setting '" + k + "' (known: "
            + KNOWN.stream().sorted().toList() + ")");
      }
      values.put(k, p.getProperty(k).trim());
    }
    Parser v = new Parser(file, values);
    String dir = v.required("directory");
    long flashBytes = v.size("flash_size", "1GiB");
    int writeBuffers = (int) Math.min(Integer.MAX_VALUE, v.count("write_buffers", DEFAULT_WRITE_BUFFERS));
    CacheConfig.Builder b = CacheConfig.builder(v.path("directory", dir))
        .name(v.text("name", "cassandra-row-cache"))
        .flashBytes(flashBytes)
        .expectedEntries(v.count("expected_entries", Math.max(16_384, flashBytes / 4096)))
        .segmentBytes(v.intSize("segment_size", "64MiB"))
        .writeBufferBytes(v.intSize("write_buffer_size", "1MiB"))
        // more than the library's 4: with no wait (below) the buffers are all that absorbs a burst of
        // evictions while the device writes
        .writeBuffers(writeBuffers)
        // four classes' worth whatever the row cache's size (cassandra.md), not the library's derived
        // sixteenth of the DRAM tier: the same burst room at every row_cache_size
        .writeBuffersTotal((int) Math.min(CacheConfig.MAX_BUFFERS,
            (long) CacheConfig.DEFAULT_WRITE_BUFFER_CLASSES * writeBuffers))
        .directIo(v.bool("direct_io", true))
        .indexType(v.index())
        .admission(v.admission())
        // Cassandra caches partitions on its read path: an eviction there never waits for flash room
        // (the library's default waits up to 200 ms); no room is a counted rejection
        .cascadeWait(java.time.Duration.ZERO);
    boolean warm = v.choice("start", "cold", List.of("cold", "warm")).equals("warm");
    boolean perTable = v.choice("table_classes", "single", List.of("single", "per_table")).equals("per_table");
    return new RowCacheSettings(file, validate(file, b), warm, perTable);
  }

  /** Parses one file's values; every error names the file and the setting. */
  private record Parser(Path file, Map<String, String> values) {
    private IllegalArgumentException bad(String key, String rule, Throwable cause) {
      return new IllegalArgumentException(PREFIX + file + ": " + key + " " + rule + ", was '" + values.get(key) + "'",
          cause);
    }

    String required(String key) {
      String s = values.get(key);
      if (s == null || s.isEmpty()) {
        throw new IllegalArgumentException(PREFIX + file + ": " + key + " must be set");
      }
      return s;
    }

    String text(String key, String dflt) {
      String s = values.get(key);
      return s == null || s.isEmpty() ? dflt : s;
    }

    Path path(String key, String text) {
      try {
        Path p = Path.of(text);
        if (!p.isAbsolute()) {
          throw bad(key, "must be an absolute path", null);
        }
        return p;
      } catch (InvalidPathException e) {
        throw bad(key, "must be a path", e);
      }
    }

    long size(String key, String dflt) {
      String s = text(key, dflt);
      try {
        return new DataStorageSpec.LongBytesBound(s).toBytes();
      } catch (IllegalArgumentException e) {
        throw bad(key, "must be a size such as 512MiB or 8GiB", e);
      }
    }

    int intSize(String key, String dflt) {
      long n = size(key, dflt);
      if (n > Integer.MAX_VALUE) {
        throw bad(key, "must be below 2GiB", null);
      }
      return (int) n;
    }

    long count(String key, long dflt) {
      String s = values.get(key);
      if (s == null || s.isEmpty()) {
        return dflt;
      }
      try {
        long n = Long.parseLong(s);
        if (n > 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        throw bad(key, "must be a positive whole number", e);
      }
      throw bad(key, "must be a positive whole number", null);
    }

    boolean bool(String key, boolean dflt) {
      return Boolean.parseBoolean(choice(key, Boolean.toString(dflt), List.of("true", "false")));
    }

    String choice(String key, String dflt, List<String> allowed) {
      String s = text(key, dflt).toLowerCase(Locale.ROOT);
      if (!allowed.contains(s)) {
        throw bad(key, "must be one of " + allowed, null);
      }
      return s;
    }

    IndexType index() {
      if (choice("index", "heap", List.of("heap", "chronicle")).equals("chronicle")) {
        throw bad("index", "must be heap inside Cassandra (Chronicle Map needs newer Chronicle libraries than"
            + " the chronicle-core 2.23 in Cassandra's lib/)", null);
      }
      return IndexType.HEAP;
    }

    io.hybridcache.core.api.AdmissionPolicy admission() {
      return AdmissionPolicies.parse(PREFIX + file + ": admission", text("admission", "accept-all"));
    }
  }
}
