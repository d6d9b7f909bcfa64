package io.hybridcache.core.catalog;

/**
 * A schema id the catalogue cannot resolve: never assigned, reclaimed, or lost to a corrupt catalogue
 * record. The message says which, as far as the catalogue can tell.
 */
public final class UnknownSchemaException extends RowFormatException {
  private static final long serialVersionUID = 1L;
  private final long schemaId;

  public UnknownSchemaException(long schemaId, String message) {
    super(message);
    this.schemaId = schemaId;
  }

  /** The id that did not resolve (unsigned 32-bit, as a long). */
  public long schemaId() {
    return schemaId;
  }
}
