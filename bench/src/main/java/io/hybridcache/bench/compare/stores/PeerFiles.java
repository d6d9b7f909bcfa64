package io.hybridcache.bench.compare.stores;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the file-backed peer stores share: their data file in the settings' directory, and the key
 * size they preallocate for. Stateless, thread-safe.
 */
final class PeerFiles {
  /**
   * A typical YCSB key ({@code insertorder=hashed}: "user" and a 64-bit hash in decimal): 23 bytes,
   * the key size stores that preallocate per entry (Chronicle Map, OHC's hash table) size for.
   */
  static final String TYPICAL_KEY = "user6284781860667377211";

  private PeerFiles() {}

  /** {@code directory/name}, creating {@code directory} (and its parents) if missing. */
  static Path fileIn(Path directory, String name) {
    try {
      return Files.createDirectories(directory).resolve(name);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the store directory " + directory, e);
    }
  }
}
