package io.hybridcache.core.engine;

/**
 * Thrown by {@link Index#put} when the index has no room for a new key: the insertion did not
 * happen and the index is unchanged. The caller counts it as a rejected flash write (the entry stays
 * out of the flash tier) rather than as an error; updates of keys already present never throw it.
 *
 * <p>Immutable, hence thread-safe.
 */
final class IndexFullException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public IndexFullException(String message, Throwable cause) {
    super(message, cause);
  }

  public IndexFullException(String message) {
    super(message);
  }
}
