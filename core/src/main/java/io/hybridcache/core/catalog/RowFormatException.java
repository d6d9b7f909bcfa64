package io.hybridcache.core.catalog;

/**
 * Bytes that are not a row of {@link RowCodec}'s format, a row naming a schema id the catalogue does not
 * hold, or a row or column set the format cannot represent. The message names the problem (offset,
 * column, id); a decode that throws this never returns a partial or wrong row.
 */
public class RowFormatException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public RowFormatException(String message) {
    super(message);
  }
}
