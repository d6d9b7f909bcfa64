package io.hybridcache.core.api;

import java.util.Locale;

/** The stream mappers a cache can be configured with ({@code CacheConfig.streamMapper}). Immutable. */
public enum MapperKind {
  /** Every segment in stream 0: what a device without streams sees. */
  SINGLE("single"),
  /** One stream per lifetime class, in the order classes appear (seeds: file-based mapping). */
  STATIC("static"),
  /** Dynamic stream mapping: K hotness groups by pivot points, re-mapped each epoch (seed: DSM). */
  DSM("dsm"),
  /** FileStream: mapper for new classes, k-means++ remapper on invalidations per byte, divider. */
  FILESTREAM("filestream");

  private final String label;

  MapperKind(String label) {
    this.label = label;
  }

  /** The lower-case name used in configuration, stats and the write trace. */
  public String label() {
    return label;
  }

  /** Parses single, static, dsm or filestream (case-insensitive); the error names {@code field}. */
  public static MapperKind parse(String field, String name) {
    String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
    for (MapperKind k : values()) {
      if (k.label.equals(n)) {
        return k;
      }
    }
    throw new IllegalArgumentException(field + ": unknown stream mapper '" + name
        + "'; use single, static, dsm or filestream");
  }

  @Override
  public String toString() {
    return label;
  }
}
