package io.hybridcache.core.api;

/** The tier that served a hit, as a {@link TieredDecoder} is told. */
public enum Tier {
  /** The DRAM tier held the entry. */
  DRAM,
  /** A flash engine (the log engine or the small-object engine) held it; the read promoted it to DRAM. */
  FLASH
}
