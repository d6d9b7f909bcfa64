package io.hybridcache.mongo;

/**
 * MongoDB could not be reached (no server selected in time, a socket error or timeout) for an
 * operation of a {@link CachedCollection}. The cache is unaffected: it keeps serving the documents it
 * holds; a write that failed this way invalidated its key (it may or may not have been applied).
 * Immutable; the driver's exception is the cause.
 */
public final class MongoUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public MongoUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
