package io.hybridcache.core.api;

import java.util.Objects;

/**
 * The group a flash write belongs to by expected lifetime; each class has its own active segment and
 * write buffer, so entries with different lifetimes never share a segment (seeds: multi-stream SSD
 * boundary mapping, DSM). Immutable and thread-safe.
 *
 * <p>Built-in classes: {@link #FRESH} (first write of a DRAM eviction) and {@link #SURVIVOR} (entries
 * reinserted by reclaim: they outlived one segment), {@link #CATALOG} (schema definitions). Ids 0..15
 * are reserved for built-in classes; callers name their own with {@link #named} (ids from
 * {@value #FIRST_CALLER_ID}), e.g. one per Cassandra table or Mongo collection, and pass them to
 * {@link io.hybridcache.core.api.HybridCache#put(byte[], byte[], LifetimeClass)}. A class id is stored in
 * every segment header: keep the id of a name the same across restarts.
 */
public record LifetimeClass(int id, String name) {
  public static final LifetimeClass FRESH = new LifetimeClass(0, "FRESH");
  public static final LifetimeClass SURVIVOR = new LifetimeClass(1, "SURVIVOR");
  /** Schema catalogue records: near-permanent. */
  public static final LifetimeClass CATALOG = new LifetimeClass(2, "CATALOG");
  /** The first id of a caller-named class; below it ids are reserved. */
  public static final int FIRST_CALLER_ID = 16;
  /** The largest class id (segment headers store 16 bits). */
  public static final int MAX_ID = 0xFFFF;

  public LifetimeClass {
    Objects.requireNonNull(name, "name");
    if (id < 0 || id > MAX_ID) {
      throw new IllegalArgumentException("lifetime class id must be 0..65535: " + id);
    }
  }

  /**
   * A caller-named class, e.g. {@code LifetimeClass.named(16, "users")}.
   *
   * @throws IllegalArgumentException if {@code id} is outside [{@value #FIRST_CALLER_ID}, 65535] or the
   *     name is blank
   */
  public static LifetimeClass named(int id, String name) {
    if (id < FIRST_CALLER_ID || id > MAX_ID) {
      throw new IllegalArgumentException("a caller-named lifetime class id must be " + FIRST_CALLER_ID
          + "..65535 (0.." + (FIRST_CALLER_ID - 1) + " are reserved), was " + id);
    }
    if (name == null || name.isBlank() || name.indexOf(',') >= 0 || name.indexOf('\n') >= 0) {
      throw new IllegalArgumentException("lifetime class name must be non-blank without ',' or newlines, was " + name);
    }
    return new LifetimeClass(id, name);
  }

  /** True for FRESH, SURVIVOR, CATALOG and the other reserved ids. */
  public boolean builtIn() {
    return id < FIRST_CALLER_ID;
  }

  @Override
  public String toString() {
    return name;
  }
}
