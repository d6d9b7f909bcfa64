package io.hybridcache.core.catalog;

import io.hybridcache.core.device.Device;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Configuration of a {@link SchemaCatalog}: immutable and thread-safe; {@link Builder#build} validates
 * every field and names the bad one.
 *
 * <table>
 *   <caption>fields</caption>
 *   <tr><th>field</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>directory</td><td>(required)</td><td>catalogue directory, e.g. {@code <cacheDir>/catalog}</td></tr>
 *   <tr><td>segmentBytes</td><td>1 MiB</td><td>catalogue segment size; multiple of 4 KiB in [1 MiB, 64 MiB]</td></tr>
 *   <tr><td>segmentCount</td><td>16</td><td>catalogue slots (files), 4..4096; the catalogue compacts when they run low</td></tr>
 *   <tr><td>directIo</td><td>true</td><td>O_DIRECT where the filesystem allows it</td></tr>
 *   <tr><td>maxSchemasPerNamespace</td><td>4096</td><td>distinct live schemas per namespace; past it rows of that namespace carry inline names</td></tr>
 *   <tr><td>namespaceCap(ns, n)</td><td>none</td><td>a different cap for one namespace</td></tr>
 * </table>
 *
 * <p>segmentBytes and segmentCount are recorded in the directory at creation; reopening with other
 * values is an error (the catalogue is never wiped to start over).
 */
public final class CatalogConfig {
  public static final int MIB = 1 << 20;
  public static final int MIN_SEGMENT_BYTES = MIB;
  public static final int MAX_SEGMENT_BYTES = 64 * MIB;
  public static final int MIN_SEGMENTS = 4;
  public static final int MAX_SEGMENTS = 4096;

  private final Path directory;
  private final int segmentBytes;
  private final int segmentCount;
  private final boolean directIo;
  private final int maxSchemasPerNamespace;
  private final Map<String, Integer> namespaceCaps;

  private CatalogConfig(Builder b) {
    this.directory = b.directory;
    this.segmentBytes = (int) b.segmentBytes; // validated <= 64 MiB
    this.segmentCount = b.segmentCount;
    this.directIo = b.directIo;
    this.maxSchemasPerNamespace = b.maxSchemasPerNamespace;
    this.namespaceCaps = Collections.unmodifiableMap(new LinkedHashMap<>(b.namespaceCaps));
  }

  public static Builder builder(Path directory) {
    return new Builder().directory(directory);
  }

  public Path directory() { return directory; }
  public int segmentBytes() { return segmentBytes; }
  public int segmentCount() { return segmentCount; }
  public boolean directIo() { return directIo; }
  public int maxSchemasPerNamespace() { return maxSchemasPerNamespace; }
  public Map<String, Integer> namespaceCaps() { return namespaceCaps; }

  /** The cap on distinct live schemas in {@code namespace}. */
  public int capFor(String namespace) {
    return namespaceCaps.getOrDefault(namespace, maxSchemasPerNamespace);
  }

  @Override
  public String toString() {
    return "CatalogConfig{directory=" + directory + ", segmentBytes=" + segmentBytes + ", segmentCount="
        + segmentCount + ", directIo=" + directIo + ", maxSchemasPerNamespace=" + maxSchemasPerNamespace
        + ", namespaceCaps=" + namespaceCaps + "}";
  }

  /** Not thread-safe. */
  public static final class Builder {
    private Path directory;
    private long segmentBytes = MIB;
    private int segmentCount = 16;
    private boolean directIo = true;
    private int maxSchemasPerNamespace = 4096;
    private final Map<String, Integer> namespaceCaps = new LinkedHashMap<>();

    private Builder() {}

    public Builder directory(Path v) { directory = v; return this; }
    public Builder segmentBytes(long v) { segmentBytes = v; return this; }
    public Builder segmentCount(int v) { segmentCount = v; return this; }
    public Builder directIo(boolean v) { directIo = v; return this; }
    public Builder maxSchemasPerNamespace(int v) { maxSchemasPerNamespace = v; return this; }

    /** A cap for one namespace, overriding {@link #maxSchemasPerNamespace} there. */
    public Builder namespaceCap(String namespace, int cap) {
      Names.check("namespace", namespace);
      require(cap >= 0, "namespaceCap(" + namespace + ")", "must be >= 0", cap);
      namespaceCaps.put(namespace, cap);
      return this;
    }

    public CatalogConfig build() {
      require(directory != null, "directory", "is required", null);
      require(segmentBytes >= MIN_SEGMENT_BYTES && segmentBytes <= MAX_SEGMENT_BYTES
          && segmentBytes % Device.ALIGNMENT == 0, "segmentBytes",
          "must be a multiple of 4096 in [" + MIN_SEGMENT_BYTES + ", " + MAX_SEGMENT_BYTES + "]", segmentBytes);
      require(segmentCount >= MIN_SEGMENTS && segmentCount <= MAX_SEGMENTS, "segmentCount",
          "must be in [" + MIN_SEGMENTS + ", " + MAX_SEGMENTS + "]", segmentCount);
      require(maxSchemasPerNamespace >= 0, "maxSchemasPerNamespace", "must be >= 0", maxSchemasPerNamespace);
      return new CatalogConfig(this);
    }

    private static void require(boolean ok, String field, String rule, Object value) {
      if (!ok) {
        throw new IllegalArgumentException("CatalogConfig." + field + " " + rule + (value == null ? "" : ", was " + value));
      }
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CatalogConfig c && directory.equals(c.directory) && segmentBytes == c.segmentBytes
        && segmentCount == c.segmentCount && directIo == c.directIo
        && maxSchemasPerNamespace == c.maxSchemasPerNamespace && namespaceCaps.equals(c.namespaceCaps);
  }

  @Override
  public int hashCode() {
    return Objects.hash(directory, segmentBytes, segmentCount, directIo, maxSchemasPerNamespace, namespaceCaps);
  }
}
