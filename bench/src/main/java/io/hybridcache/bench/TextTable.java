package io.hybridcache.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A plain-text table with left-aligned first column and right-aligned others. Not thread-safe. */
public final class TextTable {
  private final List<String[]> rows = new ArrayList<>();
  private final int columns;

  public TextTable(String... header) {
    this.columns = header.length;
    rows.add(header);
  }

  public TextTable row(Object... cells) {
    String[] r = new String[columns];
    for (int i = 0; i < columns; i++) {
      r[i] = i < cells.length ? cell(cells[i]) : "";
    }
    rows.add(r);
    return this;
  }

  /** Formats numbers compactly: integers without decimals, small values with 3 significant decimals. */
  public static String cell(Object o) {
    if (o == null) {
      return "-";
    }
    if (o instanceof Double d) {
      if (d.isNaN()) {
        return "-";
      }
      double a = Math.abs(d);
      if (d == Math.rint(d) && a < 1e15) {
        return String.format(Locale.ROOT, "%,d", d.longValue());
      }
      if (a >= 1000) {
        return String.format(Locale.ROOT, "%,.0f", d);
      }
      if (a >= 10) {
        return String.format(Locale.ROOT, "%.1f", d);
      }
      return String.format(Locale.ROOT, "%.3f", d);
    }
    if (o instanceof Long || o instanceof Integer) {
      return String.format(Locale.ROOT, "%,d", ((Number) o).longValue());
    }
    return o.toString();
  }

  public void print(PrintStream out) {
    int[] w = new int[columns];
    for (String[] r : rows) {
      for (int i = 0; i < columns; i++) {
        w[i] = Math.max(w[i], r[i].length());
      }
    }
    for (int ri = 0; ri < rows.size(); ri++) {
      String[] r = rows.get(ri);
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        if (i > 0) {
          sb.append("  ");
        }
        String pad = " ".repeat(w[i] - r[i].length());
        sb.append(i == 0 ? r[i] + pad : pad + r[i]);
      }
      out.println(sb.toString().stripTrailing());
      if (ri == 0) {
        int total = 0;
        for (int x : w) {
          total += x;
        }
        out.println("-".repeat(total + 2 * (columns - 1)));
      }
    }
  }
}
