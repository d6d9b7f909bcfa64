package io.hybridcache.core.catalog;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * An immutable, thread-safe row or document: column name -> value, where a value is bytes or a nested
 * {@code Row}. Columns are
 * kept sorted by name ({@link String#compareTo}), which is also the schema order {@link RowCodec}
 * writes values in.
 *
 * <p>One caveat to immutability, for speed: byte arrays are not copied, neither when a
 * row is built nor when {@link #bytes} returns them, so a caller must not modify an array it handed in
 * or got back.
 *
 * <p>Names are 1..255 bytes of UTF-8, at most 1024 columns per row (nested rows count separately);
 * values are never null. Violations throw {@link IllegalArgumentException} naming the column.
 */
public final class Row {
  private static final Row EMPTY = new Row(new String[0], new Object[0]);

  private final String[] names; // sorted, unique; may be shared with a Schema (never mutated)
  private final Object[] values; // byte[] or Row

  Row(String[] names, Object[] values) {
    this.names = names;
    this.values = values;
  }

  public static Builder builder() {
    return new Builder();
  }

  public static Row empty() {
    return EMPTY;
  }

  /** A flat row of {@code columns} (name -> bytes). */
  public static Row of(Map<String, byte[]> columns) {
    Objects.requireNonNull(columns, "columns");
    Builder b = new Builder();
    columns.forEach(b::put);
    return b.build();
  }

  /** Column names in sort order. */
  public List<String> columns() {
    return Collections.unmodifiableList(Arrays.asList(names));
  }

  public int size() {
    return names.length;
  }

  public boolean isEmpty() {
    return names.length == 0;
  }

  public boolean has(String column) {
    return indexOf(column) >= 0;
  }

  /** True if {@code column} holds a nested row. */
  public boolean isNested(String column) {
    int i = indexOf(column);
    return i >= 0 && values[i] instanceof Row;
  }

  /**
   * The bytes of {@code column}, or null if the row has no such column.
   *
   * @throws IllegalStateException if the column holds a nested row (use {@link #row})
   */
  public byte[] bytes(String column) {
    int i = indexOf(column);
    if (i < 0) {
      return null;
    }
    if (values[i] instanceof byte[] b) {
      return b;
    }
    throw new IllegalStateException("column '" + column + "' holds a nested row, not bytes");
  }

  /**
   * The nested row in {@code column}, or null if the row has no such column.
   *
   * @throws IllegalStateException if the column holds bytes
   */
  public Row row(String column) {
    int i = indexOf(column);
    if (i < 0) {
      return null;
    }
    if (values[i] instanceof Row r) {
      return r;
    }
    throw new IllegalStateException("column '" + column + "' holds bytes, not a nested row");
  }

  /** Flat columns as name -> bytes in sort order; throws if a column holds a nested row. */
  public Map<String, byte[]> toBytesMap() {
    Map<String, byte[]> m = new LinkedHashMap<>(names.length * 2);
    for (String n : names) {
      m.put(n, bytes(n));
    }
    return m;
  }

  /** A builder holding this row's columns, to change some. */
  public Builder toBuilder() {
    Builder b = new Builder();
    for (int i = 0; i < names.length; i++) {
      b.columns.put(names[i], values[i]);
    }
    return b;
  }

  // ---- package-private: the codec works on the arrays ----

  String[] nameArray() {
    return names;
  }

  Object valueAt(int i) {
    return values[i];
  }

  private int indexOf(String column) {
    return column == null ? -1 : Arrays.binarySearch(names, column);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Row r) || !Arrays.equals(names, r.names)) {
      return false;
    }
    for (int i = 0; i < values.length; i++) {
      Object a = values[i];
      Object b = r.values[i];
      boolean same = a instanceof byte[] x ? b instanceof byte[] y && Arrays.equals(x, y) : a.equals(b);
      if (!same) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    int h = Arrays.hashCode(names);
    for (Object v : values) {
      h = 31 * h + (v instanceof byte[] b ? Arrays.hashCode(b) : v.hashCode());
    }
    return h;
  }

  /** Names with value sizes, e.g. {@code {a=3B, b={c=1B}}} (values are opaque bytes). */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("{");
    for (int i = 0; i < names.length; i++) {
      sb.append(i == 0 ? "" : ", ").append(names[i]).append('=');
      sb.append(values[i] instanceof byte[] b ? b.length + "B" : values[i].toString());
    }
    return sb.append('}').toString();
  }

  /** Collects columns; {@link #build} validates and sorts them. Not thread-safe. */
  public static final class Builder {
    private final TreeMap<String, Object> columns = new TreeMap<>();

    private Builder() {}

    /** Adds a bytes column; a name already added is an error (use {@link #set} to replace). */
    public Builder put(String column, byte[] value) {
      return add(column, Objects.requireNonNull(value, () -> "value of column '" + column + "' is null"), false);
    }

    /** Adds a nested-row column; a name already added is an error. */
    public Builder put(String column, Row nested) {
      return add(column, Objects.requireNonNull(nested, () -> "nested row of column '" + column + "' is null"), false);
    }

    /** Adds or replaces a bytes column. */
    public Builder set(String column, byte[] value) {
      return add(column, Objects.requireNonNull(value, () -> "value of column '" + column + "' is null"), true);
    }

    /** Adds or replaces a nested-row column. */
    public Builder set(String column, Row nested) {
      return add(column, Objects.requireNonNull(nested, () -> "nested row of column '" + column + "' is null"), true);
    }

    public Builder remove(String column) {
      columns.remove(column);
      return this;
    }

    private Builder add(String column, Object value, boolean replace) {
      Names.check("column name", column);
      if (columns.put(column, value) != null && !replace) {
        throw new IllegalArgumentException("duplicate column name '" + column + "'");
      }
      return this;
    }

    public Row build() {
      if (columns.size() > Names.MAX_COLUMNS) {
        throw new IllegalArgumentException(columns.size() + " columns; the cap is " + Names.MAX_COLUMNS);
      }
      return new Row(columns.keySet().toArray(new String[0]), columns.values().toArray());
    }
  }
}
