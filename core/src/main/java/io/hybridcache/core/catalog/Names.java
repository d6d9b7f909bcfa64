package io.hybridcache.core.catalog;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;

/**
 * Thread-safe (stateless) validation of column names and namespaces, shared by {@link Row},
 * {@link SchemaCatalog} and {@link RowCodec}.
 *
 * <p>A name is 1..{@value #MAX_NAME_BYTES} bytes of UTF-8 (so it round-trips byte-exact: unpaired
 * surrogates are rejected); a schema has at most {@value #MAX_COLUMNS} columns. Sort order is
 * {@link String#compareTo} (UTF-16 code units), the order of schema columns and of inline names.
 */
final class Names {
  static final int MAX_NAME_BYTES = 255;
  static final int MAX_COLUMNS = 1024;

  private Names() {}

  /** The UTF-8 length of {@code name}; throws naming the problem if it is not a valid column name. */
  static int check(String what, String name) {
    if (name == null) {
      throw new IllegalArgumentException(what + " is null");
    }
    if (name.isEmpty()) {
      throw new IllegalArgumentException(what + " is empty");
    }
    int bytes = 0;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c < 0x80) {
        bytes++;
      } else if (c < 0x800) {
        bytes += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
        bytes += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(what + " '" + name + "' has an unpaired surrogate at index " + i
            + " (not representable in UTF-8)");
      } else {
        bytes += 3;
      }
    }
    if (bytes > MAX_NAME_BYTES) {
      throw new IllegalArgumentException(what + " '" + abbreviate(name) + "' is " + bytes
          + " bytes of UTF-8; the cap is " + MAX_NAME_BYTES);
    }
    return bytes;
  }

  /** {@code columns} sorted, validated: names valid, no duplicates, at most MAX_COLUMNS. */
  static String[] sortedChecked(Collection<String> columns) {
    if (columns == null) {
      throw new IllegalArgumentException("columns is null");
    }
    String[] a = columns.toArray(new String[0]);
    Arrays.sort(a, Names::compareNullsFirst);
    checkSorted(a);
    return a;
  }

  /** Checks an array already in sort order: valid names, strictly ascending, at most MAX_COLUMNS. */
  static void checkSorted(String[] sorted) {
    if (sorted.length > MAX_COLUMNS) {
      throw new IllegalArgumentException(sorted.length + " columns; the cap is " + MAX_COLUMNS);
    }
    for (int i = 0; i < sorted.length; i++) {
      check("column name", sorted[i]);
      if (i > 0 && sorted[i - 1].compareTo(sorted[i]) >= 0) {
        throw new IllegalArgumentException(sorted[i - 1].equals(sorted[i])
            ? "duplicate column name '" + sorted[i] + "'"
            : "column names not in sort order at '" + sorted[i] + "'");
      }
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 37) + "...";
  }

  private static int compareNullsFirst(String a, String b) {
    if (a == null || b == null) {
      return a == null ? (b == null ? 0 : -1) : 1;
    }
    return a.compareTo(b);
  }
}
