package io.hybridcache.core.catalog;

import io.hybridcache.core.api.Codec;
import java.util.Arrays;
import java.util.Collection;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * A thread-safe codec that encodes a {@link Row} as a schema id plus its values in schema order, with no column names
 * (CaSSanDra paper, section V), and decodes the whole row or only some columns, skipping the others
 * by length without copying them (the paper's column-slice benefit). A nested row gets a schema id of
 * its own. Rows of a namespace at its schema cap carry their names inline instead.
 *
 * <p>Thread-safe: the codec holds only the catalogue and its namespace; a {@link Slice} caches its
 * column positions per schema id in an immutable holder.
 *
 * <p>Format (version {@value #FORMAT_VERSION}; varint = unsigned LEB128, 7 bits a byte, low bits first;
 * names are UTF-8):
 *
 * <pre>
 *  byte 0        header: bits 7..4 format version (1); bit 0 INLINE (1 = names inline, no schema id);
 *                bit 1 NESTED (1 = a nested-column bitmap follows); bits 3..2 zero
 *  catalogue:    varint schema id (1..2^32-1); n = the schema's column count, names = its columns
 *  inline:       varint n (0..1024), then n x (varint name length (1..255), name), strictly ascending
 *  if NESTED:    ceil(n / 8) bytes, bit (i mod 8) of byte (i / 8) set = column i holds a nested row
 *  values:       n x (varint value length, value bytes), in name order; a nested column's bytes are
 *                themselves a row of this format (its own header and schema id)
 * </pre>
 *
 * A flat row of n columns with v value bytes costs 1 + varint(id) + sum(varint(len)) + v bytes: for
 * YCSB's 10 x 100 B, 1 + 1 + 10 x 1 + 1000 = 1012 B against 1082 B with names inline. The cache
 * checksums its entries, so this format carries no checksum; every decode checks every length against
 * the bytes left, the end of the row, the header bits and the schema id, and throws
 * {@link RowFormatException} (or {@link UnknownSchemaException}) rather than return a wrong row.
 * Nesting is limited to {@value #MAX_DEPTH} levels. Also documented in {@code src/site/format.md}.
 */
public final class RowCodec implements Codec<Row> {
  public static final int FORMAT_VERSION = 1;
  public static final int MAX_DEPTH = 32;
  private static final int INLINE = 1;
  private static final int NESTED = 2;
  private static final int RESERVED = 0x0C;

  private final SchemaCatalog catalog;
  private final String namespace;

  /** A codec for rows of {@link SchemaCatalog#DEFAULT_NAMESPACE}. */
  public RowCodec(SchemaCatalog catalog) {
    this(catalog, SchemaCatalog.DEFAULT_NAMESPACE);
  }

  /** A codec whose rows (and nested rows) get their schema ids in {@code namespace}. */
  public RowCodec(SchemaCatalog catalog, String namespace) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    Names.check("namespace", namespace);
    this.namespace = namespace;
  }

  public SchemaCatalog catalog() {
    return catalog;
  }

  public String namespace() {
    return namespace;
  }

  // ---- encode ----

  /**
   * The row's bytes. A new schema is made durable in the catalogue first (see
   * {@link SchemaCatalog#idFor}); a namespace at its cap gives inline names.
   */
  @Override
  public byte[] encode(Row row) {
    Objects.requireNonNull(row, "row");
    ByteSink out = new ByteSink(estimate(row));
    write(out, row, 1);
    return out.toByteArray();
  }

  private void write(ByteSink out, Row row, int depth) {
    if (depth > MAX_DEPTH) {
      throw new RowFormatException("row nested deeper than " + MAX_DEPTH + " levels");
    }
    String[] names = row.nameArray();
    int n = names.length;
    boolean nested = false;
    for (int i = 0; i < n && !nested; i++) {
      nested = row.valueAt(i) instanceof Row;
    }
    long id = catalog.idForSorted(namespace, names);
    out.u8(FORMAT_VERSION << 4 | (id == SchemaCatalog.NO_ID ? INLINE : 0) | (nested ? NESTED : 0));
    if (id != SchemaCatalog.NO_ID) {
      out.varint(id);
    } else {
      out.varint(n);
      for (String name : names) {
        byte[] b = Names.utf8(name);
        out.varint(b.length);
        out.bytes(b);
      }
    }
    if (nested) {
      for (int i = 0; i < n; i += 8) {
        int bits = 0;
        for (int j = i; j < Math.min(n, i + 8); j++) {
          bits |= row.valueAt(j) instanceof Row ? 1 << (j - i) : 0;
        }
        out.u8(bits);
      }
    }
    for (int i = 0; i < n; i++) {
      Object v = row.valueAt(i);
      if (v instanceof byte[] b) {
        out.varint(b.length);
        out.bytes(b);
      } else {
        ByteSink inner = new ByteSink(estimate((Row) v));
        write(inner, (Row) v, depth + 1);
        byte[] b = inner.toByteArray();
        out.varint(b.length);
        out.bytes(b);
      }
    }
  }

  private static int estimate(Row row) {
    int n = 8;
    for (int i = 0; i < row.size(); i++) {
      Object v = row.valueAt(i);
      n += 3 + (v instanceof byte[] b ? b.length : estimate((Row) v));
    }
    return n;
  }

  // ---- decode ----

  /** The whole row. */
  @Override
  public Row decode(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    return read(bytes, 0, bytes.length, 1, null);
  }

  /**
   * Only {@code columns} of the row (top-level names; a nested column comes whole); names the row
   * lacks are absent from the result. The other values are skipped by length, not copied.
   */
  public Row decode(byte[] bytes, Collection<String> columns) {
    return slice(columns).decode(bytes);
  }

  /** A reusable column slice: faster than {@link #decode(byte[], Collection)} for repeated reads. */
  public Slice slice(Collection<String> columns) {
    return new Slice(columns);
  }

  public Slice slice(String... columns) {
    return new Slice(Arrays.asList(columns));
  }

  /**
   * Calls {@code action} with every schema id {@code bytes} references, its own and its nested rows'
   * (for the live set of {@link SchemaCatalog#reclaim}); values are skipped, not copied.
   */
  public void forEachSchemaId(byte[] bytes, LongConsumer action) {
    Objects.requireNonNull(bytes, "bytes");
    walkIds(bytes, 0, bytes.length, 1, action);
  }

  /** Header, names and nested bitmap of the row in {@code c}; leaves {@code c} at the first value. */
  private record Head(String[] names, byte[] nestedBits, long schemaId) {
    boolean nested(int i) {
      return nestedBits != null && (nestedBits[i >>> 3] & (1 << (i & 7))) != 0;
    }
  }

  private Head head(ByteCursor c, int depth) {
    if (depth > MAX_DEPTH) {
      throw new RowFormatException("corrupt row: nested deeper than " + MAX_DEPTH + " levels");
    }
    int at = c.pos;
    int h = c.u8("row header");
    if (h >>> 4 != FORMAT_VERSION) {
      throw new RowFormatException("not a row of this format: header byte 0x" + Integer.toHexString(h) + " at offset "
          + at + " says version " + (h >>> 4) + ", expected " + FORMAT_VERSION);
    }
    if ((h & RESERVED) != 0) {
      throw new RowFormatException("corrupt row: reserved header bits set in 0x" + Integer.toHexString(h)
          + " at offset " + at);
    }
    String[] names;
    long id = SchemaCatalog.NO_ID;
    if ((h & INLINE) == 0) {
      id = c.varint("schema id", 32);
      Schema s = catalog.lookup(id);
      if (s == null) {
        throw catalog.unknown(id);
      }
      names = s.nameArray();
    } else {
      long n = c.varint("inline column count", 31);
      if (n > Names.MAX_COLUMNS) {
        throw new RowFormatException("corrupt row: " + n + " inline columns at offset " + at + "; the cap is "
            + Names.MAX_COLUMNS);
      }
      names = new String[(int) n];
      for (int i = 0; i < n; i++) {
        int len = c.nameLength(i);
        if (len == 0 || len > Names.MAX_NAME_BYTES) {
          throw new RowFormatException("corrupt row: inline column #" + i + " name of " + len + " bytes at offset "
              + c.pos + " (names are 1.." + Names.MAX_NAME_BYTES + " bytes)");
        }
        names[i] = c.utf8("inline column name", len);
        if (i > 0 && names[i - 1].compareTo(names[i]) >= 0) {
          throw new RowFormatException("corrupt row: inline column names not strictly ascending at '"
              + Names.abbreviate(names[i]) + "'");
        }
      }
    }
    byte[] bits = null;
    if ((h & NESTED) != 0) {
      int len = (names.length + 7) >>> 3;
      if (c.remaining() < len) {
        throw new RowFormatException("truncated row: nested-column bitmap of " + len + " bytes at offset " + c.pos
            + ", only " + c.remaining() + " remain");
      }
      bits = Arrays.copyOfRange(c.b, c.pos, c.pos + len);
      c.skip(len);
      if ((names.length & 7) != 0 && len > 0 && (bits[len - 1] >>> (names.length & 7)) != 0) {
        throw new RowFormatException("corrupt row: nested-column bitmap names columns past the " + names.length
            + " the row has");
      }
    }
    return new Head(names, bits, id);
  }

  private Row read(byte[] b, int start, int end, int depth, Slice slice) {
    ByteCursor c = new ByteCursor(b, start, end);
    Head head = head(c, depth);
    String[] names = head.names();
    boolean[] wanted = slice == null ? null : slice.mask(head);
    int count = wanted == null ? names.length : countTrue(wanted);
    String[] outNames = wanted == null ? names : new String[count];
    Object[] values = new Object[count];
    int k = 0;
    for (int i = 0; i < names.length; i++) {
      int len = c.valueLength(names, i);
      int at = c.skip(len);
      if (wanted != null && !wanted[i]) {
        continue;
      }
      outNames[k] = names[i];
      values[k++] = head.nested(i) ? read(b, at, at + len, depth + 1, null) : Arrays.copyOfRange(b, at, at + len);
    }
    if (c.remaining() != 0) {
      throw new RowFormatException("corrupt row: " + c.remaining() + " bytes after the last of " + names.length
          + " columns (ends at offset " + c.pos + " of " + end + ")");
    }
    return new Row(outNames, values);
  }

  private void walkIds(byte[] b, int start, int end, int depth, LongConsumer action) {
    ByteCursor c = new ByteCursor(b, start, end);
    Head head = head(c, depth);
    if (head.schemaId() != SchemaCatalog.NO_ID) {
      action.accept(head.schemaId());
    }
    for (int i = 0; i < head.names().length; i++) {
      int len = c.valueLength(head.names(), i);
      int at = c.skip(len);
      if (head.nested(i)) {
        walkIds(b, at, at + len, depth + 1, action);
      }
    }
  }

  private static int countTrue(boolean[] a) {
    int n = 0;
    for (boolean x : a) {
      n += x ? 1 : 0;
    }
    return n;
  }

  /**
   * A set of top-level columns to decode; thread-safe. Which positions of a schema are wanted is
   * computed once per schema id (ids are never reused, so the cache never goes stale) and kept in an
   * immutable holder of the last schema seen.
   */
  public final class Slice {
    private final String[] columns; // sorted
    private volatile Cached last;

    private record Cached(long schemaId, boolean[] mask) {}

    private Slice(Collection<String> columns) {
      Objects.requireNonNull(columns, "columns");
      this.columns = columns.stream().distinct().sorted().toArray(String[]::new);
    }

    /** The sliced columns of the row in {@code bytes}. */
    public Row decode(byte[] bytes) {
      Objects.requireNonNull(bytes, "bytes");
      return read(bytes, 0, bytes.length, 1, this);
    }

    boolean[] mask(Head head) {
      Cached c = last;
      if (c != null && head.schemaId() != SchemaCatalog.NO_ID && c.schemaId() == head.schemaId()) {
        return c.mask();
      }
      String[] names = head.names();
      boolean[] m = new boolean[names.length];
      for (String col : columns) {
        int i = Arrays.binarySearch(names, col);
        if (i >= 0) {
          m[i] = true;
        }
      }
      if (head.schemaId() != SchemaCatalog.NO_ID) {
        last = new Cached(head.schemaId(), m);
      }
      return m;
    }
  }
}
