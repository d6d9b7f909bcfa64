package io.hybridcache.core.placement;

import java.util.Objects;

/**
 * The group a flash write belongs to by expected lifetime; each class has its own active segment and
 * write buffer, so entries with different lifetimes never share a segment (seeds: multi-stream SSD
 * boundary mapping, DSM). Immutable and thread-safe.
 *
 * <p>Built-in classes: {@link #FRESH} (first write of a DRAM eviction) and {@link #SURVIVOR} (entries
 * reinserted by reclaim: they outlived one segment), {@link #CATALOG} (schema definitions). Ids 0..15
 * are reserved for built-in classes.
 */
public record LifetimeClass(int id, String name) {
  public static final LifetimeClass FRESH = new LifetimeClass(0, "FRESH");
  public static final LifetimeClass SURVIVOR = new LifetimeClass(1, "SURVIVOR");
  /** Schema catalogue records: near-permanent. */
  public static final LifetimeClass CATALOG = new LifetimeClass(2, "CATALOG");

  public LifetimeClass {
    Objects.requireNonNull(name, "name");
    if (id < 0 || id > 0xFFFF) {
      throw new IllegalArgumentException("lifetime class id must be 0..65535: " + id);
    }
  }

  @Override
  public String toString() {
    return name;
  }
}
